package dev.sluice.receiver.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.RequestConsumer;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.otlp.Signal;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Builds, starts and stops the {@link OtlpReceiver}s of this module's tests, through the factory as
 * the collector does, with only a traces consumer; and reads what they report.
 */
final class TestReceivers {
  private static final long SHUTDOWN_SECONDS = 5;
  private static final long AWAIT_SECONDS = 10;
  private static final long POLL_MILLIS = 10;

  private TestReceivers() {}

  /** A receiver with these servers (either may be null) feeding {@code traces}, not started. */
  static OtlpReceiver create(
      MetricRegistry metrics,
      GrpcServerConfig grpc,
      HttpServerConfig http,
      RequestConsumer traces) {
    Map<Signal, RequestConsumer> consumers = new EnumMap<>(Signal.class);
    consumers.put(Signal.TRACES, traces);
    return (OtlpReceiver)
        new OtlpReceiverFactory()
            .create(
                new ComponentSettings(ComponentId.parse("otlp"), ComponentKind.RECEIVER, metrics),
                new OtlpReceiverConfig(new OtlpReceiverConfig.Protocols(grpc, http)),
                consumers);
  }

  /** {@link #create}, then started without extensions. */
  static OtlpReceiver start(
      MetricRegistry metrics, GrpcServerConfig grpc, HttpServerConfig http, RequestConsumer traces)
      throws Exception {
    OtlpReceiver receiver = create(metrics, grpc, http, traces);
    receiver.start();
    return receiver;
  }

  /** Stops {@code receiver} (if there is one) within a few seconds. */
  static void shutdown(OtlpReceiver receiver) throws InterruptedException {
    if (receiver != null) {
      receiver.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(SHUTDOWN_SECONDS));
    }
  }

  /** The registry in Prometheus' text format. */
  static String prometheus(MetricRegistry metrics) {
    StringWriter out = new StringWriter();
    try {
      metrics.writePrometheus(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  /** The value of the first series of {@code metric} (a name such as {@code sluice_x_bytes}). */
  static long value(MetricRegistry metrics, String metric) {
    return Long.parseLong(
        prometheus(metrics)
            .lines()
            .filter(l -> l.startsWith(metric + "{"))
            .findFirst()
            .orElseThrow()
            .replaceAll(".* ", ""));
  }

  /** Waits until {@code condition} holds, failing after a bounded wait. */
  static void awaitTrue(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(AWAIT_SECONDS);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime() - deadline).as("waited " + AWAIT_SECONDS + " s").isNegative();
      Thread.sleep(POLL_MILLIS);
    }
  }
}
