package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.rpc.RetryInfo;
import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.testkit.Await;
import dev.sluice.testkit.SequencedSpans;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * With the destination stalled, the collector fills up to its memory bound and then refuses with
 * UNAVAILABLE and RetryInfo; once the destination is back, everything it accepted arrives once, in
 * order.
 */
class BackpressureTest {
  private static final int SPANS_PER_REQUEST = 200;
  private static final long BOUND_BYTES = 2L << 20;

  @Test
  void refusesAtTheBoundAndDeliversEverythingAcceptedOnceTheDestinationIsBack() throws Exception {
    try (OtlpSink sink = OtlpSink.start().hold()) {
      Collector collector =
          TestCollectors.start(
              // The held call must not time out: a timed-out call that the destination later
              // completes would be sent again, and this test counts exact deliveries.
              TestCollectors.tracesToSink(
                      sink.endpoint(),
                      "    send_batch_size: 1000\n    send_batch_max_size: 1000\n    timeout: 20ms",
                      "    sending_queue:\n      num_consumers: 1\n      queue_size: 2")
                  .replace("timeout: 2s", "timeout: 60s"),
              new Collector.Options(BOUND_BYTES, Long.MAX_VALUE / 4, 700));
      ManagedChannel channel = TestCollectors.channel(collector);
      try {
        TraceServiceGrpc.TraceServiceBlockingStub stub = TraceServiceGrpc.newBlockingStub(channel);
        int accepted = 0;
        StatusRuntimeException refusal = null;
        long maxUsed = 0;
        for (int i = 0; i < 2_000 && refusal == null; i++) {
          try {
            stub.withDeadlineAfter(10, TimeUnit.SECONDS)
                .export(SequencedSpans.request("svc", accepted, SPANS_PER_REQUEST));
            accepted += SPANS_PER_REQUEST;
          } catch (StatusRuntimeException e) {
            refusal = e;
          }
          maxUsed = Math.max(maxUsed, collector.budget().usedBytes());
        }

        assertThat(refusal).as("no refusal after %d spans", accepted).isNotNull();
        assertThat(refusal.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        RetryInfo retry = StatusProto.fromThrowable(refusal).getDetails(0).unpack(RetryInfo.class);
        assertThat(retry.getRetryDelay().getNanos()).isEqualTo(700_000_000);
        assertThat(maxUsed).isLessThanOrEqualTo(BOUND_BYTES);
        assertThat(accepted).isPositive();

        sink.release();
        int expected = accepted;
        assertThat(sink.await(() -> sink.spans() >= expected, 60, TimeUnit.SECONDS)).isTrue();
        assertThat(spanNumbers(sink)).isEqualTo(IntStream.range(0, accepted).boxed().toList());
        Await.until("the memory budget released", () -> collector.budget().usedBytes() == 0);
      } finally {
        channel.shutdownNow();
        collector.shutdown(TimeUnit.SECONDS.toNanos(10));
      }
    }
  }

  static List<Integer> spanNumbers(OtlpSink sink) {
    List<Integer> numbers = new ArrayList<>();
    for (ExportTraceServiceRequest request : sink.traces()) {
      for (ResourceSpans resource : request.getResourceSpansList()) {
        for (ScopeSpans scope : resource.getScopeSpansList()) {
          for (Span span : scope.getSpansList()) {
            numbers.add(Integer.parseInt(span.getName()));
          }
        }
      }
    }
    return numbers;
  }
}
