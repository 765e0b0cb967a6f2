package dev.sluice.pdata.internal;

import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.internal.OtlpFields.AnyValue;
import dev.sluice.pdata.internal.OtlpFields.KeyValue;
import java.util.Arrays;

/**
 * The one field-level rewrite engine: re-encodes a message with several of its fields changed, in
 * one pass over it. Every field the plan does not name is copied as bytes, in its place, unknown
 * fields included. What the plan may say, per field number:
 *
 * <ul>
 *   <li>{@link #set}: every occurrence of the field goes, and the given encoded field (tag first;
 *       empty clears the field) is written before the message's first field numbered the same or
 *       higher (where the first occurrence was, in a message written in field order, as protobuf
 *       writes it), or after the message's own fields when it has none;
 *   <li>{@link #editEntries}: each entry of a repeated {@code KeyValue} field is kept, dropped or
 *       written anew by an {@link EntryRule}, which may then append entries;
 *   <li>{@link #filter}: each occurrence of a repeated message field is kept or dropped by an
 *       {@link ElementFilter};
 *   <li>{@link #append}: encoded fields written after everything else, in the order given.
 * </ul>
 *
 * <p>Plan with {@link #begin} and the calls above, then {@link #write}; the plan is forgotten after
 * each write, and so are the caller's arrays it pointed at, which the plan reads, never copies. The
 * data model's typed editors ({@link SpanEditor}, {@link LogRecordEditor}, {@link DataPointEditor},
 * {@link ResourceEditor}, {@link ScopeEditor}), their {@link AttributeActions} (an {@link
 * AttributeActionsRule} for the attributes field) and OTTL write through it; components edit
 * through those editors, not through this engine (a boundary test holds that).
 *
 * <p>Messages are items or headers that were validated at the edge: one that does not parse is a
 * programming error ({@link IllegalStateException}). Reuses its readers and tables, which grow to
 * the largest plan; not thread-safe.
 */
public final class MessageRewriter {
  /** Items were validated at the edge; groups in unknown fields nest no deeper. */
  private static final int MAX_GROUP_DEPTH = 100;

  private static final int KEY_TAG = WireType.tag(KeyValue.KEY, WireType.LEN);
  private static final int VALUE_TAG = WireType.tag(KeyValue.VALUE, WireType.LEN);
  private static final int WIRE_TYPE_MASK = 7;

  /** Field numbers a plan names without growing its table: every OTLP message's fit. */
  private static final int INITIAL_FIELDS = 32;

  private static final int INITIAL_CHANGES = 8;

  private static final int SET = 1;
  private static final int ENTRIES = 2;
  private static final int FILTER = 3;

  /** What an {@link EntryRule} does with one entry. */
  public enum Decision {
    KEEP,
    DROP,
    /** The rule wrote the entry's replacement, a whole field, into the output. */
    REPLACED
  }

  /** Decides each entry of a repeated {@code KeyValue} field, then may append entries. */
  public interface EntryRule {
    Decision decide(Entry entry, ProtoWriter out);

    /** After the last field of the message: entries to add. */
    default void finish(ProtoWriter out) {}
  }

  /** Decides each occurrence of a repeated message field. */
  @FunctionalInterface
  public interface ElementFilter {
    /** Whether the element whose payload is {@code bytes[offset, offset + length)} stays. */
    boolean keep(byte[] bytes, int offset, int length);
  }

  /** The entry being decided: its key and value within {@link #bytes()}. */
  public static final class Entry {
    byte[] bytes;
    int field;
    // Where the entry's field (its tag) starts in bytes.
    int fieldStart;
    int keyOffset;
    int keyLength;
    int valueOffset;
    int valueLength;

    /** The array holding the entry; valid only during the rule's call. */
    public byte[] bytes() {
      return bytes;
    }

    /** The field number of the entries being edited. */
    public int field() {
      return field;
    }

    public int keyOffset() {
      return keyOffset;
    }

    /** The key's length in UTF-8 bytes (0 when the entry has no key). */
    public int keyLength() {
      return keyLength;
    }

    /** Where the {@code AnyValue} payload starts; -1 when the entry has no value. */
    public int valueOffset() {
      return valueOffset;
    }

    public int valueLength() {
      return valueLength;
    }

    public boolean keyEquals(byte[] key) {
      return Arrays.equals(bytes, keyOffset, keyOffset + keyLength, key, 0, key.length);
    }

    /** Whether the key is {@code key[offset, offset + length)}. */
    public boolean keyEquals(byte[] key, int offset, int length) {
      return Arrays.equals(bytes, keyOffset, keyOffset + keyLength, key, offset, offset + length);
    }
  }

  private final WireReader reader = new WireReader();
  private final WireReader entryReader = new WireReader();
  private final Entry entry = new Entry();

  // The plan: per field number, its change's slot plus one (0: copied as it is).
  private int[] slotOf = new int[INITIAL_FIELDS];
  private int[] kinds = new int[INITIAL_CHANGES];
  private int[] fields = new int[INITIAL_CHANGES];
  private byte[][] sources = new byte[INITIAL_CHANGES][];
  private int[] offsets = new int[INITIAL_CHANGES];
  private int[] lengths = new int[INITIAL_CHANGES];
  private EntryRule[] rules = new EntryRule[INITIAL_CHANGES];
  private ElementFilter[] filters = new ElementFilter[INITIAL_CHANGES];
  private boolean[] written = new boolean[INITIAL_CHANGES];
  private int changes;

  private byte[][] appendSources = new byte[INITIAL_CHANGES][];
  private int[] appendOffsets = new int[INITIAL_CHANGES];
  private int[] appendLengths = new int[INITIAL_CHANGES];
  private int appends;

  /** Starts a new plan: every field is copied as it is. */
  public void begin() {
    for (int s = 0; s < changes; s++) {
      slotOf[fields[s]] = 0;
      sources[s] = null;
      rules[s] = null;
      filters[s] = null;
    }
    changes = 0;
    for (int a = 0; a < appends; a++) {
      appendSources[a] = null;
    }
    appends = 0;
  }

  /**
   * Every occurrence of {@code field} is replaced by {@code encoded[offset, offset + length)}: the
   * whole encoded field, tag first, or nothing (the field is cleared). A second call for the field
   * replaces the first.
   */
  public void set(int field, byte[] encoded, int offset, int length) {
    int s = slot(field, SET);
    sources[s] = encoded;
    offsets[s] = offset;
    lengths[s] = length;
  }

  /** Every occurrence of {@code field} goes. */
  public void clear(int field) {
    set(field, MessageView.NO_BYTES, 0, 0);
  }

  /** Each {@code field} entry (a {@code KeyValue}) is decided by {@code rule}. */
  public void editEntries(int field, EntryRule rule) {
    rules[slot(field, ENTRIES)] = rule;
  }

  /** Each {@code field} element (a message) stays only where {@code filter} keeps it. */
  public void filter(int field, ElementFilter filter) {
    filters[slot(field, FILTER)] = filter;
  }

  /** Writes {@code encoded[offset, offset + length)}, whole fields, after everything else. */
  public void append(byte[] encoded, int offset, int length) {
    if (appends == appendSources.length) {
      int grown = 2 * appends;
      appendSources = Arrays.copyOf(appendSources, grown);
      appendOffsets = Arrays.copyOf(appendOffsets, grown);
      appendLengths = Arrays.copyOf(appendLengths, grown);
    }
    appendSources[appends] = encoded;
    appendOffsets[appends] = offset;
    appendLengths[appends] = length;
    appends++;
  }

  /** The slot of the plan's change of {@code field}, of {@code kind}: taken, or a new one. */
  private int slot(int field, int kind) {
    if (field <= 0 || field > WireType.MAX_FIELD_NUMBER) {
      throw new IllegalArgumentException("not a field number: " + field);
    }
    if (field >= slotOf.length) {
      slotOf = Arrays.copyOf(slotOf, Math.max(field + 1, 2 * slotOf.length));
    }
    int s = slotOf[field] - 1;
    if (s >= 0) {
      if (kinds[s] != kind) {
        throw new IllegalStateException("field " + field + " has another change planned");
      }
      return s;
    }
    if (changes == kinds.length) {
      growChanges();
    }
    s = changes++;
    slotOf[field] = s + 1;
    kinds[s] = kind;
    fields[s] = field;
    written[s] = false;
    return s;
  }

  private void growChanges() {
    int grown = 2 * changes;
    kinds = Arrays.copyOf(kinds, grown);
    fields = Arrays.copyOf(fields, grown);
    sources = Arrays.copyOf(sources, grown);
    offsets = Arrays.copyOf(offsets, grown);
    lengths = Arrays.copyOf(lengths, grown);
    rules = Arrays.copyOf(rules, grown);
    filters = Arrays.copyOf(filters, grown);
    written = Arrays.copyOf(written, grown);
  }

  /**
   * Writes {@code message[offset, offset + length)} changed as planned into {@code out}, then
   * forgets the plan. Changes of fields the message lacks (sets, rules' appended entries) follow
   * its fields in the order they were planned, and then the appended fields.
   */
  public void write(byte[] message, int offset, int length, ProtoWriter out) {
    try {
      copyChanged(message, offset, length, out);
      for (int s = 0; s < changes; s++) {
        if (kinds[s] == SET && !written[s]) {
          out.writeBytes(sources[s], offsets[s], lengths[s]);
        } else if (kinds[s] == ENTRIES) {
          rules[s].finish(out);
        }
      }
      for (int a = 0; a < appends; a++) {
        out.writeBytes(appendSources[a], appendOffsets[a], appendLengths[a]);
      }
    } finally {
      begin();
    }
  }

  private void copyChanged(byte[] message, int offset, int length, ProtoWriter out) {
    entry.bytes = message;
    try {
      reader.wrap(message, offset, length);
      int copyFrom = offset;
      int firstUnwritten = firstUnwrittenSet();
      while (reader.hasRemaining()) {
        int fieldStart = reader.position();
        int tag = reader.readTag();
        int field = tag >>> 3;
        if (field > firstUnwritten) {
          // Sets of fields numbered below this one go before it.
          out.writeBytes(message, copyFrom, fieldStart - copyFrom);
          copyFrom = fieldStart;
          firstUnwritten = writeSetsBelow(field, out);
        }
        int s = field < slotOf.length ? slotOf[field] - 1 : -1;
        if (s < 0) {
          reader.skipValue(tag, MAX_GROUP_DEPTH);
          continue;
        }
        int kind = kinds[s];
        if (kind == SET) {
          reader.skipValue(tag, MAX_GROUP_DEPTH);
          out.writeBytes(message, copyFrom, fieldStart - copyFrom);
          copyFrom = reader.position();
          if (!written[s]) {
            out.writeBytes(sources[s], offsets[s], lengths[s]);
            written[s] = true;
            firstUnwritten = firstUnwrittenSet();
          }
          continue;
        }
        if ((tag & WIRE_TYPE_MASK) != WireType.LEN) {
          reader.skipValue(tag, MAX_GROUP_DEPTH);
          continue;
        }
        int elementLength = reader.readLength();
        int elementStart = reader.position();
        reader.position(elementStart + elementLength);
        if (kind == ENTRIES) {
          parseEntry(message, elementStart, elementLength);
          entry.field = field;
          entry.fieldStart = fieldStart;
          out.writeBytes(message, copyFrom, fieldStart - copyFrom);
          copyFrom = fieldStart;
          if (rules[s].decide(entry, out) != Decision.KEEP) {
            copyFrom = reader.position();
          }
        } else if (!filters[s].keep(message, elementStart, elementLength)) {
          out.writeBytes(message, copyFrom, fieldStart - copyFrom);
          copyFrom = reader.position();
        }
      }
      out.writeBytes(message, copyFrom, offset + length - copyFrom);
    } catch (MalformedOtlpException e) {
      throw new IllegalStateException("a validated message does not parse", e);
    } finally {
      entry.bytes = null;
    }
  }

  // What locateSet found: where the set field goes, and the one occurrence it replaces (or -1).
  private int spliceAt;
  private int oldFrom;
  private int oldTo;

  /**
   * The fast path of a plan that is one {@link #set} of {@code field} to {@code encoded[offset,
   * offset + length)} and nothing else, as the typed editors' commonest edit is: walks {@code
   * message[messageOffset, messageOffset + messageLength)} once, reading only tags and lengths, and
   * finds where the field goes as {@link #write} places it. Returns the length of the message
   * changed so, which {@link #writeSet} then writes; {@link #UNCHANGED} when it would be the
   * message's own bytes; {@link #GENERAL} when the field occurs more than once, for {@link #write}
   * to do. {@code MessageRewriterSetPropertyTest} holds the two paths to the same bytes.
   */
  int locateSet(
      byte[] message,
      int messageOffset,
      int messageLength,
      int field,
      byte[] encoded,
      int offset,
      int length) {
    int end = messageOffset + messageLength;
    int at = -1;
    int from = -1;
    int to = -1;
    int p = messageOffset;
    while (p < end) {
      int fieldStart = p;
      int tag = (int) ViewWire.varint(message, p);
      p = ViewWire.skipValue(message, ViewWire.skipVarint(message, p), tag);
      int number = ViewWire.fieldNumber(tag);
      if (number >= field && at < 0) {
        at = fieldStart;
      }
      if (number == field) {
        if (from >= 0) {
          return GENERAL;
        }
        from = fieldStart;
        to = p;
      }
    }
    return placeSet(
        message,
        messageOffset,
        messageLength,
        at < 0 ? end : at,
        from,
        to,
        encoded,
        offset,
        length);
  }

  /**
   * {@link #locateSet} for a caller that found the field's place on its own walk: it goes at {@code
   * at} (the first field numbered the same or higher, or the end), and the message's one occurrence
   * of it is {@code message[from, to)} ({@code from} -1 for none).
   */
  int placeSet(
      byte[] message,
      int messageOffset,
      int messageLength,
      int at,
      int from,
      int to,
      byte[] encoded,
      int offset,
      int length) {
    spliceAt = at;
    oldFrom = from;
    oldTo = to;
    if (from < 0) {
      return length == 0 ? UNCHANGED : messageLength + length;
    }
    if (from == spliceAt && Arrays.equals(message, from, to, encoded, offset, offset + length)) {
      return UNCHANGED;
    }
    return messageLength - (to - from) + length;
  }

  /** Writes what {@link #locateSet} measured into {@code into} from {@code at}. */
  void writeSet(
      byte[] message,
      int messageOffset,
      int messageLength,
      byte[] encoded,
      int offset,
      int length,
      byte[] into,
      int at) {
    int end = messageOffset + messageLength;
    int q = at;
    int before = spliceAt - messageOffset;
    System.arraycopy(message, messageOffset, into, q, before);
    q += before;
    System.arraycopy(encoded, offset, into, q, length);
    q += length;
    if (oldFrom < 0) {
      System.arraycopy(message, spliceAt, into, q, end - spliceAt);
    } else {
      // The old occurrence is at spliceAt, or after fields of higher numbers written before it.
      System.arraycopy(message, spliceAt, into, q, oldFrom - spliceAt);
      q += oldFrom - spliceAt;
      System.arraycopy(message, oldTo, into, q, end - oldTo);
    }
  }

  /** {@link #locateSet}: the message would stay as it is. */
  static final int UNCHANGED = -1;

  /** {@link #locateSet}: the general {@link #write} must do it. */
  static final int GENERAL = -2;

  /** The least field number of a set not written yet, or {@link Integer#MAX_VALUE}. */
  private int firstUnwrittenSet() {
    int first = Integer.MAX_VALUE;
    for (int s = 0; s < changes; s++) {
      if (kinds[s] == SET && !written[s] && fields[s] < first) {
        first = fields[s];
      }
    }
    return first;
  }

  /**
   * Writes the sets not written yet of fields numbered below {@code field}, in field order; returns
   * the least field number of a set still not written.
   */
  private int writeSetsBelow(int field, ProtoWriter out) {
    while (true) {
      int first = firstUnwrittenSet();
      if (first >= field) {
        return first;
      }
      int s = slotOf[first] - 1;
      out.writeBytes(sources[s], offsets[s], lengths[s]);
      written[s] = true;
    }
  }

  /**
   * Writes {@code message} with every {@code field} occurrence replaced by {@code replacement[0,
   * replacementLength)} (a whole encoded field, or nothing), written as {@link #set} places it.
   */
  public void replaceField(
      byte[] message,
      int offset,
      int length,
      int field,
      byte[] replacement,
      int replacementLength,
      ProtoWriter out) {
    begin();
    set(field, replacement, 0, replacementLength);
    write(message, offset, length, out);
  }

  /** Applies {@code rule} to each {@code field} entry of {@code message}, into {@code out}. */
  public void editEntries(
      byte[] message, int offset, int length, int field, EntryRule rule, ProtoWriter out) {
    begin();
    editEntries(field, rule);
    write(message, offset, length, out);
  }

  /**
   * Appends the payloads of every length-delimited {@code field} of {@code message} to {@code out},
   * back to back: protobuf's merge of a message field given more than once. Returns how many there
   * were.
   */
  public int copyPayloads(byte[] message, int offset, int length, int field, ProtoWriter out) {
    int found = 0;
    try {
      reader.wrap(message, offset, length);
      int tagWanted = WireType.tag(field, WireType.LEN);
      while (reader.hasRemaining()) {
        int tag = reader.readTag();
        if (tag == tagWanted) {
          int size = reader.readLength();
          out.writeBytes(message, reader.position(), size);
          reader.position(reader.position() + size);
          found++;
        } else {
          reader.skipValue(tag, MAX_GROUP_DEPTH);
        }
      }
    } catch (MalformedOtlpException e) {
      throw new IllegalStateException("a validated message does not parse", e);
    }
    return found;
  }

  /**
   * Finds the last length-delimited {@code field} of {@code message}: its payload's offset in the
   * high half and length in the low half of the result, or -1 when absent.
   */
  public long findMessage(byte[] message, int offset, int length, int field) {
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
  public static final long NO_ENTRY = -2;

  /**
   * The value of the first {@code field} entry of {@code message} with {@code key}: its {@code
   * AnyValue} payload's offset in the high half and length in the low half, -1 when the entry has
   * no value, {@link #NO_ENTRY} when no entry has the key.
   */
  public long findEntryValue(byte[] message, int offset, int length, int field, byte[] key) {
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

  private void parseEntry(byte[] bytes, int start, int length) throws MalformedOtlpException {
    // The common shape, a key and then a value each with a one-byte length, is read in place; any
    // other (longer lengths, other fields, fields repeated) takes the reader.
    int end = start + length;
    if (length >= 4 && bytes[start] == KEY_TAG) {
      int keyLength = bytes[start + 1];
      int valueTagAt = start + 2 + keyLength;
      if (keyLength >= 0 && valueTagAt + 2 <= end && bytes[valueTagAt] == VALUE_TAG) {
        int valueLength = bytes[valueTagAt + 1];
        if (valueLength >= 0 && valueTagAt + 2 + valueLength == end) {
          entry.keyOffset = start + 2;
          entry.keyLength = keyLength;
          entry.valueOffset = valueTagAt + 2;
          entry.valueLength = valueLength;
          return;
        }
      }
    }
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
  public long stringMember(byte[] bytes, int offset, int length) {
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

  /** The offset half of a packed range that a finder returned. */
  public static int high(long packed) {
    return (int) (packed >>> 32);
  }

  /** The length half of a packed range that a finder returned. */
  public static int low(long packed) {
    return (int) packed;
  }
}
