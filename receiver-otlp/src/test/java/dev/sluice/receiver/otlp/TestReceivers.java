package dev.sluice.receiver.otlp;

import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.RequestConsumer;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Signal;
import dev.sluice.testkit.MetricsText;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Builds, starts and stops the {@link OtlpReceiver}s of this module's tests, through the factory as
 * the collector does, with only a traces consumer; and reads what they report.
 */
final class TestReceivers {
  private static final long SHUTDOWN_SECONDS = 5;

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

  /** The value of the first series of {@code metric} (a name such as {@code sluice_x_bytes}). */
  static long value(MetricRegistry metrics, String metric) {
    return Long.parseLong(
        MetricsText.of(metrics)
            .lines()
            .filter(l -> l.startsWith(metric + "{"))
            .findFirst()
            .orElseThrow()
            .replaceAll(".* ", ""));
  }
}
