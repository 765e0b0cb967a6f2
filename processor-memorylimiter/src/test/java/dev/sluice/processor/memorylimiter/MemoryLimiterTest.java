package dev.sluice.processor.memorylimiter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchConsumer;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.FunctionProcessor;
import dev.sluice.component.Processor;
import dev.sluice.component.Scheduler;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.testkit.MetricsText;
import dev.sluice.testkit.SequencedSpans;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class MemoryLimiterTest {
  private static final long MIB = 1 << 20;

  /** A clock that moves only when the test moves it; this function sets no timers. */
  private final AtomicLong nowNanos = new AtomicLong();

  private final Scheduler clock =
      new Scheduler() {
        @Override
        public long nanoTime() {
          return nowNanos.get();
        }

        @Override
        public Timer schedule(Runnable task, long delayNanos) {
          throw new UnsupportedOperationException("the memory limiter sets no timers");
        }
      };

  private final AtomicLong heapUsed = new AtomicLong();
  private final AtomicInteger heapReads = new AtomicInteger();
  private final MetricRegistry metrics = new MetricRegistry();
  private final AtomicInteger passedOn = new AtomicInteger();

  /** limit_mib 100, spike 20 by default: refuses above 80 MiB, checked every second. */
  private Processor limiter() {
    MemoryLimiterConfig config = new MemoryLimiterConfig(Duration.ofSeconds(1), 100, 0, 0, 0);
    ComponentSettings settings =
        new ComponentSettings(
            ComponentId.parse("memory_limiter"), ComponentKind.PROCESSOR, metrics, clock);
    MemoryLimiter function =
        new MemoryLimiter(
            config,
            () -> {
              heapReads.incrementAndGet();
              return heapUsed.get();
            },
            1024 * MIB,
            clock,
            settings.logger());
    BatchConsumer next =
        batch -> {
          passedOn.addAndGet((int) batch.unitCount());
          batch.clear();
          return Admission.ACCEPTED;
        };
    return new FunctionProcessor<>(settings, config, Signal.TRACES, function, next);
  }

  private static Batch spans(int count) {
    return Batch.of(SequencedSpans.indexed("a", 0, count));
  }

  @Test
  void refusesWhileTheHeapIsAboveTheSoftLimitAndReadsItOncePerCheckInterval() {
    Processor limiter = limiter();
    heapUsed.set(50 * MIB);
    assertThat(limiter.consume(spans(3))).isEqualTo(Admission.ACCEPTED);

    heapUsed.set(90 * MIB);
    // Within the interval the last reading holds.
    assertThat(limiter.consume(spans(3))).isEqualTo(Admission.ACCEPTED);
    assertThat(heapReads).hasValue(1);

    nowNanos.addAndGet(TimeUnit.SECONDS.toNanos(1));
    assertThat(limiter.consume(spans(4))).isEqualTo(Admission.FULL);
    heapUsed.set(10 * MIB);
    assertThat(limiter.consume(spans(4))).isEqualTo(Admission.FULL);

    nowNanos.addAndGet(TimeUnit.SECONDS.toNanos(1));
    assertThat(limiter.consume(spans(5))).isEqualTo(Admission.ACCEPTED);
    assertThat(heapReads).hasValue(3);
    assertThat(passedOn).hasValue(11);
  }

  @Test
  void countsRefusedItemsAsIncomingButNotOutgoing() throws Exception {
    Processor limiter = limiter();
    heapUsed.set(90 * MIB);

    assertThat(limiter.consume(spans(7))).isEqualTo(Admission.FULL);

    assertThat(MetricsText.of(metrics))
        .contains(
            "otelcol_processor_incoming_items_total{processor=\"memory_limiter\","
                + "otel_signal=\"traces\"} 7")
        .contains(
            "otelcol_processor_outgoing_items_total{processor=\"memory_limiter\","
                + "otel_signal=\"traces\"} 0");
  }
}
