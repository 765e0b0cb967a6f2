package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.testkit.Await;
import dev.sluice.testkit.SequencedSpans;
import io.grpc.ManagedChannel;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The profiles' sizing: the default keeps a third of the heap for pipelines and the configured
 * sending threads; the sidecar a quarter (at least 4 MiB) and at most two sending threads per
 * exporter, which a running collector holds to.
 */
class SizingTest {
  private static final long MIB = 1L << 20;

  @Test
  void defaultProfileKeepsAThirdOfTheHeapAndEverySendingThread() {
    Sizing sizing = Sizing.of(Profile.DEFAULT, 256 * MIB);

    assertThat(sizing.maxPipelineBytes()).isEqualTo(256 * MIB / 3);
    assertThat(sizing.maxSendingThreads()).isEqualTo(Integer.MAX_VALUE);
  }

  @Test
  void defaultProfileMatchesTheCollectorsOwnDefaultBound() {
    assertThat(Sizing.of(Profile.DEFAULT, Runtime.getRuntime().maxMemory()).maxPipelineBytes())
        .isEqualTo(Collector.Options.defaults().maxPipelineBytes());
  }

  @Test
  void sidecarProfileKeepsAQuarterOfTheHeapAndTwoSendingThreads() {
    Sizing sizing = Sizing.of(Profile.SIDECAR, 32 * MIB);

    assertThat(sizing.maxPipelineBytes()).isEqualTo(8 * MIB);
    assertThat(sizing.maxSendingThreads()).isEqualTo(2);
  }

  @Test
  void sidecarPipelineBoundNeverFallsBelowOneLargestRequest() {
    assertThat(Sizing.of(Profile.SIDECAR, 8 * MIB).maxPipelineBytes()).isEqualTo(4 * MIB);
    assertThat(Sizing.of(Profile.SIDECAR, 16 * MIB).maxPipelineBytes()).isEqualTo(4 * MIB);
    assertThat(Sizing.of(Profile.SIDECAR, 20 * MIB).maxPipelineBytes()).isEqualTo(5 * MIB);
  }

  @Test
  void profileNamesParseAndAnUnknownOneIsRefused() {
    assertThat(Profile.parse(null)).isEqualTo(Profile.DEFAULT);
    assertThat(Profile.parse("")).isEqualTo(Profile.DEFAULT);
    assertThat(Profile.parse("sidecar")).isEqualTo(Profile.SIDECAR);
    assertThat(Profile.parse(" Sidecar ")).isEqualTo(Profile.SIDECAR);
    assertThatThrownBy(() -> Profile.parse("gateway"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown profile 'gateway'")
        .hasMessageContaining("default, sidecar");
  }

  @Test
  void commandLineBoundWinsOverTheProfilesAndTheProfileCapsThreads() {
    Main.RunOptions command = new Main.RunOptions();
    Collector.Options defaults = Collector.Options.defaults();
    Sizing sidecar = Sizing.of(Profile.SIDECAR, 32 * MIB);

    assertThat(command.options(sidecar, defaults).maxPipelineBytes()).isEqualTo(8 * MIB);
    assertThat(command.options(sidecar, defaults).maxSendingThreads()).isEqualTo(2);
    command.maxPipelineMib = 3L;
    assertThat(command.options(sidecar, defaults).maxPipelineBytes()).isEqualTo(3 * MIB);
    command.maxSendingThreads = 6;
    assertThat(command.options(sidecar, defaults).maxSendingThreads()).isEqualTo(6);
  }

  @Test
  void refusesASendingThreadCapBelowOne() {
    int code = Main.commandLine().execute("run", "--max-sending-threads", "0");

    assertThat(code).isEqualTo(Main.CONFIG_ERROR);
  }

  @Test
  void cappedExporterSendsOnNoMoreThreadsThanTheCapAndDeliversEverything() throws Exception {
    int batches = 6;
    try (OtlpSink sink = OtlpSink.start().hold()) {
      long before = sendingThreads();
      Collector collector =
          TestCollectors.start(
              TestCollectors.tracesToSink(
                      sink.endpoint(),
                      "    send_batch_size: 100\n    send_batch_max_size: 100\n    timeout: 10ms",
                      "    sending_queue:\n      num_consumers: 10\n      queue_size: 100")
                  .replace("timeout: 2s", "timeout: 60s"),
              new Collector.Options(64 * MIB, Long.MAX_VALUE / 4, 700, 2));
      ManagedChannel channel = TestCollectors.channel(collector);
      try {
        assertThat(sendingThreads() - before).isEqualTo(2);
        TraceServiceGrpc.TraceServiceBlockingStub stub = TraceServiceGrpc.newBlockingStub(channel);
        for (int i = 0; i < batches; i++) {
          stub.withDeadlineAfter(10, TimeUnit.SECONDS)
              .export(SequencedSpans.request("svc", i * 100, 100));
        }
        // Every batch is made and queued; with the sink holding each call, two are being sent.
        Await.until("two batches being sent", () -> sink.wireSizes().size() == 2);
        Thread.sleep(300);
        assertThat(sink.wireSizes()).hasSize(2);
        sink.release();
        assertThat(sink.await(() -> sink.spans() == batches * 100L, 10, TimeUnit.SECONDS)).isTrue();
      } finally {
        channel.shutdownNow();
        collector.shutdown(TimeUnit.SECONDS.toNanos(5));
      }
    }
  }

  @Test
  void uncappedExporterRunsTheConfiguredSendingThreads() throws Exception {
    try (OtlpSink sink = OtlpSink.start()) {
      long before = sendingThreads();
      Collector collector =
          TestCollectors.start(
              TestCollectors.tracesToSink(
                  sink.endpoint(), "", "    sending_queue:\n      num_consumers: 5"),
              Collector.Options.defaults());
      try {
        assertThat(sendingThreads() - before).isEqualTo(5);
      } finally {
        collector.shutdown(TimeUnit.SECONDS.toNanos(5));
      }
    }
  }

  private static long sendingThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().startsWith("sluice-exporter-otlp-"))
        .count();
  }
}
