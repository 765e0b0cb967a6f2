package dev.sluice.pdata.internal;

import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.internal.MessageRewriter.Decision;
import dev.sluice.pdata.internal.MessageRewriter.Entry;
import dev.sluice.pdata.internal.OtlpFields.AnyValue;
import dev.sluice.pdata.internal.OtlpFields.KeyValue;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The attribute entries of one message as a table of byte ranges, for {@link AttributeActionsRule}:
 * each entry's key and value (an encoded AnyValue) point into the message, into a constant of the
 * actions, or into the scratch buffer where changed values are written. Nothing is decoded or
 * copied until the {@link MessageRewriter} writes the message again, asking {@link #decide} about
 * each entry in turn and {@link #finish} for the added ones. Reused from message to message.
 */
final class AttributeActionsTable {
  static final byte[] TRUE = "true".getBytes(StandardCharsets.US_ASCII);
  static final byte[] FALSE = "false".getBytes(StandardCharsets.US_ASCII);

  // Where a range is: the message, the scratch buffer, or (0 and up) a constant of the actions.
  private static final int SOURCE = -3;
  private static final int SCRATCH = -2;

  private static final byte KEPT = 0;
  private static final byte CHANGED = 1;
  private static final byte DELETED = 2;

  private static final int KEY_TAG = WireType.tag(KeyValue.KEY, WireType.LEN);
  private static final int VALUE_TAG = WireType.tag(KeyValue.VALUE, WireType.LEN);

  /** Items were validated at the edge; groups in unknown fields nest no deeper. */
  private static final int MAX_GROUP_DEPTH = 100;

  private static final int INITIAL_ENTRIES = 16;

  private static final int WIRE_TYPE_MASK = 7;

  /** Varints read without the reader; any of this many bytes fits in 63 bits. */
  private static final int FAST_VARINT_BYTES = 9;

  /** Lengths below this take one varint byte. */
  private static final int SHORT_LENGTH_LIMIT = 0x80;

  private final byte[][] constants;
  private final boolean fastPaths;
  private final WireReader reader = new WireReader();
  private final WireReader entryReader = new WireReader();
  private final ProtoWriter scratch = new ProtoWriter(256);

  private byte[] source;
  private int messageOffset;
  private int messageLength;
  private int attributesField;
  private int count;
  // Rows read from the message come first, in the order of their fields: [0, loaded).
  private int loaded;
  // The next loaded row the rewriter's pass has not reached.
  private int nextRow;
  private boolean changed;

  // The entry load() read last.
  private int entryKeyOffset;
  private int entryKeyLength;
  private int entryValueOffset;
  private int entryValueLength;

  // One row per entry. fieldStart is -1 for an entry the actions added.
  private int[] fieldStart = new int[INITIAL_ENTRIES];
  private int[] fieldEnd = new int[INITIAL_ENTRIES];
  private int[] keyBuffer = new int[INITIAL_ENTRIES];
  private int[] keyOffset = new int[INITIAL_ENTRIES];
  private int[] keyLength = new int[INITIAL_ENTRIES];
  private int[] valueBuffer = new int[INITIAL_ENTRIES];
  private int[] valueOffset = new int[INITIAL_ENTRIES];
  private int[] valueLength = new int[INITIAL_ENTRIES];
  private byte[] state = new byte[INITIAL_ENTRIES];
  private boolean[] canonical = new boolean[INITIAL_ENTRIES];

  /**
   * With {@code fastPaths}, fields of the common shapes are read without the reader, and setting an
   * entry that is written as the rewriter would write it to the value it has already leaves it
   * kept, so that a message nothing really changes in is not written again. Without, every field
   * goes through the reader and every set counts as a change (for the tests that compare the two).
   */
  AttributeActionsTable(byte[][] constants, boolean fastPaths) {
    this.constants = constants;
    this.fastPaths = fastPaths;
  }

  /**
   * Reads the entries of field {@code attributesField} of the message: every one, or with {@code
   * only} set just those whose key is one of its keys. Entries left out are copied as bytes by the
   * rewriter like every entry no action touched, so actions that look entries up by key see the
   * same table either way.
   */
  void load(byte[] message, int offset, int length, int attributesField, AttributeKeys only)
      throws MalformedOtlpException {
    source = message;
    messageOffset = offset;
    messageLength = length;
    this.attributesField = attributesField;
    count = 0;
    changed = false;
    scratch.reset();
    int attributeTag = WireType.tag(attributesField, WireType.LEN);
    int limit = offset + length;
    int p = offset;
    while (p < limit) {
      // The shapes every message has are read without the reader; it reads (and checks) the rest.
      int next = fastPaths ? fastField(message, p, limit, attributeTag, only) : -1;
      p = next >= 0 ? next : readField(message, p, limit, attributeTag, only);
    }
    loaded = count;
    nextRow = 0;
  }

  /**
   * Reads the field at {@code p} if it is an entry with a one- or two-byte length or a {@link
   * #simpleFieldEnd simple field}; returns where it ends, or -1 (nothing read) for anything else.
   */
  private int fastField(byte[] message, int p, int limit, int attributeTag, AttributeKeys only)
      throws MalformedOtlpException {
    if (message[p] != attributeTag) {
      return simpleFieldEnd(message, p, limit);
    }
    int entryLength = shortLength(message, p + 1, limit);
    int entryStart = p + 1 + (entryLength < SHORT_LENGTH_LIMIT ? 1 : 2);
    if (entryLength < 0 || entryStart + entryLength > limit) {
      return -1;
    }
    entry(message, p, entryStart, entryStart + entryLength, only);
    return entryStart + entryLength;
  }

  /**
   * Where the field at {@code p} ends, for a tag of one or two bytes (the fewest it takes) of a
   * varint of up to nine bytes, a fixed 32 or 64 bits, or a length of one or two bytes, within
   * {@code limit}; -1 for anything else.
   */
  static int simpleFieldEnd(byte[] b, int p, int limit) {
    int tag = b[p];
    int q = p + 1;
    if (tag < 0) {
      // Field numbers 16 to 2047 (Span.flags is 16); a second byte of 0 is a padded tag.
      if (q >= limit || b[q] <= 0) {
        return -1;
      }
      tag = (tag & 0x7F) | (b[q] << 7);
      q++;
    }
    if ((tag >>> 3) == 0) {
      return -1;
    }
    switch (tag & WIRE_TYPE_MASK) {
      case WireType.VARINT -> {
        for (int end = Math.min(limit, q + FAST_VARINT_BYTES); q < end; ) {
          if (b[q++] >= 0) {
            return q;
          }
        }
        return -1;
      }
      case WireType.I64 -> {
        return q + Long.BYTES <= limit ? q + Long.BYTES : -1;
      }
      case WireType.I32 -> {
        return q + Integer.BYTES <= limit ? q + Integer.BYTES : -1;
      }
      case WireType.LEN -> {
        int fieldLength = shortLength(b, q, limit);
        int from = q + (fieldLength < SHORT_LENGTH_LIMIT ? 1 : 2);
        return fieldLength >= 0 && from + fieldLength <= limit ? from + fieldLength : -1;
      }
      default -> {
        return -1;
      }
    }
  }

  /** Reads the field at {@code p} with the reader, which refuses what is malformed. */
  private int readField(byte[] message, int p, int limit, int attributeTag, AttributeKeys only)
      throws MalformedOtlpException {
    reader.wrap(message, p, limit - p);
    int tag = reader.readTag();
    if (tag != attributeTag) {
      reader.skipValue(tag, MAX_GROUP_DEPTH);
      return reader.position();
    }
    int entryLength = reader.readLength();
    int entryStart = reader.position();
    entry(message, p, entryStart, entryStart + entryLength, only);
    return entryStart + entryLength;
  }

  /** Adds a row for the entry field at {@code [start, end)} unless {@code only} leaves it out. */
  private void entry(byte[] message, int start, int entryStart, int end, AttributeKeys only)
      throws MalformedOtlpException {
    int entryLength = end - entryStart;
    boolean common = readCommonEntry(message, entryStart, end);
    if (!common) {
      readEntry(message, entryStart, entryLength);
    }
    if (only != null && !only.contains(message, entryKeyOffset, entryKeyLength)) {
      return;
    }
    int i = newRow();
    fieldStart[i] = start;
    fieldEnd[i] = end;
    state[i] = KEPT;
    // Written again as it is read: what writeEntry would encode for it with the same value.
    canonical[i] =
        common && end - start == Varint.lengthDelimitedSize(attributesField, entryLength);
    keyBuffer[i] = SOURCE;
    keyOffset[i] = entryKeyOffset;
    keyLength[i] = entryKeyLength;
    valueBuffer[i] = SOURCE;
    valueOffset[i] = entryValueOffset;
    valueLength[i] = entryValueLength;
  }

  /** Reads an entry of any shape: its last key and value fields count, others are skipped. */
  private void readEntry(byte[] message, int entryStart, int entryLength)
      throws MalformedOtlpException {
    entryKeyOffset = 0;
    entryKeyLength = 0;
    entryValueOffset = 0;
    entryValueLength = 0;
    entryReader.wrap(message, entryStart, entryLength);
    while (entryReader.hasRemaining()) {
      int entryTag = entryReader.readTag();
      if (entryTag == KEY_TAG || entryTag == VALUE_TAG) {
        int fieldLength = entryReader.readLength();
        int fieldOffset = entryReader.position();
        entryReader.position(fieldOffset + fieldLength);
        if (entryTag == KEY_TAG) {
          entryKeyOffset = fieldOffset;
          entryKeyLength = fieldLength;
        } else {
          entryValueOffset = fieldOffset;
          entryValueLength = fieldLength;
        }
      } else {
        entryReader.skipValue(entryTag, MAX_GROUP_DEPTH);
      }
    }
  }

  /**
   * Reads the entry as every SDK writes it, without a reader: the key field, then the value field
   * ending the entry, each with a length of one or two bytes (the fewest it takes). False for any
   * other shape.
   */
  private boolean readCommonEntry(byte[] b, int start, int end) {
    int p = start;
    if (p >= end || b[p] != KEY_TAG) {
      return false;
    }
    int keyBytes = shortLength(b, p + 1, end);
    if (keyBytes < 0) {
      return false;
    }
    p += 1 + (keyBytes < SHORT_LENGTH_LIMIT ? 1 : 2);
    int keyStart = p;
    p += keyBytes;
    if (p >= end || b[p] != VALUE_TAG) {
      return false;
    }
    int valueBytes = shortLength(b, p + 1, end);
    if (valueBytes < 0) {
      return false;
    }
    int valueStart = p + 1 + (valueBytes < SHORT_LENGTH_LIMIT ? 1 : 2);
    if (valueStart + valueBytes != end) {
      return false;
    }
    entryKeyOffset = keyStart;
    entryKeyLength = keyBytes;
    entryValueOffset = valueStart;
    entryValueLength = valueBytes;
    return true;
  }

  /**
   * A varint length of one byte, or two bytes (then at least {@link #SHORT_LENGTH_LIMIT}), at
   * {@code p} before {@code end}; -1 for anything else.
   */
  static int shortLength(byte[] b, int p, int end) {
    if (p >= end) {
      return -1;
    }
    int first = b[p];
    if (first >= 0) {
      return first;
    }
    // A second byte of 0 is a padded one-byte length: left to the reader.
    if (p + 1 >= end || b[p + 1] <= 0) {
      return -1;
    }
    return (first & 0x7F) | (b[p + 1] << 7);
  }

  boolean changed() {
    return changed;
  }

  int count() {
    return count;
  }

  boolean live(int i) {
    return state[i] != DELETED;
  }

  /** The first live entry with the constant key {@code key}, or -1. */
  int find(int key) {
    for (int i = 0; i < count; i++) {
      if (state[i] != DELETED && keyEquals(i, key)) {
        return i;
      }
    }
    return -1;
  }

  boolean keyEquals(int i, int key) {
    byte[] k = constants[key];
    int from = keyOffset[i];
    return Arrays.equals(bytes(keyBuffer[i]), from, from + keyLength[i], k, 0, k.length);
  }

  byte[] keyBytes(int i) {
    return bytes(keyBuffer[i]);
  }

  int keyOffset(int i) {
    return keyOffset[i];
  }

  int keyLength(int i) {
    return keyLength[i];
  }

  /** The array holding entry {@code i}'s AnyValue (valid until the next value is written). */
  byte[] valueBytes(int i) {
    return bytes(valueBuffer[i]);
  }

  int valueBuffer(int i) {
    return valueBuffer[i];
  }

  int valueOffset(int i) {
    return valueOffset[i];
  }

  int valueLength(int i) {
    return valueLength[i];
  }

  /** Appends an entry with the constant key {@code key} and an empty value; returns its row. */
  int add(int key) {
    int i = newRow();
    fieldStart[i] = -1;
    fieldEnd[i] = -1;
    canonical[i] = false;
    keyBuffer[i] = key;
    keyOffset[i] = 0;
    keyLength[i] = constants[key].length;
    point(i, SOURCE, 0, 0);
    return i;
  }

  void delete(int i) {
    if (state[i] != DELETED) {
      state[i] = DELETED;
      changed = true;
    }
  }

  /** Gives entry {@code i} the constant key {@code key}. */
  void setKey(int i, int key) {
    keyBuffer[i] = key;
    keyOffset[i] = 0;
    keyLength[i] = constants[key].length;
    state[i] = CHANGED;
    changed = true;
  }

  void copyValue(int from, int to) {
    point(to, valueBuffer[from], valueOffset[from], valueLength[from]);
  }

  void setConstantValue(int i, int constant) {
    point(i, constant, 0, constants[constant].length);
  }

  /** Sets a string value of {@code text[offset, offset + length)}. */
  void setString(int i, byte[] text, int offset, int length) {
    scratch.ensureRemaining(length + 2 * Integer.BYTES);
    int start = scratch.size();
    scratch.writeLengthDelimitedHeader(AnyValue.STRING_VALUE, length);
    scratch.writeBytes(text, offset, length);
    point(i, SCRATCH, start, scratch.size() - start);
  }

  /** Sets a string value of bytes at {@code [offset, offset + length)} of range {@code buffer}. */
  void setStringFrom(int i, int buffer, int offset, int length) {
    // Room first: growing the scratch buffer moves it, and the text may be in it.
    scratch.ensureRemaining(length + 2 * Integer.BYTES);
    setString(i, bytes(buffer), offset, length);
  }

  void setVarint(int i, int field, long value) {
    int start = scratch.size();
    scratch.writeTag(field, WireType.VARINT);
    scratch.writeVarint64(value);
    point(i, SCRATCH, start, scratch.size() - start);
  }

  void setDouble(int i, double value) {
    int start = scratch.size();
    scratch.writeTag(AnyValue.DOUBLE_VALUE, WireType.I64);
    scratch.writeFixed64(Double.doubleToRawLongBits(value));
    point(i, SCRATCH, start, scratch.size() - start);
  }

  /**
   * What the rewriter does with the entry field it is at: kept as it is, dropped, or written anew
   * from its row. The rewriter meets the fields in the order {@link #load} read them.
   */
  Decision decide(Entry entry, ProtoWriter out) {
    int at = entry.fieldStart;
    while (nextRow < loaded && fieldStart[nextRow] < at) {
      nextRow++;
    }
    if (nextRow == loaded || fieldStart[nextRow] != at) {
      return Decision.KEEP; // an entry no action looked at
    }
    int i = nextRow++;
    return switch (state[i]) {
      case KEPT -> Decision.KEEP;
      case DELETED -> Decision.DROP;
      default -> {
        writeEntry(i, out);
        yield Decision.REPLACED;
      }
    };
  }

  /** Writes the entries the actions added, after the message's fields. */
  void finish(ProtoWriter out) {
    for (int i = loaded; i < count; i++) {
      if (state[i] != DELETED) {
        writeEntry(i, out);
      }
    }
  }

  /** Lets go of the last message, so that no request stays reachable through the table. */
  void release() {
    source = MessageView.NO_BYTES;
  }

  private void writeEntry(int i, ProtoWriter output) {
    int keyBytes = keyLength[i];
    int valueBytes = valueLength[i];
    int entryBytes =
        Varint.lengthDelimitedSize(KeyValue.KEY, keyBytes)
            + Varint.lengthDelimitedSize(KeyValue.VALUE, valueBytes);
    output.writeLengthDelimitedHeader(attributesField, entryBytes);
    output.writeLengthDelimitedHeader(KeyValue.KEY, keyBytes);
    output.writeBytes(bytes(keyBuffer[i]), keyOffset[i], keyBytes);
    output.writeLengthDelimitedHeader(KeyValue.VALUE, valueBytes);
    output.writeBytes(bytes(valueBuffer[i]), valueOffset[i], valueBytes);
  }

  private void point(int i, int buffer, int offset, int length) {
    if (fastPaths
        && state[i] == KEPT
        && canonical[i]
        && sameAsSource(i, bytes(buffer), offset, length)) {
      // Setting the value it has: the entry would be written again as the same bytes.
      return;
    }
    valueBuffer[i] = buffer;
    valueOffset[i] = offset;
    valueLength[i] = length;
    state[i] = CHANGED;
    changed = true;
  }

  private boolean sameAsSource(int i, byte[] value, int offset, int length) {
    int from = valueOffset[i];
    return length == valueLength[i]
        && Arrays.equals(source, from, from + length, value, offset, offset + length);
  }

  private byte[] bytes(int buffer) {
    return switch (buffer) {
      case SOURCE -> source;
      case SCRATCH -> scratch.array();
      default -> constants[buffer];
    };
  }

  private int newRow() {
    if (count == state.length) {
      int grown = count * 2;
      fieldStart = Arrays.copyOf(fieldStart, grown);
      fieldEnd = Arrays.copyOf(fieldEnd, grown);
      keyBuffer = Arrays.copyOf(keyBuffer, grown);
      keyOffset = Arrays.copyOf(keyOffset, grown);
      keyLength = Arrays.copyOf(keyLength, grown);
      valueBuffer = Arrays.copyOf(valueBuffer, grown);
      valueOffset = Arrays.copyOf(valueOffset, grown);
      valueLength = Arrays.copyOf(valueLength, grown);
      state = Arrays.copyOf(state, grown);
      canonical = Arrays.copyOf(canonical, grown);
    }
    return count++;
  }
}
