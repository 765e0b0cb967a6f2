package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.rpc.RetryInfo;
import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.testkit.Await;
import dev.sluice.testkit.SequencedSpans;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.protobuf.StatusProto;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Retries through the whole collector, against a destination that fails on script. */
class RetryTest {
  private static final String BATCH = "    timeout: 10ms";
  private static final String QUEUE = "    sending_queue:\n      num_consumers: 1";

  private static void send(Collector collector, int spans) {
    ManagedChannel channel = TestCollectors.channel(collector);
    try {
      TraceServiceGrpc.newBlockingStub(channel)
          .withDeadlineAfter(10, TimeUnit.SECONDS)
          .export(SequencedSpans.request("svc", 0, spans));
    } finally {
      channel.shutdownNow();
    }
  }

  @Test
  void deliversOnceAfterUnavailable() throws Exception {
    try (OtlpSink sink = OtlpSink.start()) {
      sink.failNext(
          () -> Status.UNAVAILABLE.asRuntimeException(),
          () -> Status.UNAVAILABLE.asRuntimeException());
      Collector collector =
          TestCollectors.start(
              TestCollectors.tracesToSink(sink.endpoint(), BATCH, QUEUE),
              Collector.Options.defaults());
      try {
        send(collector, 50);

        assertThat(sink.await(() -> sink.spans() == 50, 30, TimeUnit.SECONDS)).isTrue();
        assertThat(sink.calls()).isEqualTo(3);
        assertThat(BackpressureTest.spanNumbers(sink))
            .isEqualTo(IntStream.range(0, 50).boxed().toList());
        // The sink has the spans before the exporter hears the answer and counts them.
        Await.until(
            "50 spans sent",
            () ->
                TestCollectors.prometheus(collector)
                    .contains("otelcol_exporter_sent_spans_total{exporter=\"otlp\"} 50"));
        assertThat(TestCollectors.prometheus(collector))
            .contains("otelcol_exporter_send_failed_spans_total{exporter=\"otlp\"} 0");
      } finally {
        collector.shutdown(TimeUnit.SECONDS.toNanos(10));
      }
    }
  }

  @Test
  void dropsAndCountsInvalidArgumentWithoutRetrying() throws Exception {
    try (OtlpSink sink = OtlpSink.start()) {
      sink.failNext(() -> Status.INVALID_ARGUMENT.withDescription("bad span").asRuntimeException());
      Collector collector =
          TestCollectors.start(
              TestCollectors.tracesToSink(sink.endpoint(), BATCH, QUEUE),
              Collector.Options.defaults());
      try {
        send(collector, 20);

        Await.until(
            "20 spans counted as failed",
            () ->
                TestCollectors.prometheus(collector)
                    .contains("otelcol_exporter_send_failed_spans_total{exporter=\"otlp\"} 20"));
        Thread.sleep(300);
        assertThat(sink.calls()).isEqualTo(1);
        assertThat(sink.spans()).isZero();
        assertThat(collector.budget().usedBytes()).isZero();
      } finally {
        collector.shutdown(TimeUnit.SECONDS.toNanos(10));
      }
    }
  }

  @Test
  void waitsTheRetryInfoDelayBeforeTheNextAttempt() throws Exception {
    com.google.rpc.Status throttled =
        com.google.rpc.Status.newBuilder()
            .setCode(Status.Code.RESOURCE_EXHAUSTED.value())
            .addDetails(
                Any.pack(
                    RetryInfo.newBuilder()
                        .setRetryDelay(com.google.protobuf.Duration.newBuilder().setSeconds(1))
                        .build()))
            .build();
    try (OtlpSink sink = OtlpSink.start()) {
      sink.failNext(() -> StatusProto.toStatusRuntimeException(throttled));
      Collector collector =
          TestCollectors.start(
              TestCollectors.tracesToSink(sink.endpoint(), BATCH, QUEUE),
              Collector.Options.defaults());
      try {
        send(collector, 5);

        assertThat(sink.await(() -> sink.spans() == 5, 30, TimeUnit.SECONDS)).isTrue();
        List<Long> calls = sink.callTimes();
        assertThat(calls).hasSize(2);
        assertThat(calls.get(1) - calls.get(0)).isGreaterThanOrEqualTo(TimeUnit.SECONDS.toNanos(1));
      } finally {
        collector.shutdown(TimeUnit.SECONDS.toNanos(10));
      }
    }
  }
}
