package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.testkit.Await;
import dev.sluice.testkit.SequencedSpans;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pipelines whose exporter has {@code sending_queue.storage}: requests are in the write-ahead log
 * before they are answered, and what the exporter had not delivered when the collector stopped is
 * delivered by the next one.
 */
class DurablePipelineTest {
  @TempDir Path directory;

  /**
   * otlp -> batch -> otlp exporter to {@code endpoint}, durable in a file_storage under the test's
   * directory.
   */
  private String config(String endpoint) {
    String extensions =
        String.join(
            "\n",
            "extensions:",
            "  file_storage:",
            "    directory: " + directory.resolve("wal"),
            "");
    String pipeline =
        TestCollectors.tracesToSink(
            endpoint, "    timeout: 10ms", "    sending_queue:\n      storage: file_storage");
    return extensions + pipeline.replace("service:\n", "service:\n  extensions: [file_storage]\n");
  }

  private static void send(Collector collector, int first, int spans) {
    ManagedChannel channel = TestCollectors.channel(collector);
    try {
      TraceServiceGrpc.newBlockingStub(channel)
          .withDeadlineAfter(10, TimeUnit.SECONDS)
          .export(SequencedSpans.request("svc", first, spans));
    } finally {
      channel.shutdownNow();
    }
  }

  @SuppressWarnings("unchecked")
  private static Supplier<StatusRuntimeException>[] unavailable(int times) {
    Supplier<StatusRuntimeException>[] errors = new Supplier[times];
    for (int i = 0; i < times; i++) {
      errors[i] = () -> Status.UNAVAILABLE.asRuntimeException();
    }
    return errors;
  }

  @Test
  void whatTheBackendNeverGotIsDeliveredByTheNextCollector() throws Exception {
    try (OtlpSink down = OtlpSink.start();
        OtlpSink up = OtlpSink.start()) {
      down.failNext(unavailable(100_000));
      Collector first = TestCollectors.start(config(down.endpoint()), Collector.Options.defaults());
      try {
        send(first, 0, 10);
        send(first, 10, 10);
        send(first, 20, 10);
        Await.until("a call to the failing destination", () -> down.calls() > 0);
        String metrics = TestCollectors.prometheus(first);
        assertThat(metrics).contains("sluice_wal_records_owed 3");
        assertThat(metrics).containsPattern("sluice_wal_fsync_duration_seconds_count [1-9]");
        assertThat(metrics).containsPattern("sluice_wal_write_duration_seconds_count [1-9]");
        // Each of the three requests waited for the disk before its answer.
        assertThat(metrics).contains("sluice_wal_commit_duration_seconds_count 3");
      } finally {
        first.shutdown(TimeUnit.MILLISECONDS.toNanos(500));
      }
      assertThat(down.spans()).isZero();

      Collector second = TestCollectors.start(config(up.endpoint()), Collector.Options.defaults());
      try {
        assertThat(up.await(() -> up.spans() == 30, 30, TimeUnit.SECONDS)).isTrue();
        assertThat(BackpressureTest.spanNumbers(up))
            .containsExactlyInAnyOrderElementsOf(
                java.util.stream.IntStream.range(0, 30).boxed().toList());
        send(second, 30, 5);
        assertThat(up.await(() -> up.spans() == 35, 30, TimeUnit.SECONDS)).isTrue();
      } finally {
        second.shutdown(TimeUnit.SECONDS.toNanos(10));
      }

      // Everything was delivered and the log knows: a third collector replays nothing.
      Collector third = TestCollectors.start(config(up.endpoint()), Collector.Options.defaults());
      try {
        Thread.sleep(300);
        assertThat(up.spans()).isEqualTo(35);
      } finally {
        third.shutdown(TimeUnit.SECONDS.toNanos(10));
      }
    }
  }

  @Test
  void aStorageThatIsNotAFileStorageExtensionStopsTheStart() {
    String yaml =
        config("127.0.0.1:1")
            .replace("  extensions: [file_storage]\n", "")
            .replace(
                "extensions:\n  file_storage:\n    directory: " + directory.resolve("wal") + "\n",
                "");

    assertThatThrownBy(
            () -> TestCollectors.start(yaml, Collector.Options.defaults()).shutdown(1_000_000_000L))
        .hasMessageContaining("file_storage");
  }
}
