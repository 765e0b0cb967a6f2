package dev.sluice.processor.filter;

import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.internal.OtlpFields.Span;
import dev.sluice.pdata.internal.ProtoWriter;
import dev.sluice.pdata.internal.WireReader;
import dev.sluice.pdata.internal.WireType;

/**
 * Re-encodes a {@code Span} without some of its events: every other field is copied as it is, in
 * its place. Reuses its buffers; the result is valid until the next call.
 */
final class SpanEventPruner {
  private static final int EVENTS_TAG = WireType.tag(Span.EVENTS, WireType.LEN);

  /** The span was validated at the edge; groups in its unknown fields nest no deeper. */
  private static final int MAX_GROUP_DEPTH = 100;

  /** A span that once needed a big buffer does not keep more than this between calls. */
  private static final int MAX_RETAINED_BYTES = 1 << 20;

  private final WireReader reader = new WireReader();
  private final ProtoWriter out = new ProtoWriter();

  /**
   * Writes {@code span[offset, offset + length)} without the events whose indexes (in order, among
   * the span's events) are {@code drop[0, dropCount)}, sorted ascending.
   */
  ProtoWriter prune(byte[] span, int offset, int length, int[] drop, int dropCount) {
    out.release(MAX_RETAINED_BYTES);
    out.reset();
    reader.wrap(span, offset, length);
    int event = 0;
    int next = 0;
    try {
      while (reader.hasRemaining()) {
        int fieldStart = reader.position();
        int tag = reader.readTag();
        reader.skipValue(tag, MAX_GROUP_DEPTH);
        if (tag == EVENTS_TAG) {
          boolean dropped = next < dropCount && drop[next] == event;
          event++;
          if (dropped) {
            next++;
            continue;
          }
        }
        out.writeBytes(span, fieldStart, reader.position() - fieldStart);
      }
    } catch (MalformedOtlpException e) {
      throw new IllegalStateException("a validated span does not parse", e);
    }
    return out;
  }
}
