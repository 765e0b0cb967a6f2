package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.kafka.testkit.KafkaBroker;
import dev.sluice.testkit.SequencedSpans;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The crash test of the {@code kafka} receiver: {@code bin/sluice} (kafka in, a durable pipeline,
 * OTLP out to a protobuf-java sink) reads a topic that a plain producer writes to all along, and is
 * killed with SIGKILL {@value #KILLS} times mid-stream, then restarted on the same write-ahead log
 * and consumer group. Every record the broker acknowledged arrives at the sink at least once;
 * duplicates (records read again after a kill) are counted and reported.
 */
class KafkaReceiverKillIT {
  @RegisterExtension static final KafkaBroker BROKER = new KafkaBroker();

  private static final int KILLS = 2;
  private static final String TOPIC = "kill_spans";
  private static final int PARTITIONS = 2;
  private static final int SPANS_PER_RECORD = 20;

  /** Bounds on the producer: it stops at whichever comes first. */
  private static final int MAX_RECORDS = 20_000;

  private static final long MAX_PRODUCE_SECONDS = 75;
  private static final long SEND_PAUSE_MILLIS = 5;

  @Test
  void everyRecordProducedArrivesAtLeastOnceThroughKills(@TempDir Path dir) throws Exception {
    BROKER.createTopic(TOPIC, PARTITIONS);
    Path launcher = Path.of("..", "bin", "sluice").toAbsolutePath().normalize();
    Random random = new Random(11);
    BitSet acknowledged = new BitSet();
    int[] sent = {0};
    int kills = 0;
    long started = System.nanoTime();
    try (OtlpSink sink = OtlpSink.start()) {
      Path config = dir.resolve("sluice.yaml");
      Files.writeString(config, config(sink.endpoint(), dir.resolve("wal")));
      AtomicBoolean stop = new AtomicBoolean();
      Thread producer = new Thread(() -> produce(sent, acknowledged, stop), "producer");
      producer.start();
      try {
        for (int run = 0; run <= KILLS; run++) {
          Path log = dir.resolve("sluice-" + run + ".log");
          Process daemon = start(launcher, config, log);
          try {
            if (run < KILLS) {
              long before = sink.spans();
              assertThat(sink.await(() -> sink.spans() > before, 45, TimeUnit.SECONDS))
                  .as("run %d consumes; its log:%n%s", run, tail(log))
                  .isTrue();
              Thread.sleep(200 + random.nextInt(800));
              daemon.destroyForcibly();
              assertThat(daemon.waitFor(30, TimeUnit.SECONDS)).isTrue();
              kills++;
            } else {
              stop.set(true);
              producer.join(30_000);
              assertThat(
                      sink.await(
                          () -> missing(delivered(sink), acknowledged).isEmpty(),
                          60,
                          TimeUnit.SECONDS))
                  .as(
                      "every acknowledged record arrives; missing %s; log:%n%s",
                      missing(delivered(sink), acknowledged), tail(log))
                  .isTrue();
              daemon.destroy();
              assertThat(daemon.waitFor(30, TimeUnit.SECONDS)).isTrue();
            }
          } finally {
            daemon.destroyForcibly();
          }
        }
      } finally {
        stop.set(true);
        producer.join(30_000);
      }

      List<Integer> arrived = BackpressureTest.spanNumbers(sink);
      BitSet distinct = new BitSet();
      int duplicates = 0;
      for (int number : arrived) {
        assertThat(number).as("only produced spans arrive").isBetween(0, sent[0] - 1);
        if (distinct.get(number)) {
          duplicates++;
        }
        distinct.set(number);
      }
      BitSet missing = missing(distinct, acknowledged);
      assertThat(missing.cardinality()).as("acknowledged spans never delivered").isZero();
      System.out.printf(
          "KafkaReceiverKillIT: %d kills, %d records (%d spans) acknowledged by the broker,"
              + " %d spans delivered, %d duplicate spans (%d records), %d s%n",
          kills,
          acknowledged.cardinality() / SPANS_PER_RECORD,
          acknowledged.cardinality(),
          distinct.cardinality(),
          duplicates,
          duplicates / SPANS_PER_RECORD,
          TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
      assertThat(kills).isEqualTo(KILLS);
      assertThat(acknowledged.cardinality()).isGreaterThan(KILLS * 10 * SPANS_PER_RECORD);
    }
  }

  /** Sends records of sequential spans until stopped; records the spans the broker acknowledged. */
  private static void produce(int[] sent, BitSet acknowledged, AtomicBoolean stop) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(MAX_PRODUCE_SECONDS);
    try (KafkaProducer<byte[], byte[]> producer =
        BROKER.producer(Map.of(ProducerConfig.LINGER_MS_CONFIG, 5))) {
      for (int record = 0;
          record < MAX_RECORDS && !stop.get() && System.nanoTime() - deadline < 0;
          record++) {
        int first = record * SPANS_PER_RECORD;
        sent[0] = first + SPANS_PER_RECORD;
        byte[] value = SequencedSpans.request("kill", first, SPANS_PER_RECORD).toByteArray();
        producer.send(
            new ProducerRecord<>(TOPIC, value),
            (metadata, error) -> {
              if (error == null) {
                synchronized (acknowledged) {
                  acknowledged.set(first, first + SPANS_PER_RECORD);
                }
              }
            });
        Thread.sleep(SEND_PAUSE_MILLIS);
      }
      producer.flush();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static BitSet missing(BitSet delivered, BitSet acknowledged) {
    synchronized (acknowledged) {
      BitSet missing = (BitSet) acknowledged.clone();
      missing.andNot(delivered);
      return missing;
    }
  }

  private static BitSet delivered(OtlpSink sink) {
    BitSet delivered = new BitSet();
    for (int number : BackpressureTest.spanNumbers(sink)) {
      delivered.set(number);
    }
    return delivered;
  }

  private static String config(String sink, Path wal) {
    return String.join(
        "\n",
        "extensions:",
        "  file_storage:",
        "    directory: " + wal,
        "    segment_size_mib: 1",
        "    max_size_mib: 256",
        "receivers:",
        "  kafka:",
        "    brokers: [" + BROKER.bootstrapServers() + "]",
        "    group_id: kill-group",
        "    initial_offset: earliest",
        // The broker's shortest: a killed member leaves the group this long after its death.
        "    session_timeout: 6s",
        "    heartbeat_interval: 1s",
        "    traces:",
        "      topics: [" + TOPIC + "]",
        "processors:",
        "  batch:",
        "    timeout: 50ms",
        "exporters:",
        "  otlp:",
        "    endpoint: " + sink,
        "    tls:",
        "      insecure: true",
        "    retry_on_failure:",
        "      initial_interval: 20ms",
        "      max_interval: 100ms",
        "    sending_queue:",
        "      storage: file_storage",
        "service:",
        "  extensions: [file_storage]",
        "  telemetry:",
        "    metrics:",
        "      level: none",
        "  pipelines:",
        "    traces:",
        "      receivers: [kafka]",
        "      processors: [batch]",
        "      exporters: [otlp]",
        "");
  }

  private static Process start(Path launcher, Path config, Path log) throws IOException {
    return new ProcessBuilder(launcher.toString(), "--config", config.toString())
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }
}
