package dev.sluice.receiver.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.OperatingSystemMXBean;
import dev.sluice.component.Admission;
import dev.sluice.component.AnswerSink;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.RequestConsumer;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.kafka.testkit.KafkaBroker;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.testkit.ServerSpans;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A bounded loopback measurement of the Kafka path on the receiver side, not part of the default
 * suite. A topic is filled with {@value #WARM_UP_RECORDS} + {@value #RECORDS} records of 1000 HTTP
 * server spans each (~510 bytes a span on the wire, ten attributes, random trace IDs: the exporter
 * side's shape), compressed by the producer as asked; then the receiver reads it, as a new group
 * from the earliest offset, into a pipeline that counts the spans and accepts at once. After the
 * warm-up records, the wall time and the CPU time of the receiver's threads (its poll thread, which
 * fetches, decompresses, validates and offers, and the consumer's heartbeat thread) are divided by
 * the spans read; the process's CPU (with GC and the compiler) is printed beside them. Run with
 *
 * <pre>
 * mvn -B -q -pl receiver/kafka -am test -Dtest=KafkaReceiverThroughputTest \
 *     -Dsluice.kafka.measure=true -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 *
 * Results are printed, the second round of each case being the one to read; nothing about time is
 * asserted.
 */
@EnabledIfSystemProperty(named = "sluice.kafka.measure", matches = "true")
class KafkaReceiverThroughputTest {
  private static final int SPANS_PER_RECORD = 1000;
  private static final int WARM_UP_RECORDS = 100;
  private static final int RECORDS = 1000;
  private static final int PARTITIONS = 4;
  private static final long MAX_READ_SECONDS = 90;
  private static final long SHUTDOWN_SECONDS = 10;

  /** Distinct record values, cycled, so that no batch compresses against a copy of itself. */
  private static final int DISTINCT_VALUES = 8;

  private static final String RECEIVER_THREAD = "sluice-kafka-";
  private static final String HEARTBEAT_THREAD = "kafka-coordinator-heartbeat-thread";

  @RegisterExtension static final KafkaBroker BROKER = new KafkaBroker(PARTITIONS);

  /**
   * Each case runs twice, in turn, so that the second round's figures are taken with the compiler's
   * work done; the first round of the first case pays for it.
   */
  private static final Map<String, Integer> ROUNDS = new java.util.concurrent.ConcurrentHashMap<>();

  @ParameterizedTest
  @ValueSource(strings = {"none", "lz4", "zstd", "none", "lz4", "zstd"})
  void measuresSpansPerSecondAndCpuPerSpan(String compression) throws Exception {
    int round = ROUNDS.merge(compression, 1, Integer::sum);
    String topic = "receive_" + compression + "_" + round;
    BROKER.createTopic(topic, PARTITIONS);
    byte[][] values = new byte[DISTINCT_VALUES][];
    for (int v = 0; v < DISTINCT_VALUES; v++) {
      values[v] = ServerSpans.request(SPANS_PER_RECORD, v).toByteArray();
    }
    // A record of ~430 KB is larger than the producer's batch.size (16 KiB), so each record is
    // its own batch, compressed alone, as the exporter's records of this size are.
    try (KafkaProducer<byte[], byte[]> producer =
        BROKER.producer(Map.of(ProducerConfig.COMPRESSION_TYPE_CONFIG, compression))) {
      for (int r = 0; r < WARM_UP_RECORDS + RECORDS; r++) {
        producer.send(
            new ProducerRecord<>(topic, r % PARTITIONS, null, values[r % DISTINCT_VALUES]));
      }
      producer.flush();
    }

    CountingPipeline pipeline = new CountingPipeline((long) WARM_UP_RECORDS * SPANS_PER_RECORD);
    TestConfig config = new TestConfig().traces(topic);
    config.brokers = List.of(BROKER.bootstrapServers());
    config.groupId = "measure-" + topic;
    KafkaReceiver receiver =
        new KafkaReceiver(
            new ComponentSettings(
                ComponentId.parse("kafka"), ComponentKind.RECEIVER, new MetricRegistry()),
            config.build(),
            Map.of(Signal.TRACES, pipeline));
    long total = (long) (WARM_UP_RECORDS + RECORDS) * SPANS_PER_RECORD;
    receiver.start();
    try {
      assertThat(pipeline.awaitSpans(total, MAX_READ_SECONDS))
          .as("spans read: %d of %d", pipeline.spans(), total)
          .isTrue();
      long spans = total - pipeline.warmUpSpans;
      long receiverCpu = receiverThreadsCpu() - pipeline.receiverCpuAtWarmUp;
      long processCpu = processCpu() - pipeline.processCpuAtWarmUp;
      double seconds = (pipeline.lastNanos - pipeline.nanosAtWarmUp) / 1e9;
      System.out.printf(
          "kafka receiver, %s, round %d: %,d spans (%,d records) in %.2f s = %,.0f spans/s; CPU per span:"
              + " receiver threads %.0f ns, whole process %.0f ns; %,d bytes a record%n",
          compression,
          round,
          spans,
          RECORDS,
          seconds,
          spans / seconds,
          (double) receiverCpu / spans,
          (double) processCpu / spans,
          values[0].length);
    } finally {
      receiver.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(SHUTDOWN_SECONDS));
    }
  }

  /** CPU time of the receiver's poll thread and the consumer's heartbeat thread. */
  static long receiverThreadsCpu() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long total = 0;
    for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info != null
          && (info.getThreadName().startsWith(RECEIVER_THREAD)
              || info.getThreadName().startsWith(HEARTBEAT_THREAD))) {
        total += Math.max(0, threads.getThreadCpuTime(info.getThreadId()));
      }
    }
    return total;
  }

  static long processCpu() {
    return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /**
   * Counts the spans offered and accepts each request at once, on the receiver's thread. When the
   * warm-up spans are in, it notes the time and the CPU used so far.
   */
  static final class CountingPipeline implements RequestConsumer {
    final long warmUpSpans;
    private long spans;
    volatile long nanosAtWarmUp;
    volatile long receiverCpuAtWarmUp;
    volatile long processCpuAtWarmUp;
    volatile long lastNanos;

    CountingPipeline(long warmUpSpans) {
      this.warmUpSpans = warmUpSpans;
    }

    @Override
    public Admission consume(OtlpIndex request) {
      throw new UnsupportedOperationException("receivers offer with an answer sink");
    }

    @Override
    public void consume(OtlpIndex request, AnswerSink answer) {
      long before;
      long after;
      synchronized (this) {
        before = spans;
        spans += request.itemCount();
        after = spans;
        notifyAll();
      }
      long now = System.nanoTime();
      if (before < warmUpSpans && after >= warmUpSpans) {
        nanosAtWarmUp = now;
        receiverCpuAtWarmUp = receiverThreadsCpu();
        processCpuAtWarmUp = processCpu();
      }
      lastNanos = now;
      answer.answer(Admission.ACCEPTED);
    }

    @Override
    public long retryDelayMillis() {
      return 20;
    }

    synchronized long spans() {
      return spans;
    }

    synchronized boolean awaitSpans(long count, long seconds) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
      while (spans < count) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
      return true;
    }
  }
}
