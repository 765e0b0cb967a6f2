package dev.sluice.ottl;

import dev.sluice.pdata.internal.MessageRewriter;
import dev.sluice.pdata.internal.MessageRewriter.Decision;
import dev.sluice.pdata.internal.MessageRewriter.Entry;
import dev.sluice.pdata.internal.ProtoWriter;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.TextView;
import dev.sluice.pdata.view.Utf8Chars;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The editors of whole maps, each an entry rule over the map's message. */
final class MapEditors {
  private MapEditors() {}

  /** Whether {@code entry}'s key is one of {@code keys}. */
  static boolean isOneOf(Entry entry, byte[][] keys) {
    for (byte[] key : keys) {
      if (entry.keyEquals(key)) {
        return true;
      }
    }
    return false;
  }

  static byte[][] utf8(List<String> keys) {
    byte[][] out = new byte[keys.size()][];
    for (int i = 0; i < out.length; i++) {
      out[i] = keys.get(i).getBytes(StandardCharsets.UTF_8);
    }
    return out;
  }

  /** {@code delete_key(map, key)}. */
  static final class DeleteKey extends MapEditor {
    private final Expr key;
    private Value current;

    DeleteKey(Target target, Expr key) {
      super(target);
      this.key = key;
    }

    @Override
    boolean prepare(EvalContext context) {
      current = key.eval(context);
      if (current.kind != Value.Kind.STRING) {
        throw new OttlEvaluationException(
            "delete_key expects a string key, got a " + current.typeName());
      }
      return true;
    }

    @Override
    public Decision decide(Entry entry, ProtoWriter out) {
      boolean match =
          Arrays.equals(
              entry.bytes(),
              entry.keyOffset(),
              entry.keyOffset() + entry.keyLength(),
              current.bytes,
              current.offset,
              current.offset + current.length);
      return match ? Decision.DROP : Decision.KEEP;
    }
  }

  /** {@code keep_keys(map, [keys])}: an empty list empties the map. */
  static final class KeepKeys extends MapEditor {
    private final byte[][] keys;

    KeepKeys(Target target, List<String> keys) {
      super(target);
      this.keys = utf8(keys);
    }

    @Override
    public Decision decide(Entry entry, ProtoWriter out) {
      return isOneOf(entry, keys) ? Decision.KEEP : Decision.DROP;
    }
  }

  /** {@code delete_matching_keys(map, regex)} and {@code keep_matching_keys(map, regex)}. */
  static final class MatchingKeys extends MapEditor {
    private final Matcher matcher;
    private final boolean keep;
    private final Utf8Chars chars = new Utf8Chars();

    MatchingKeys(Target target, Pattern pattern, boolean keep) {
      super(target);
      this.matcher = pattern.matcher("");
      this.keep = keep;
    }

    @Override
    public Decision decide(Entry entry, ProtoWriter out) {
      matcher.reset(chars.decode(entry.bytes(), entry.keyOffset(), entry.keyLength()));
      return matcher.find() == keep ? Decision.KEEP : Decision.DROP;
    }
  }

  /**
   * {@code truncate_all(map, limit)}: string values longer than {@code limit} bytes are cut to at
   * most that many, at a character boundary so that the value stays valid UTF-8.
   */
  static final class TruncateAll extends MapEditor {
    private static final int CONTINUATION_MASK = 0xC0;
    private static final int CONTINUATION = 0x80;

    private final long limit;

    TruncateAll(Target target, long limit) {
      super(target);
      this.limit = limit;
    }

    @Override
    public Decision decide(Entry entry, ProtoWriter out) {
      if (entry.valueOffset() < 0) {
        return Decision.KEEP;
      }
      long s =
          target.rewriter.stringMember(entry.bytes(), entry.valueOffset(), entry.valueLength());
      if (s < 0 || MessageRewriter.low(s) <= limit) {
        return Decision.KEEP;
      }
      int from = MessageRewriter.high(s);
      int cut = (int) limit;
      while (cut > 0 && (entry.bytes()[from + cut] & CONTINUATION_MASK) == CONTINUATION) {
        cut--;
      }
      writeStringEntry(entry, entry.bytes(), from, cut, out);
      return Decision.REPLACED;
    }
  }

  /**
   * {@code limit(map, limit, [priority keys])}: at most {@code limit} entries stay, the priority
   * keys first, then the others in their order.
   */
  static final class Limit extends MapEditor {
    private final long limit;
    private final byte[][] priority;
    private final AttributeCursor entries = new AttributeCursor();
    private boolean over;
    private long kept;

    Limit(Target target, long limit, List<String> priority) {
      super(target);
      this.limit = limit;
      this.priority = utf8(priority);
    }

    @Override
    void beforeEntries(byte[] message, int offset, int length) {
      dev.sluice.pdata.internal.RawMessages.entries(
          entries, message, offset, offset + length, field);
      long count = 0;
      long priorityPresent = 0;
      while (entries.next()) {
        count++;
        for (byte[] key : priority) {
          if (entries.key().contentEquals(key)) {
            priorityPresent++;
            break;
          }
        }
      }
      over = count > limit;
      kept = priorityPresent;
    }

    @Override
    public Decision decide(Entry entry, ProtoWriter out) {
      if (!over || isOneOf(entry, priority)) {
        return Decision.KEEP;
      }
      if (kept < limit) {
        kept++;
        return Decision.KEEP;
      }
      return Decision.DROP;
    }
  }

  /**
   * {@code replace_all_patterns(map, "value" | "key", regex, replacement)}: every match in each
   * string value, or in each key, is replaced.
   */
  static final class ReplaceAllPatterns extends MapEditor {
    private final boolean keys;
    private final Matcher matcher;
    private final Replacement replacement;
    private final Utf8Chars chars = new Utf8Chars();
    // The item being edited, for the replacement's function.
    private EvalContext context;

    ReplaceAllPatterns(Target target, boolean keys, Pattern pattern, Replacement replacement) {
      super(target);
      this.keys = keys;
      this.matcher = pattern.matcher("");
      this.replacement = replacement;
    }

    @Override
    boolean prepare(EvalContext context) {
      this.context = context;
      return true;
    }

    @Override
    public Decision decide(Entry entry, ProtoWriter out) {
      if (keys) {
        matcher.reset(chars.decode(entry.bytes(), entry.keyOffset(), entry.keyLength()));
        if (!matcher.find()) {
          return Decision.KEEP;
        }
        byte[] key = replacement.replaceAll(matcher, context).getBytes(StandardCharsets.UTF_8);
        writeRenamed(entry, key, key.length, out);
        return Decision.REPLACED;
      }
      if (entry.valueOffset() < 0) {
        return Decision.KEEP;
      }
      long s =
          target.rewriter.stringMember(entry.bytes(), entry.valueOffset(), entry.valueLength());
      if (s < 0) {
        return Decision.KEEP;
      }
      matcher.reset(chars.decode(entry.bytes(), MessageRewriter.high(s), MessageRewriter.low(s)));
      if (!matcher.find()) {
        return Decision.KEEP;
      }
      byte[] text = replacement.replaceAll(matcher, context).getBytes(StandardCharsets.UTF_8);
      writeStringEntry(entry, text, 0, text.length, out);
      return Decision.REPLACED;
    }
  }

  /** {@code merge_maps(target, source, "insert" | "update" | "upsert")}. */
  static final class MergeMaps extends MapEditor {
    enum Strategy {
      INSERT,
      UPDATE,
      UPSERT
    }

    private final Expr source;
    private final Strategy strategy;
    private final AttributeCursor existing = new AttributeCursor();
    private AttributeCursor entries;
    private byte[] message;
    private int offset;
    private int length;

    MergeMaps(Target target, Expr source, Strategy strategy) {
      super(target);
      this.source = source;
      this.strategy = strategy;
    }

    @Override
    boolean prepare(EvalContext context) {
      Value v = source.eval(context);
      if (v.kind == Value.Kind.NIL) {
        return false;
      }
      if (v.kind != Value.Kind.MAP) {
        throw new OttlEvaluationException("merge_maps expects a map source, got a " + v.typeName());
      }
      entries = v.map;
      return true;
    }

    @Override
    void beforeEntries(byte[] message, int offset, int length) {
      this.message = message;
      this.offset = offset;
      this.length = length;
    }

    @Override
    public Decision decide(Entry entry, ProtoWriter out) {
      if (strategy == Strategy.INSERT
          || !find(entries, entry.bytes(), entry.keyOffset(), entry.keyLength())) {
        return Decision.KEEP;
      }
      target.values.writeEntry(
          field, entry.bytes(), entry.keyOffset(), entry.keyLength(), entries.value(), out);
      return Decision.REPLACED;
    }

    @Override
    public void finish(ProtoWriter out) {
      if (strategy != Strategy.UPDATE) {
        dev.sluice.pdata.internal.RawMessages.entries(
            existing, message, offset, offset + length, field);
        entries.reset();
        while (entries.next()) {
          TextView key = entries.key();
          byte[] copied = target.values.copy(key);
          if (!find(existing, copied, 0, key.length())) {
            target.values.writeEntry(field, copied, 0, key.length(), entries.value(), out);
          }
        }
      }
      entries = null;
      message = null;
    }

    /** Moves {@code cursor} to the entry with the key; false when it has none. */
    private static boolean find(AttributeCursor cursor, byte[] key, int from, int count) {
      cursor.reset();
      while (cursor.next()) {
        if (cursor.key().contentEquals(key, from, count)) {
          return true;
        }
      }
      return false;
    }
  }
}
