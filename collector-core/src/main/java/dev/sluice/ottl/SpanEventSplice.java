package dev.sluice.ottl;

import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.internal.MessageRewriter;
import dev.sluice.pdata.internal.OtlpFields.Span;
import dev.sluice.pdata.internal.ProtoWriter;
import dev.sluice.pdata.internal.WireReader;
import dev.sluice.pdata.internal.WireType;

/**
 * Finds one event inside a {@code Span}'s bytes, and writes the span again with that event's bytes
 * replaced: every other field and event is copied as it is, in its place, unknown fields included.
 * Reuses its reader and buffer; not thread-safe.
 */
final class SpanEventSplice {
  private static final int EVENTS_TAG = WireType.tag(Span.EVENTS, WireType.LEN);

  /** Spans were validated at the edge; groups in their unknown fields nest no deeper. */
  private static final int MAX_GROUP_DEPTH = 100;

  /** A span that once needed a big buffer does not keep more than this between edits. */
  private static final int MAX_RETAINED_BYTES = 1 << 20;

  private static final int INITIAL_BYTES = 256;

  private final WireReader reader = new WireReader();
  private final ProtoWriter span = new ProtoWriter(INITIAL_BYTES);

  /** Where the field of the event last found starts: its tag. */
  private int foundFieldStart;

  /**
   * The payload of event {@code index} (counted among the span's events) of {@code span[offset,
   * offset + length)}: its offset in the high half and length in the low half.
   *
   * @throws IllegalStateException when the span has no such event (the caller's index is stale)
   */
  long find(byte[] message, int offset, int length, int index) {
    try {
      reader.wrap(message, offset, length);
      int event = 0;
      while (reader.hasRemaining()) {
        int fieldStart = reader.position();
        int tag = reader.readTag();
        if (tag != EVENTS_TAG) {
          reader.skipValue(tag, MAX_GROUP_DEPTH);
          continue;
        }
        int size = reader.readLength();
        int at = reader.position();
        if (event++ == index) {
          foundFieldStart = fieldStart;
          return ((long) at << 32) | size;
        }
        reader.position(at + size);
      }
    } catch (MalformedOtlpException e) {
      throw new IllegalStateException("a validated span does not parse", e);
    }
    throw new IllegalStateException("the span has no event " + index);
  }

  /**
   * Writes {@code span[offset, offset + length)} with event {@code index} replaced by the event
   * {@code event[0, eventLength)}; the result is valid until the next call.
   */
  ProtoWriter replace(
      byte[] message, int offset, int length, int index, byte[] event, int eventLength) {
    long found = find(message, offset, length, index);
    int payload = MessageRewriter.high(found);
    int payloadLength = MessageRewriter.low(found);
    int fieldStart = foundFieldStart;
    span.release(MAX_RETAINED_BYTES);
    span.reset();
    span.writeBytes(message, offset, fieldStart - offset);
    span.writeLengthDelimitedHeader(Span.EVENTS, eventLength);
    span.writeBytes(event, 0, eventLength);
    int after = payload + payloadLength;
    span.writeBytes(message, after, offset + length - after);
    return span;
  }
}
