package dev.sluice.pdata.internal;

import dev.sluice.pdata.internal.MessageRewriter.Decision;
import dev.sluice.pdata.internal.MessageRewriter.Entry;
import dev.sluice.pdata.internal.OtlpFields.KeyValue;
import java.util.Arrays;

/**
 * The puts and removes a typed editor was asked to make to an item's attributes, as one {@link
 * MessageRewriter.EntryRule}: the list comes out as if each change had been made in turn, where a
 * put replaces the value of the key's first entry in place (later entries with the key go) or
 * appends an entry when the key is absent, and a remove takes every entry with the key. Keys and
 * values (each an encoded {@code AnyValue}) are ranges of the editor's scratch buffer, read when
 * the item is written.
 */
final class AttributeChanges implements MessageRewriter.EntryRule {
  private static final int INITIAL = 8;

  private final ProtoWriter scratch;

  // The changes in order: a put has a value, a remove has valueLength -1.
  private int[] keyStart = new int[INITIAL];
  private int[] keyLength = new int[INITIAL];
  private int[] valueStart = new int[INITIAL];
  private int[] valueLength = new int[INITIAL];
  private int count;

  // Resolved per key (numbered by its first change) before the item is written.
  private int[] keyOf = new int[INITIAL];
  private int[] lastChange = new int[INITIAL];
  private int[] appearsAt = new int[INITIAL];
  private boolean[] removed = new boolean[INITIAL];
  private boolean[] written = new boolean[INITIAL];
  private int keys;
  private int field;

  AttributeChanges(ProtoWriter scratch) {
    this.scratch = scratch;
  }

  boolean isEmpty() {
    return count == 0;
  }

  void put(int keyStart, int keyLength, int valueStart, int valueLength) {
    add(keyStart, keyLength, valueStart, valueLength);
  }

  void remove(int keyStart, int keyLength) {
    add(keyStart, keyLength, 0, -1);
  }

  private void add(int keyAt, int keyBytes, int valueAt, int valueBytes) {
    if (count == keyStart.length) {
      int grown = 2 * count;
      keyStart = Arrays.copyOf(keyStart, grown);
      keyLength = Arrays.copyOf(keyLength, grown);
      valueStart = Arrays.copyOf(valueStart, grown);
      valueLength = Arrays.copyOf(valueLength, grown);
      keyOf = Arrays.copyOf(keyOf, grown);
      lastChange = Arrays.copyOf(lastChange, grown);
      appearsAt = Arrays.copyOf(appearsAt, grown);
      removed = Arrays.copyOf(removed, grown);
      written = Arrays.copyOf(written, grown);
    }
    keyStart[count] = keyAt;
    keyLength[count] = keyBytes;
    valueStart[count] = valueAt;
    valueLength[count] = valueBytes;
    count++;
  }

  void clear() {
    count = 0;
    keys = 0;
  }

  /**
   * Works out, per key, its last change, whether a remove took its entries, and which put adds its
   * entry when one is appended (the first put after the last remove): the order appended entries
   * take is the order those puts were made in.
   */
  void resolve(int attributesField) {
    field = attributesField;
    byte[] bytes = scratch.array();
    keys = 0;
    for (int c = 0; c < count; c++) {
      int k = 0;
      while (k < keys
          && !Arrays.equals(
              bytes,
              keyStart[lastChange[k]],
              keyStart[lastChange[k]] + keyLength[lastChange[k]],
              bytes,
              keyStart[c],
              keyStart[c] + keyLength[c])) {
        k++;
      }
      if (k == keys) {
        keys++;
        removed[k] = false;
        written[k] = false;
        appearsAt[k] = -1;
      }
      keyOf[c] = k;
      lastChange[k] = c;
      if (valueLength[c] < 0) {
        removed[k] = true;
        appearsAt[k] = -1;
      } else if (appearsAt[k] < 0) {
        appearsAt[k] = c;
      }
    }
  }

  @Override
  public Decision decide(Entry entry, ProtoWriter out) {
    byte[] bytes = scratch.array();
    int entryKeyLength = entry.keyLength();
    for (int k = 0; k < keys; k++) {
      int last = lastChange[k];
      if (keyLength[last] != entryKeyLength
          || !entry.keyEquals(bytes, keyStart[last], keyLength[last])) {
        continue;
      }
      if (removed[k] || written[k]) {
        return Decision.DROP;
      }
      written[k] = true;
      writeEntry(last, out);
      return Decision.REPLACED;
    }
    return Decision.KEEP;
  }

  @Override
  public void finish(ProtoWriter out) {
    for (int c = 0; c < count; c++) {
      int k = keyOf[c];
      if (appearsAt[k] == c && !written[k]) {
        written[k] = true;
        writeEntry(lastChange[k], out);
      }
    }
  }

  /** The entry of change {@code c}'s key with its value, as a whole field. */
  private void writeEntry(int c, ProtoWriter out) {
    byte[] bytes = scratch.array();
    int keyBytes = keyLength[c];
    int valueBytes = valueLength[c];
    out.writeLengthDelimitedHeader(
        field,
        Varint.lengthDelimitedSize(KeyValue.KEY, keyBytes)
            + Varint.lengthDelimitedSize(KeyValue.VALUE, valueBytes));
    out.writeLengthDelimitedHeader(KeyValue.KEY, keyBytes);
    out.writeBytes(bytes, keyStart[c], keyBytes);
    out.writeLengthDelimitedHeader(KeyValue.VALUE, valueBytes);
    out.writeBytes(bytes, valueStart[c], valueBytes);
  }
}
