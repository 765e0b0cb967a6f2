package dev.sluice.ottl;

import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.otlp.OtlpFields.AnyValue;
import dev.sluice.pdata.otlp.OtlpFields.KeyValue;
import dev.sluice.pdata.wire.ProtoWriter;
import dev.sluice.pdata.wire.WireReader;
import dev.sluice.pdata.wire.WireType;
import java.util.Arrays;

/**
 * Re-encodes a message with one field changed, or with some entries of a repeated {@code KeyValue}
 * field kept, dropped or replaced: every other field is copied as bytes, in its place, unknown
 * fields included. Reuses its readers; not thread-safe.
 */
final class MessageEdits {
  /** Items were validated at the edge; groups in unknown fields nest no deeper. */
  private static final int MAX_GROUP_DEPTH = 100;

  private static final int KEY_TAG = WireType.tag(KeyValue.KEY, WireType.LEN);
  private static final int VALUE_TAG = WireType.tag(KeyValue.VALUE, WireType.LEN);

  /** What an {@link EntryRule} does with one entry. */
  enum Decision {
    KEEP,
    DROP,
    /** The rule wrote the entry's replacement, a whole field, into the output. */
    REPLACED
  }

  /** Decides each entry of a repeated {@code KeyValue} field, then may append entries. */
  interface EntryRule {
    Decision decide(Entry entry, ProtoWriter out);

    /** After the last field of the message: entries to add. */
    default void finish(ProtoWriter out) {}
  }

  /** The entry being decided: its key and value within {@code bytes}. */
  static final class Entry {
    byte[] bytes;
    int field;
    int keyOffset;
    int keyLength;

    /** The {@code AnyValue} payload; {@code valueOffset} is -1 when the entry has no value. */
    int valueOffset;

    int valueLength;

    boolean keyEquals(byte[] key) {
      return Arrays.equals(bytes, keyOffset, keyOffset + keyLength, key, 0, key.length);
    }
  }

  private final WireReader reader = new WireReader();
  private final WireReader entryReader = new WireReader();
  private final Entry entry = new Entry();

  /**
   * Writes {@code message} with every {@code field} occurrence replaced by {@code replacement[0,
   * replacementLength)} (a whole encoded field, or nothing), written where the first occurrence
   * was, or at the end.
   */
  void replaceField(
      byte[] message,
      int offset,
      int length,
      int field,
      byte[] replacement,
      int replacementLength,
      ProtoWriter out) {
    boolean written = false;
    try {
      reader.wrap(message, offset, length);
      int copyFrom = offset;
      while (reader.hasRemaining()) {
        int fieldStart = reader.position();
        int tag = reader.readTag();
        reader.skipValue(tag, MAX_GROUP_DEPTH);
        if ((tag >>> 3) != field) {
          continue;
        }
        out.writeBytes(message, copyFrom, fieldStart - copyFrom);
        copyFrom = reader.position();
        if (!written) {
          out.writeBytes(replacement, 0, replacementLength);
          written = true;
        }
      }
      out.writeBytes(message, copyFrom, offset + length - copyFrom);
    } catch (MalformedOtlpException e) {
      throw new IllegalStateException("a validated message does not parse", e);
    }
    if (!written) {
      out.writeBytes(replacement, 0, replacementLength);
    }
  }

  /**
   * Finds the last length-delimited {@code field} of {@code message}: its payload's offset in the
   * high half and length in the low half of the result, or -1 when absent.
   */
  long findMessage(byte[] message, int offset, int length, int field) {
    long found = -1;
    try {
      reader.wrap(message, offset, length);
      int tagWanted = WireType.tag(field, WireType.LEN);
      while (reader.hasRemaining()) {
        int tag = reader.readTag();
        if (tag == tagWanted) {
          int size = reader.readLength();
          found = ((long) reader.position() << 32) | size;
          reader.position(reader.position() + size);
        } else {
          reader.skipValue(tag, MAX_GROUP_DEPTH);
        }
      }
    } catch (MalformedOtlpException e) {
      throw new IllegalStateException("a validated message does not parse", e);
    }
    return found;
  }

  /** What {@link #findEntryValue} gives for a key that no entry has. */
  static final long NO_ENTRY = -2;

  /**
   * The value of the first {@code field} entry of {@code message} with {@code key}: its {@code
   * AnyValue} payload's offset in the high half and length in the low half, -1 when the entry has
   * no value, {@link #NO_ENTRY} when no entry has the key.
   */
  long findEntryValue(byte[] message, int offset, int length, int field, byte[] key) {
    int entryTag = WireType.tag(field, WireType.LEN);
    entry.bytes = message;
    try {
      reader.wrap(message, offset, length);
      while (reader.hasRemaining()) {
        int tag = reader.readTag();
        if (tag != entryTag) {
          reader.skipValue(tag, MAX_GROUP_DEPTH);
          continue;
        }
        int entryLength = reader.readLength();
        int entryStart = reader.position();
        reader.position(entryStart + entryLength);
        parseEntry(message, entryStart, entryLength);
        if (entry.keyEquals(key)) {
          return entry.valueOffset < 0 ? -1 : ((long) entry.valueOffset << 32) | entry.valueLength;
        }
      }
    } catch (MalformedOtlpException e) {
      throw new IllegalStateException("a validated message does not parse", e);
    } finally {
      entry.bytes = null;
    }
    return NO_ENTRY;
  }

  /** Applies {@code rule} to each {@code field} entry of {@code message}, into {@code out}. */
  void editEntries(
      byte[] message, int offset, int length, int field, EntryRule rule, ProtoWriter out) {
    int entryTag = WireType.tag(field, WireType.LEN);
    entry.bytes = message;
    entry.field = field;
    try {
      reader.wrap(message, offset, length);
      int copyFrom = offset;
      while (reader.hasRemaining()) {
        int fieldStart = reader.position();
        int tag = reader.readTag();
        if (tag != entryTag) {
          reader.skipValue(tag, MAX_GROUP_DEPTH);
          continue;
        }
        int entryLength = reader.readLength();
        int entryStart = reader.position();
        reader.position(entryStart + entryLength);
        parseEntry(message, entryStart, entryLength);
        out.writeBytes(message, copyFrom, fieldStart - copyFrom);
        copyFrom = fieldStart;
        Decision decision = rule.decide(entry, out);
        if (decision != Decision.KEEP) {
          copyFrom = reader.position();
        }
      }
      out.writeBytes(message, copyFrom, offset + length - copyFrom);
    } catch (MalformedOtlpException e) {
      throw new IllegalStateException("a validated message does not parse", e);
    } finally {
      entry.bytes = null;
    }
    rule.finish(out);
  }

  private void parseEntry(byte[] bytes, int start, int length) throws MalformedOtlpException {
    entry.keyOffset = start;
    entry.keyLength = 0;
    entry.valueOffset = -1;
    entry.valueLength = 0;
    entryReader.wrap(bytes, start, length);
    while (entryReader.hasRemaining()) {
      int tag = entryReader.readTag();
      if (tag == KEY_TAG) {
        entry.keyLength = entryReader.readLength();
        entry.keyOffset = entryReader.position();
        entryReader.position(entry.keyOffset + entry.keyLength);
      } else if (tag == VALUE_TAG) {
        entry.valueLength = entryReader.readLength();
        entry.valueOffset = entryReader.position();
        entryReader.position(entry.valueOffset + entry.valueLength);
      } else {
        entryReader.skipValue(tag, MAX_GROUP_DEPTH);
      }
    }
  }

  /**
   * The string member of the {@code AnyValue} payload at {@code [offset, offset + length)}: its
   * offset in the high half and length in the low half, or -1 when the value is not a string.
   */
  long stringMember(byte[] bytes, int offset, int length) {
    long found = -1;
    try {
      entryReader.wrap(bytes, offset, length);
      while (entryReader.hasRemaining()) {
        int tag = entryReader.readTag();
        int member = tag >>> 3;
        if (tag == WireType.tag(AnyValue.STRING_VALUE, WireType.LEN)) {
          int size = entryReader.readLength();
          found = ((long) entryReader.position() << 32) | size;
          entryReader.position(entryReader.position() + size);
        } else {
          entryReader.skipValue(tag, MAX_GROUP_DEPTH);
          if (member >= AnyValue.BOOL_VALUE && member <= AnyValue.BYTES_VALUE) {
            found = -1; // the last member on the wire wins
          }
        }
      }
    } catch (MalformedOtlpException e) {
      throw new IllegalStateException("a validated value does not parse", e);
    }
    return found;
  }

  static int high(long packed) {
    return (int) (packed >>> 32);
  }

  static int low(long packed) {
    return (int) packed;
  }
}
