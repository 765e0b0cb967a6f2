package dev.sluice.ottl;

import dev.sluice.pdata.internal.ProtoWriter;

/**
 * The storage of a statements' {@code cache} map: its entries ({@code KeyValue}s, field 1) and a
 * spare buffer that the next version is written into. Each {@link EvalContext} has its own, emptied
 * for each item; a caller that shares one between groups ({@code shared_cache}) makes it here and
 * hands it to {@link EvalContext#sharedCache}. One thread at a time.
 */
public final class OttlCache {
  private static final int INITIAL_BYTES = 256;

  /** A cache that once held much more than usual does not keep it once emptied. */
  private static final int MAX_RETAINED_BYTES = 64 * 1024;

  private ProtoWriter entries = new ProtoWriter(INITIAL_BYTES);
  private ProtoWriter spare = new ProtoWriter(INITIAL_BYTES);

  public OttlCache() {}

  /** Empties the map. */
  public void clear() {
    if (entries.size() > 0) {
      entries.release(MAX_RETAINED_BYTES);
      entries.reset();
    }
  }

  /** The entries: {@code entries().array()[0, entries().size())}. */
  ProtoWriter entries() {
    return entries;
  }

  /** Makes {@code message[0, length)} the entries. */
  void store(byte[] message, int length) {
    ProtoWriter next = spare;
    next.reset();
    next.writeBytes(message, 0, length);
    spare = entries;
    entries = next;
  }
}
