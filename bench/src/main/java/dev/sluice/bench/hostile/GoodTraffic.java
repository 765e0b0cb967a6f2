package dev.sluice.bench.hostile;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The well-behaved client's spans: span IDs that start with a marker no hostile request uses, and a
 * content hash of each span's bytes, so that the sink can tell them apart and check them intact.
 */
final class GoodTraffic {
  /** The first four bytes of every good span's ID. */
  static final int SPAN_ID_MARKER = 0x600d600d;

  private static final long EPOCH_NANOS = 1_700_000_000_000_000_000L;

  private GoodTraffic() {}

  static byte[] spanId(int sequence) {
    return ByteBuffer.allocate(Long.BYTES).putInt(SPAN_ID_MARKER).putInt(sequence).array();
  }

  /** Whether an ID is a good span's; its sequence number is then the low four bytes. */
  static boolean isGood(ByteString spanId) {
    return spanId.size() == Long.BYTES && spanId.asReadOnlyByteBuffer().getInt() == SPAN_ID_MARKER;
  }

  static int sequence(ByteString spanId) {
    return spanId.asReadOnlyByteBuffer().getInt(Integer.BYTES);
  }

  static Span span(int sequence) {
    long start = EPOCH_NANOS + sequence * 1_000_000L;
    return Span.newBuilder()
        .setTraceId(
            ByteString.copyFrom(
                ByteBuffer.allocate(16).putLong(0x600d600d600d600dL).putLong(sequence).array()))
        .setSpanId(ByteString.copyFrom(spanId(sequence)))
        .setName("good-" + sequence)
        .setKind(Span.SpanKind.SPAN_KIND_SERVER)
        .setStartTimeUnixNano(start)
        .setEndTimeUnixNano(start + 250_000 + sequence % 1000)
        .addAttributes(string("http.route", "/good/" + (sequence % 17)))
        .addAttributes(
            KeyValue.newBuilder()
                .setKey("good.sequence")
                .setValue(AnyValue.newBuilder().setIntValue(sequence)))
        .build();
  }

  static ExportTraceServiceRequest request(int firstSequence, int spans) {
    ScopeSpans.Builder scope =
        ScopeSpans.newBuilder()
            .setScope(InstrumentationScope.newBuilder().setName("good-client").setVersion("1"));
    for (int i = 0; i < spans; i++) {
      scope.addSpans(span(firstSequence + i));
    }
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder()
                .setResource(
                    Resource.newBuilder().addAttributes(string("service.name", "good-client")))
                .addScopeSpans(scope))
        .build();
  }

  /** The first eight bytes of the SHA-256 of a span's encoding. */
  static long hash(Span span) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(span.toByteArray());
      return ByteBuffer.wrap(digest).getLong();
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  private static KeyValue string(String key, String value) {
    return KeyValue.newBuilder()
        .setKey(key)
        .setValue(AnyValue.newBuilder().setStringValue(value))
        .build();
  }
}
