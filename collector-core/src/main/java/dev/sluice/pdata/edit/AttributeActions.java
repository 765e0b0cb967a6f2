package dev.sluice.pdata.edit;

import dev.sluice.pdata.internal.AttributeKeys;
import dev.sluice.pdata.internal.Internal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Pattern;

/**
 * A list of attribute actions with the OpenTelemetry Collector's {@code attributes} processor
 * semantics, built once from configuration and applied through the typed editors ({@link
 * SpanEditor#apply}, {@link LogRecordEditor#apply}, {@link DataPointEditor#apply}, {@link
 * ResourceEditor#apply}, {@link ScopeEditor#apply}), which run them in the data model's one rewrite
 * engine. Immutable but for a count of values left unconverted, so one list serves every thread.
 *
 * <ul>
 *   <li>{@code insert} / {@code update} / {@code upsert}: sets the key where it is absent / present
 *       / either, to a value given here or to the current value of another attribute ({@code
 *       from_attribute}; nothing happens when that one is absent).
 *   <li>{@code delete}: removes the key, and every key the pattern finds a match in.
 *   <li>{@code hash}: replaces the value of the key, and of every key the pattern finds a match in,
 *       by the lowercase hex SHA-256 of its bytes: a string's UTF-8, a bool as one byte 0 or 1, an
 *       int or a double as 8 little-endian bytes (the double's IEEE bits); an empty value, bytes,
 *       arrays and maps become the empty string.
 *   <li>{@code extract}: where the key holds a string in which the pattern finds a match, each
 *       capture group's text is upserted as a string under the group's attribute name (the empty
 *       string for a group that took no part in the match).
 *   <li>{@code convert}: converts the key's value to {@code int}, {@code double} or {@code string}
 *       (see {@link Conversion}); a value that does not convert is left as it was, and counted
 *       ({@link #unconvertedCount()}).
 *   <li>{@code rename}: where the key is present, its entries take the new key, and entries that
 *       had the new key go.
 * </ul>
 *
 * <p>Actions run in order, each on the result of the ones before. Patterns are Java patterns
 * searched anywhere in the key or value ({@link java.util.regex.Matcher#find()}), as Go's {@code
 * MatchString} and {@code FindStringSubmatch} do.
 */
public final class AttributeActions {
  /** The target of a {@code convert} action. */
  public enum Conversion {
    /**
     * To int: a double truncated toward zero (NaN and values out of range become the smallest
     * int64, as Go on amd64 does), a bool 1 or 0, a string in base 10 with an optional sign.
     */
    INT,
    /** To double: an int, a bool 1 or 0, a string in Go's {@code strconv.ParseFloat} syntax. */
    DOUBLE,
    /** To string: as Go's {@code pcommon.Value.AsString()} writes the value. */
    STRING
  }

  public enum Kind {
    INSERT,
    UPDATE,
    UPSERT,
    DELETE,
    HASH,
    EXTRACT,
    CONVERT,
    RENAME
  }

  /** No constant: a key, value or source that the action does not have. */
  @Internal public static final int NONE = -1;

  /**
   * One action. Byte strings are numbers into {@link #constants}: {@code key} the attribute key,
   * {@code value} an encoded AnyValue, {@code from} the source key (for {@code rename}, the new
   * key), {@code groupKeys[g - 1]} the attribute name of capture group {@code g}.
   */
  public record Action(
      Kind kind,
      int key,
      Pattern pattern,
      int value,
      int from,
      int[] groupKeys,
      Conversion conversion) {}

  @Internal public final Action[] actions;
  @Internal public final byte[][] constants;
  private final LongAdder unconverted = new LongAdder();

  private AttributeActions(Action[] actions, byte[][] constants) {
    this.actions = actions;
    this.constants = constants;
  }

  public static Builder builder() {
    return new Builder();
  }

  @Internal
  public Action[] actions() {
    return actions;
  }

  @Internal
  public byte[][] constants() {
    return constants;
  }

  public int size() {
    return actions.length;
  }

  /**
   * Values a {@code convert} action of this list could not convert and left as they were, on every
   * thread since the list was built.
   */
  public long unconvertedCount() {
    return unconverted.sum();
  }

  @Internal
  public void countUnconverted() {
    unconverted.increment();
  }

  /**
   * Whether some action picks keys by a pattern ({@code delete} or {@code hash} with one), and so
   * must be shown every attribute entry; all others look entries up by their key.
   */
  @Internal
  public boolean selectsKeysByPattern() {
    for (Action action : actions) {
      if (action.pattern() != null
          && (action.kind() == Kind.DELETE || action.kind() == Kind.HASH)) {
        return true;
      }
    }
    return false;
  }

  /** The keys the actions look entries up by: their keys, sources and extract targets. */
  @Internal
  public AttributeKeys lookedUpKeys() {
    List<Integer> ids = new ArrayList<>();
    for (Action action : actions) {
      if (action.key() != NONE) {
        ids.add(action.key());
      }
      if (action.from() != NONE) {
        ids.add(action.from());
      }
      if (action.groupKeys() != null) {
        for (int id : action.groupKeys()) {
          ids.add(id);
        }
      }
    }
    return AttributeKeys.of(constants, ids.stream().mapToInt(Integer::intValue).toArray());
  }

  /** Collects actions in the order they will run. */
  public static final class Builder {
    @Internal public final List<Action> actions = new ArrayList<>();
    @Internal public final List<byte[]> constants = new ArrayList<>();

    private Builder() {}

    public Builder insert(String key, AttributeValue value) {
      return set(Kind.INSERT, key, value, null);
    }

    public Builder update(String key, AttributeValue value) {
      return set(Kind.UPDATE, key, value, null);
    }

    public Builder upsert(String key, AttributeValue value) {
      return set(Kind.UPSERT, key, value, null);
    }

    /** Inserts the current value of {@code fromAttribute} under {@code key}. */
    public Builder insertFrom(String key, String fromAttribute) {
      return set(Kind.INSERT, key, null, fromAttribute);
    }

    public Builder updateFrom(String key, String fromAttribute) {
      return set(Kind.UPDATE, key, null, fromAttribute);
    }

    public Builder upsertFrom(String key, String fromAttribute) {
      return set(Kind.UPSERT, key, null, fromAttribute);
    }

    /** Deletes {@code key} (null for none) and every key {@code keyPattern} (may be null) finds. */
    public Builder delete(String key, Pattern keyPattern) {
      return keys(Kind.DELETE, key, keyPattern);
    }

    /** Hashes {@code key} (null for none) and every key {@code keyPattern} (may be null) finds. */
    public Builder hash(String key, Pattern keyPattern) {
      return keys(Kind.HASH, key, keyPattern);
    }

    /**
     * Extracts from the string value of {@code key}: capture group {@code g} of {@code pattern}
     * goes to the attribute named {@code groupNames.get(g - 1)}.
     */
    public Builder extract(String key, Pattern pattern, List<String> groupNames) {
      Objects.requireNonNull(pattern, "pattern");
      int groups = pattern.matcher("").groupCount();
      if (groups == 0 || groups != groupNames.size()) {
        throw new IllegalArgumentException(
            "the pattern has " + groups + " groups, names were given for " + groupNames.size());
      }
      int[] groupKeys = new int[groups];
      for (int g = 0; g < groups; g++) {
        groupKeys[g] = constant(utf8(groupNames.get(g)));
      }
      actions.add(
          new Action(Kind.EXTRACT, constant(utf8(key)), pattern, NONE, NONE, groupKeys, null));
      return this;
    }

    /** Where {@code key} is present, its entries take {@code newKey} (entries that had it go). */
    public Builder rename(String key, String newKey) {
      actions.add(
          new Action(
              Kind.RENAME, constant(utf8(key)), null, NONE, constant(utf8(newKey)), null, null));
      return this;
    }

    public Builder convert(String key, Conversion conversion) {
      Objects.requireNonNull(conversion, "conversion");
      actions.add(
          new Action(Kind.CONVERT, constant(utf8(key)), null, NONE, NONE, null, conversion));
      return this;
    }

    public AttributeActions build() {
      return new AttributeActions(actions.toArray(new Action[0]), constants.toArray(new byte[0][]));
    }

    private Builder set(Kind kind, String key, AttributeValue value, String from) {
      int valueId = value == null ? NONE : constant(value.anyValue());
      int fromId = from == null ? NONE : constant(utf8(from));
      actions.add(new Action(kind, constant(utf8(key)), null, valueId, fromId, null, null));
      return this;
    }

    private Builder keys(Kind kind, String key, Pattern keyPattern) {
      if ((key == null || key.isEmpty()) && keyPattern == null) {
        throw new IllegalArgumentException(kind + " needs a key or a pattern");
      }
      int keyId = key == null || key.isEmpty() ? NONE : constant(utf8(key));
      actions.add(new Action(kind, keyId, keyPattern, NONE, NONE, null, null));
      return this;
    }

    private int constant(byte[] bytes) {
      constants.add(bytes);
      return constants.size() - 1;
    }

    private static byte[] utf8(String text) {
      return Objects.requireNonNull(text, "key").getBytes(StandardCharsets.UTF_8);
    }
  }
}
