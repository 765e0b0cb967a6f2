package dev.sluice.exporter.prometheusremotewrite;

import dev.sluice.exporter.prometheusremotewrite.RemoteWriteFields.RequestV2;
import java.util.Arrays;

/**
 * The symbol table of one remote write 2.0 request: every label name and value, help text and unit
 * the request's series use, once each, referred to by index. Index 0 is the empty string, as the
 * specification requires. The table is written as it grows, {@code symbols} fields in index order,
 * into {@link #out}; {@link #truncate} forgets the symbols added after a mark, for a series that
 * did not fit in the request after all. Owned by one thread, reset per request.
 */
final class Symbols {
  /** The request's {@code symbols} fields, in index order. */
  final Buf out = new Buf(4096);

  private final Buf bytes = new Buf(4096);
  private int[] from = new int[256];
  private int[] length = new int[256];
  private int[] hashes = new int[256];
  private int count;
  // Symbol index + 1 by hash; 0 is empty.
  private int[] slots = new int[512];

  void reset() {
    Arrays.fill(slots, 0);
    count = 0;
    bytes.reset();
    out.reset();
    ref(Buf.EMPTY, 0, 0);
  }

  int count() {
    return count;
  }

  /** The index of the symbol {@code source[offset, offset + len)}, added if new. */
  int ref(byte[] source, int offset, int len) {
    int hash = SeriesTable.hash(source, offset, len);
    int mask = slots.length - 1;
    int slot = hash & mask;
    while (slots[slot] != 0) {
      int i = slots[slot] - 1;
      if (hashes[i] == hash
          && length[i] == len
          && Arrays.equals(bytes.array, from[i], from[i] + len, source, offset, offset + len)) {
        return i;
      }
      slot = (slot + 1) & mask;
    }
    if (count == from.length) {
      from = Arrays.copyOf(from, count * 2);
      length = Arrays.copyOf(length, count * 2);
      hashes = Arrays.copyOf(hashes, count * 2);
    }
    int i = count++;
    from[i] = bytes.size;
    length[i] = len;
    hashes[i] = hash;
    bytes.bytes(source, offset, len);
    out.tag(RequestV2.SYMBOLS, Buf.LEN);
    out.varint(len);
    out.bytes(source, offset, len);
    slots[slot] = i + 1;
    if (count * 2 > slots.length) {
      rehash();
    }
    return i;
  }

  /**
   * Forgets the symbols from index {@code mark} on, and their bytes in {@link #out} from {@code
   * outMark}.
   */
  void truncate(int mark, int outMark) {
    if (mark == count) {
      return;
    }
    count = mark;
    bytes.size = mark == 0 ? 0 : from[mark - 1] + length[mark - 1];
    out.size = outMark;
    Arrays.fill(slots, 0);
    int mask = slots.length - 1;
    for (int i = 0; i < count; i++) {
      int slot = hashes[i] & mask;
      while (slots[slot] != 0) {
        slot = (slot + 1) & mask;
      }
      slots[slot] = i + 1;
    }
  }

  private void rehash() {
    int[] grown = new int[slots.length * 2];
    int mask = grown.length - 1;
    for (int i = 0; i < count; i++) {
      int slot = hashes[i] & mask;
      while (grown[slot] != 0) {
        slot = (slot + 1) & mask;
      }
      grown[slot] = i + 1;
    }
    slots = grown;
  }
}
