package dev.sluice.exporter.kafka;

import static dev.sluice.exporter.kafka.TestExporters.batch;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ExportResult;
import dev.sluice.kafka.testkit.KafkaBroker;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.testkit.ServerSpans;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A bounded loopback measurement of the Kafka path on the exporter side, not part of the default
 * suite: sending threads export the same batch of 1000 HTTP server spans (~430 bytes each, ten
 * attributes, random trace IDs) to a local broker until a span count or a time bound is reached,
 * and the CPU time of the sending threads and the producer's network thread is divided by the spans
 * sent. Run with
 *
 * <pre>
 * mvn -B -q -pl exporter/kafka -am test -Dtest=KafkaExporterThroughputTest \
 *     -Dsluice.kafka.measure=true -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 *
 * Results are printed; nothing about time is asserted.
 */
@EnabledIfSystemProperty(named = "sluice.kafka.measure", matches = "true")
class KafkaExporterThroughputTest {
  private static final int SPANS_PER_BATCH = 1000;
  private static final int SENDERS = 4;
  private static final long MAX_SPANS = 1_000_000;
  private static final long MAX_NANOS = 30_000_000_000L;
  private static final long WARM_UP_BATCHES = 20;

  @RegisterExtension static final KafkaBroker BROKER = new KafkaBroker(4);

  @ParameterizedTest
  @CsvSource({"none,false", "lz4,false", "zstd,false", "lz4,true", "zstd,true"})
  void measuresSpansPerSecondAndCpuPerSpan(String compression, boolean byTraceId) throws Exception {
    String topic = "measure_" + compression + (byTraceId ? "_keyed" : "");
    BROKER.createTopic(topic, 4);
    KafkaExporter exporter =
        TestExporters.start(
            BROKER.bootstrapServers(),
            "traces: {topic: "
                + topic
                + "}\npartition_traces_by_id: "
                + byTraceId
                + "\nproducer: {compression: "
                + compression
                + ", required_acks: 1}");
    Batch batch = batch(Signal.TRACES, ServerSpans.request(SPANS_PER_BATCH, 7));
    try {
      for (int i = 0; i < WARM_UP_BATCHES; i++) {
        assertThat(exporter.export(batch, TestExporters.deadline(30)).outcome())
            .isEqualTo(ExportResult.Outcome.SUCCESS);
      }
      ThreadMXBean threads = ManagementFactory.getThreadMXBean();
      long networkCpuBefore = networkThreadCpu(threads);
      AtomicLong sent = new AtomicLong();
      AtomicLong senderCpu = new AtomicLong();
      long start = System.nanoTime();
      List<Thread> senders = new ArrayList<>();
      for (int t = 0; t < SENDERS; t++) {
        Thread sender =
            new Thread(
                () -> {
                  long cpuStart = threads.getCurrentThreadCpuTime();
                  try {
                    while (sent.get() < MAX_SPANS && System.nanoTime() - start < MAX_NANOS) {
                      ExportResult result = exporter.export(batch, TestExporters.deadline(30));
                      if (result.outcome() == ExportResult.Outcome.SUCCESS) {
                        sent.addAndGet(SPANS_PER_BATCH);
                      }
                    }
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  senderCpu.addAndGet(threads.getCurrentThreadCpuTime() - cpuStart);
                });
        sender.start();
        senders.add(sender);
      }
      for (Thread sender : senders) {
        sender.join();
      }
      long elapsed = System.nanoTime() - start;
      long networkCpu = networkThreadCpu(threads) - networkCpuBefore;
      double seconds = elapsed / 1e9;
      System.out.printf(
          "kafka exporter, %s, partition_traces_by_id=%s: %,d spans in %.1f s = %,.0f spans/s;"
              + " CPU per span: senders %.0f ns + producer I/O thread %.0f ns = %.0f ns%n",
          compression,
          byTraceId,
          sent.get(),
          seconds,
          sent.get() / seconds,
          (double) senderCpu.get() / sent.get(),
          (double) networkCpu / sent.get(),
          (double) (senderCpu.get() + networkCpu) / sent.get());
      assertThat(sent.get()).isPositive();
    } finally {
      batch.clear();
      exporter.shutdown(TestExporters.deadline(10));
    }
  }

  private static long networkThreadCpu(ThreadMXBean threads) {
    long total = 0;
    for (var info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info != null && info.getThreadName().startsWith("kafka-producer-network-thread")) {
        total += Math.max(0, threads.getThreadCpuTime(info.getThreadId()));
      }
    }
    return total;
  }
}
