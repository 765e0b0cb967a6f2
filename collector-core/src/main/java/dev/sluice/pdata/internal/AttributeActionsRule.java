package dev.sluice.pdata.internal;

import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.edit.AttributeActions;
import dev.sluice.pdata.edit.AttributeActions.Action;
import dev.sluice.pdata.internal.MessageRewriter.Decision;
import dev.sluice.pdata.internal.MessageRewriter.Entry;
import dev.sluice.pdata.internal.OtlpFields.AnyValue;
import dev.sluice.pdata.view.Utf8Chars;
import dev.sluice.pdata.view.ValueType;
import java.nio.charset.StandardCharsets;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.regex.Matcher;

/**
 * {@link AttributeActions} as the {@link MessageRewriter}'s rule for an attributes field: the part
 * of the one rewrite engine that the typed editors' {@code apply(AttributeActions)} run. Actions
 * run in order, each on the result of those before, so the entries are planned before the
 * rewriter's pass: {@link #plan} reads the attribute list once into a table of entries pointing
 * into the message (only the entries whose keys the actions name, unless a pattern picks keys),
 * runs every action on the table, and then the rewriter's pass asks the rule about each entry
 * ({@link #decide}: kept as bytes, dropped, or written anew) and appends the new ones ({@link
 * #finish}). Entries keep their order; unknown fields outside changed entries are kept. Setting an
 * entry to the value it has changes nothing, and a message nothing changes is not written at all.
 *
 * <p>Where a key appears more than once, lookups see the first live entry and {@code delete}
 * removes them all.
 *
 * <p>The fast path: lists that only set keys to constants and delete keys by name, each key once
 * (what most configurations are), are planned by {@link ConstantActionsPass} when nothing else
 * changes the message: one pass over it, no table, and the new message written straight into the
 * item's replacement ({@link #writeOnePass}). {@code AttributeActionsPropertyTest} holds that it
 * writes what the general path writes through the rewriter.
 *
 * <p>Messages were validated at the edge: one that does not parse is a programming error ({@link
 * IllegalStateException}), as everywhere in the rewrite engine.
 *
 * <p>One rule per {@link AttributeActions} and thread (the item's edit state keeps it): it keeps
 * scratch buffers, a {@link MessageDigest} and a {@link Matcher} per pattern, so applying the
 * actions allocates nothing once they have grown, except converting a double to or from a string,
 * or an array or map to a string.
 */
public final class AttributeActionsRule implements MessageRewriter.EntryRule {
  /** {@link #plan}: the actions leave the message as it is. */
  static final int UNCHANGED = -1;

  /** {@link #plan}: the rewriter writes the message, with this rule for the attributes field. */
  static final int THROUGH_REWRITER = -2;

  private static final int SHA256_BYTES = 32;
  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
  private static final int INITIAL_TEXT_BYTES = 128;

  private final AttributeActions list;
  private final Action[] actions;
  private final Matcher[] matchers;
  private final AttributeActionsTable table;
  // The one-pass path for lists of constant sets and deletes on distinct keys, or null.
  private final ConstantActionsPass onePass;
  // The keys the table is loaded with, or null for every entry.
  private final AttributeKeys tableKeys;
  private final MessageDigest sha256;
  private final byte[] digest = new byte[SHA256_BYTES];
  private final byte[] number = new byte[Long.BYTES];
  private byte[] text = new byte[INITIAL_TEXT_BYTES];
  private final long[] parsedInt = new long[1];
  private final double[] parsedDouble = new double[1];
  private final Utf8Chars keyChars = new Utf8Chars();
  private final Utf8Chars valueChars = new Utf8Chars();
  private final WireReader valueReader = new WireReader();
  private final AnyValueMember member = new AnyValueMember();

  public AttributeActionsRule(AttributeActions actions) {
    this(actions, !actions.selectsKeysByPattern(), true);
  }

  /**
   * With {@code byKey}, the table holds only the entries whose keys the actions name: every other
   * entry is copied as bytes, which is all an action that looks entries up by key does with them.
   * Without it, every entry. {@code fastPaths}: the one pass, and see {@link
   * AttributeActionsTable}. Both off is the general path that the property test compares the fast
   * ones with.
   */
  public AttributeActionsRule(AttributeActions actions, boolean byKey, boolean fastPaths) {
    this.list = actions;
    this.tableKeys = byKey ? actions.lookedUpKeys() : null;
    this.actions = actions.actions();
    this.table = new AttributeActionsTable(actions.constants(), fastPaths);
    this.onePass = fastPaths ? ConstantActionsPass.of(actions) : null;
    this.matchers = new Matcher[this.actions.length];
    for (int i = 0; i < this.actions.length; i++) {
      if (this.actions[i].pattern() != null) {
        matchers[i] = this.actions[i].pattern().matcher("");
      }
    }
    try {
      sha256 = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  /** The list this rule applies. */
  AttributeActions actions() {
    return list;
  }

  /**
   * Plans the actions on the entries of field {@code attributesField} of {@code message[offset,
   * offset + length)}. Returns {@link #UNCHANGED}; or {@link #THROUGH_REWRITER}, when the rewriter
   * is to write the message with this rule for the field; or, only with {@code onePassAllowed}
   * (nothing else changes the message), the length of the new message that {@link #writeOnePass}
   * writes. Either way, {@link #release} lets go of the message after the write. {@code
   * commonSpan}: see {@link BatchItem#commonSpan}.
   *
   * @throws IllegalStateException when the message does not parse
   */
  int plan(
      byte[] message,
      int offset,
      int length,
      int attributesField,
      boolean commonSpan,
      boolean onePassAllowed) {
    if (onePass != null && onePassAllowed) {
      int planned = onePass.plan(message, offset, length, attributesField, commonSpan);
      if (planned == ConstantActionsPass.UNCHANGED) {
        return UNCHANGED;
      }
      if (planned >= 0) {
        return planned;
      }
    }
    try {
      table.load(message, offset, length, attributesField, tableKeys);
      for (int a = 0; a < actions.length; a++) {
        apply(actions[a], matchers[a]);
      }
    } catch (MalformedOtlpException e) {
      table.release();
      throw new IllegalStateException("a validated message does not parse", e);
    }
    if (!table.changed()) {
      table.release();
      return UNCHANGED;
    }
    return THROUGH_REWRITER;
  }

  /** Writes the message the one pass planned into {@code into} from {@code at}. */
  public void writeOnePass(byte[] into, int at) {
    onePass.write(into, at);
  }

  /** Lets go of the planned message, so that no request stays reachable through the rule. */
  void release() {
    table.release();
    if (onePass != null) {
      onePass.release();
    }
  }

  @Override
  public Decision decide(Entry entry, ProtoWriter out) {
    return table.decide(entry, out);
  }

  @Override
  public void finish(ProtoWriter out) {
    table.finish(out);
  }

  /**
   * Applies the actions to the attributes of {@code message} as a whole: its new bytes go into
   * {@code out} (reset first) when the actions changed it; returns whether they did.
   */
  boolean rewrite(
      byte[] message,
      int offset,
      int length,
      int attributesField,
      MessageRewriter rewriter,
      ProtoWriter out) {
    int planned = plan(message, offset, length, attributesField, false, true);
    if (planned == UNCHANGED) {
      return false;
    }
    try {
      out.reset();
      if (planned == THROUGH_REWRITER) {
        rewriter.editEntries(message, offset, length, attributesField, this, out);
      } else {
        out.ensureRemaining(planned);
        writeOnePass(out.array(), 0);
        out.advance(planned);
      }
    } finally {
      release();
    }
    return true;
  }

  private void apply(Action action, Matcher matcher) throws MalformedOtlpException {
    switch (action.kind()) {
      case INSERT, UPDATE, UPSERT -> set(action);
      case DELETE -> {
        for (int i = 0; i < table.count(); i++) {
          if (selected(i, action, matcher)) {
            table.delete(i);
          }
        }
      }
      case HASH -> {
        for (int i = 0; i < table.count(); i++) {
          if (selected(i, action, matcher)) {
            hash(i);
          }
        }
      }
      case EXTRACT -> extract(action, matcher);
      case CONVERT -> {
        int i = table.find(action.key());
        if (i >= 0) {
          convert(i, action.conversion());
        }
      }
      case RENAME -> rename(action.key(), action.from());
    }
  }

  /** Entries with key {@code from} take key {@code to}, and entries that had it go. */
  private void rename(int from, int to) {
    if (table.find(from) < 0 || Arrays.equals(constant(from), constant(to))) {
      return;
    }
    for (int i = 0; i < table.count(); i++) {
      if (table.live(i) && table.keyEquals(i, to)) {
        table.delete(i);
      }
    }
    for (int i = 0; i < table.count(); i++) {
      if (table.live(i) && table.keyEquals(i, from)) {
        table.setKey(i, to);
      }
    }
  }

  private byte[] constant(int id) {
    return list.constants()[id];
  }

  private void set(Action action) {
    int source = AttributeActions.NONE;
    if (action.from() != AttributeActions.NONE) {
      source = table.find(action.from());
      if (source < 0) {
        return;
      }
    }
    int target = table.find(action.key());
    boolean present = target >= 0;
    switch (action.kind()) {
      case INSERT -> {
        if (present) {
          return;
        }
      }
      case UPDATE -> {
        if (!present) {
          return;
        }
      }
      default -> {}
    }
    if (source == target && present) {
      return;
    }
    if (!present) {
      target = table.add(action.key());
    }
    if (source >= 0) {
      table.copyValue(source, target);
    } else {
      table.setConstantValue(target, action.value());
    }
  }

  /** Whether entry {@code i} is live and has the action's key or a key its pattern finds. */
  private boolean selected(int i, Action action, Matcher matcher) {
    if (!table.live(i)) {
      return false;
    }
    if (action.key() != AttributeActions.NONE && table.keyEquals(i, action.key())) {
      return true;
    }
    if (matcher == null) {
      return false;
    }
    keyChars.decode(table.keyBytes(i), table.keyOffset(i), table.keyLength(i));
    return matcher.reset(keyChars).find();
  }

  private void readValue(int i) throws MalformedOtlpException {
    member.read(valueReader, table.valueBytes(i), table.valueOffset(i), table.valueLength(i));
  }

  private void hash(int i) throws MalformedOtlpException {
    readValue(i);
    byte[] bytes = table.valueBytes(i);
    switch (member.type) {
      case STRING -> sha256.update(bytes, member.start, member.length);
      case BOOL -> sha256.update((byte) (member.bits != 0 ? 1 : 0));
      case INT, DOUBLE -> {
        for (int b = 0; b < Long.BYTES; b++) {
          number[b] = (byte) (member.bits >>> (8 * b));
        }
        sha256.update(number, 0, Long.BYTES);
      }
      default -> {
        table.setString(i, text, 0, 0);
        return;
      }
    }
    try {
      sha256.digest(digest, 0, SHA256_BYTES);
    } catch (DigestException e) {
      throw new IllegalStateException("a 32-byte buffer holds a SHA-256 digest", e);
    }
    byte[] hex = text(2 * SHA256_BYTES);
    for (int b = 0; b < SHA256_BYTES; b++) {
      hex[2 * b] = HEX[(digest[b] >>> 4) & 0xF];
      hex[2 * b + 1] = HEX[digest[b] & 0xF];
    }
    table.setString(i, hex, 0, 2 * SHA256_BYTES);
  }

  /** The text scratch buffer, with room for {@code bytes}. */
  private byte[] text(int bytes) {
    if (text.length < bytes) {
      text = new byte[Math.max(bytes, text.length * 2)];
    }
    return text;
  }

  private void extract(Action action, Matcher matcher) throws MalformedOtlpException {
    int i = table.find(action.key());
    if (i < 0) {
      return;
    }
    readValue(i);
    if (member.type != ValueType.STRING) {
      return;
    }
    int buffer = table.valueBuffer(i);
    int stringStart = member.start;
    valueChars.decode(table.valueBytes(i), stringStart, member.length);
    if (!matcher.reset(valueChars).find()) {
      return;
    }
    int[] groupKeys = action.groupKeys();
    for (int g = 1; g <= groupKeys.length; g++) {
      int from = matcher.start(g);
      int to = matcher.end(g);
      int byteFrom = from < 0 ? 0 : stringStart + valueChars.byteOffset(from);
      int byteLength = from < 0 ? 0 : valueChars.byteOffset(to) - valueChars.byteOffset(from);
      int target = table.find(groupKeys[g - 1]);
      if (target < 0) {
        target = table.add(groupKeys[g - 1]);
      }
      table.setStringFrom(target, buffer, byteFrom, byteLength);
    }
  }

  private void convert(int i, AttributeActions.Conversion to) throws MalformedOtlpException {
    readValue(i);
    byte[] bytes = table.valueBytes(i);
    ValueType type = member.type;
    switch (to) {
      case INT -> {
        switch (type) {
          case DOUBLE ->
              table.setVarint(i, AnyValue.INT_VALUE, ValueFormats.goInt64(member.asDouble()));
          case BOOL -> table.setVarint(i, AnyValue.INT_VALUE, member.bits != 0 ? 1 : 0);
          case STRING -> {
            if (ValueFormats.parseGoInt(bytes, member.start, member.length, parsedInt)) {
              table.setVarint(i, AnyValue.INT_VALUE, parsedInt[0]);
            } else {
              list.countUnconverted();
            }
          }
          case INT -> {}
          default -> list.countUnconverted();
        }
      }
      case DOUBLE -> {
        switch (type) {
          case INT -> table.setDouble(i, (double) member.bits);
          case BOOL -> table.setDouble(i, member.bits != 0 ? 1 : 0);
          case STRING -> {
            if (ValueFormats.parseGoDouble(bytes, member.start, member.length, parsedDouble)) {
              table.setDouble(i, parsedDouble[0]);
            } else {
              list.countUnconverted();
            }
          }
          case DOUBLE -> {}
          default -> list.countUnconverted();
        }
      }
      case STRING -> toText(i, type, bytes);
    }
  }

  private void toText(int i, ValueType type, byte[] bytes) {
    switch (type) {
      case STRING -> {}
      case BOOL -> {
        byte[] word = member.bits != 0 ? AttributeActionsTable.TRUE : AttributeActionsTable.FALSE;
        table.setString(i, word, 0, word.length);
      }
      case INT -> {
        byte[] digits = text(ValueFormats.decimalMaxBytes());
        table.setString(i, digits, 0, ValueFormats.decimal(member.bits, digits, 0));
      }
      case DOUBLE -> setText(i, ValueFormats.goDouble(member.asDouble()));
      case BYTES -> {
        byte[] encoded = text(ValueFormats.base64Length(member.length));
        int length = ValueFormats.base64(bytes, member.start, member.length, encoded, 0);
        table.setString(i, encoded, 0, length);
      }
      case ARRAY, KVLIST ->
          setText(i, ValueFormats.json(bytes, table.valueOffset(i), table.valueLength(i)));
      default -> table.setString(i, text, 0, 0);
    }
  }

  private void setText(int i, String value) {
    byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
    table.setString(i, utf8, 0, utf8.length);
  }

  /** The member an AnyValue has set (the last on the wire), read in place. */
  static final class AnyValueMember {
    ValueType type;
    int start;
    int length;
    long bits;

    void read(WireReader reader, byte[] bytes, int offset, int valueLength)
        throws MalformedOtlpException {
      type = ValueType.EMPTY;
      reader.wrap(bytes, offset, valueLength);
      while (reader.hasRemaining()) {
        int tag = reader.readTag();
        int field = tag >>> 3;
        int wire = tag & 7;
        if (field == AnyValue.STRING_VALUE && wire == WireType.LEN) {
          lengthDelimited(reader, ValueType.STRING);
        } else if (field == AnyValue.BYTES_VALUE && wire == WireType.LEN) {
          lengthDelimited(reader, ValueType.BYTES);
        } else if ((field == AnyValue.ARRAY_VALUE || field == AnyValue.KVLIST_VALUE)
            && wire == WireType.LEN) {
          lengthDelimited(
              reader, field == AnyValue.ARRAY_VALUE ? ValueType.ARRAY : ValueType.KVLIST);
        } else if (field == AnyValue.BOOL_VALUE && wire == WireType.VARINT) {
          type = ValueType.BOOL;
          bits = reader.readVarint64();
        } else if (field == AnyValue.INT_VALUE && wire == WireType.VARINT) {
          type = ValueType.INT;
          bits = reader.readVarint64();
        } else if (field == AnyValue.DOUBLE_VALUE && wire == WireType.I64) {
          type = ValueType.DOUBLE;
          bits = reader.readFixed64();
        } else {
          reader.skipValue(tag, 100);
        }
      }
    }

    private void lengthDelimited(WireReader reader, ValueType memberType)
        throws MalformedOtlpException {
      type = memberType;
      length = reader.readLength();
      start = reader.position();
      reader.position(start + length);
    }

    double asDouble() {
      return Double.longBitsToDouble(bits);
    }
  }
}
