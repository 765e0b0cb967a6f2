package dev.sluice.receiver.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchConsumer;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.RequestConsumer;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.kafka.testkit.KafkaBroker;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.MarshalContext;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.service.MemoryBudget;
import dev.sluice.service.PipelineEntry;
import dev.sluice.testkit.Await;
import dev.sluice.testkit.MetricsText;
import dev.sluice.testkit.SequencedSpans;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Records the pipelines refuse on their own (larger than the memory bound, or failed on) are set
 * aside after bounded retries, counted and logged, and the partition goes on; records refused
 * because the pipelines are full, or while they take nothing at all, are never set aside. A real
 * broker; the pipelines are the service's real entry over a real memory bound, or a test pipeline.
 */
class KafkaReceiverSetAsideTest {
  @RegisterExtension static final KafkaBroker BROKER = new KafkaBroker();

  private static final long WAIT_SECONDS = 30;
  private static final Duration WAIT = Duration.ofSeconds(WAIT_SECONDS);

  /** Checks that ask the broker (for committed offsets) are spaced out. */
  private static final Duration BROKER_POLL = Duration.ofMillis(20);

  /** Quick retries for the test: waits of at most 100 ms, set aside at the third misfit. */
  private static final PollLoop.RetryLimits LIMITS = new PollLoop.RetryLimits(100, 3);

  private static KafkaProducer<byte[], byte[]> producer;
  private static Admin admin;

  private final List<KafkaReceiver> receivers = new ArrayList<>();
  private final List<Sink> sinks = new ArrayList<>();
  private final MetricRegistry metrics = new MetricRegistry();
  private final List<String> warnings = new CopyOnWriteArrayList<>();
  private final Logger receiverLogger = Logger.getLogger("sluice.receiver.kafka");
  private final Handler capture =
      new Handler() {
        @Override
        public void publish(LogRecord record) {
          warnings.add(record.getMessage());
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  @BeforeAll
  static void clients() {
    producer = BROKER.producer(Map.of());
    admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, BROKER.bootstrapServers()));
  }

  @AfterAll
  static void closeClients() {
    producer.close();
    admin.close();
  }

  @AfterEach
  void stopReceivers() throws InterruptedException {
    for (KafkaReceiver receiver : receivers) {
      receiver.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
    }
    sinks.forEach(Sink::release);
    receiverLogger.removeHandler(capture);
  }

  private void start(String topic, RequestConsumer pipeline) throws IOException {
    receiverLogger.addHandler(capture);
    TestConfig config = new TestConfig().traces(topic);
    config.brokers = List.of(BROKER.bootstrapServers());
    config.groupId = topic + "-group";
    KafkaReceiver receiver =
        new KafkaReceiver(
            new ComponentSettings(ComponentId.parse("kafka"), ComponentKind.RECEIVER, metrics),
            config.build(),
            Map.of(Signal.TRACES, pipeline),
            KafkaConsumer::new,
            LIMITS);
    receiver.start();
    receivers.add(receiver);
  }

  private static void send(String topic, byte[] value) throws Exception {
    producer.send(new ProducerRecord<>(topic, value)).get();
  }

  private static byte[] spans(int first, int count) {
    return SequencedSpans.request("svc", first, count).toByteArray();
  }

  private static long committed(String topic) throws Exception {
    Map<TopicPartition, OffsetAndMetadata> offsets =
        admin.listConsumerGroupOffsets(topic + "-group").partitionsToOffsetAndMetadata().get();
    OffsetAndMetadata offset = offsets.get(new TopicPartition(topic, 0));
    return offset == null ? -1 : offset.offset();
  }

  private long setAside(String topic) {
    String series =
        "sluice_receiver_kafka_set_aside_records_total{receiver=\"kafka\",topic=\""
            + topic
            + "\",partition=\"0\"} ";
    return MetricsText.of(metrics)
        .lines()
        .filter(line -> line.startsWith(series))
        .mapToLong(line -> Long.parseLong(line.substring(series.length()).trim()))
        .findFirst()
        .orElse(0);
  }

  /** The pipelines' last stage: records the span numbers of each batch and lets it go. */
  private static final class Sink implements BatchConsumer {
    private final MarshalContext context = new MarshalContext();
    final List<Integer> spans = new CopyOnWriteArrayList<>();
    private final List<Batch> holding = new ArrayList<>();
    private boolean hold;

    @Override
    public synchronized Admission consume(Batch batch) {
      int size = OtlpMarshaler.marshal(batch, context);
      spans.addAll(SequencedSpans.numbers(Arrays.copyOf(context.outputArray(), size)));
      if (hold) {
        holding.add(batch);
      } else {
        batch.clear();
      }
      return Admission.ACCEPTED;
    }

    /** Keeps every batch (and so its bytes in the memory bound) until {@link #release}. */
    synchronized void hold() {
      hold = true;
    }

    synchronized void release() {
      hold = false;
      holding.forEach(Batch::clear);
      holding.clear();
    }
  }

  private Sink sink() {
    Sink sink = new Sink();
    sinks.add(sink);
    return sink;
  }

  /**
   * Sends small records one after another, each once the previous one was taken, until {@code done}
   * holds (at most 300): the traffic behind a record that is held back.
   */
  private static int keepSending(
      String topic, int firstSpan, List<Integer> taken, Await.Condition<Exception> done)
      throws Exception {
    int sent = 0;
    while (!done.holds() && sent < 300) {
      int span = firstSpan + sent;
      send(topic, spans(span, 1));
      sent++;
      Await.until("span " + span + " taken", WAIT, BROKER_POLL, () -> taken.contains(span));
    }
    return sent;
  }

  @Test
  void aRecordLargerThanTheMemoryBoundIsSetAsideAndThePartitionGoesOn() throws Exception {
    String topic = "too-large";
    BROKER.createTopic(topic, 1);
    long maxBytes = 64 << 10;
    byte[] huge = spans(1000, 2000);
    // Larger than the bound, and small enough for the broker's default record size.
    assertThat((long) huge.length).isBetween(maxBytes + 1, 900L << 10);
    Sink sink = sink();
    start(
        topic,
        new PipelineEntry(new MemoryBudget(maxBytes, Long.MAX_VALUE / 4), List.of(sink), 20));
    send(topic, spans(0, 2));
    send(topic, huge);

    int sent = keepSending(topic, 2, sink.spans, () -> setAside(topic) == 1);

    assertThat(setAside(topic)).isEqualTo(1);
    assertThat(sink.spans)
        .as("every record but the large one, the ones after it included")
        .containsExactlyElementsOf(IntStream.range(0, 2 + sent).boxed().toList());
    long end = 2 + sent;
    Await.until("committed past it", WAIT, BROKER_POLL, () -> committed(topic) == end);
    assertThat(warnings)
        .anySatisfy(
            line ->
                assertThat(line)
                    .contains("Set aside the record at too-large/0 offset 1")
                    .contains(huge.length + " bytes, 2000 spans")
                    .contains("room for other records"));
  }

  @Test
  void aRecordThePipelineAlwaysFailsOnIsSetAsideAfterBoundedRetries() throws Exception {
    String topic = "poison";
    BROKER.createTopic(topic, 1);
    byte[] poison = spans(500, 1);
    TestPipeline pipeline =
        new TestPipeline()
            .refuseWhen(
                bytes -> {
                  if (Arrays.equals(bytes, poison)) {
                    throw new IllegalStateException("a processor bug");
                  }
                  return false;
                });
    start(topic, pipeline);
    send(topic, spans(0, 1));
    send(topic, poison);

    int sent = keepSending(topic, 1, new AcceptedSpans(pipeline), () -> setAside(topic) == 1);

    assertThat(setAside(topic)).isEqualTo(1);
    long offers = pipeline.offered().stream().filter(b -> Arrays.equals(b, poison)).count();
    assertThat(offers).as("retried, a bounded number of times").isGreaterThanOrEqualTo(4);
    long end = 2 + sent;
    Await.until("committed past it", WAIT, BROKER_POLL, () -> committed(topic) == end);
    assertThat(pipeline.offered().stream().filter(b -> Arrays.equals(b, poison)).count())
        .as("never offered again")
        .isEqualTo(offers);
    assertThat(new AcceptedSpans(pipeline))
        .containsExactlyElementsOf(IntStream.range(0, 1 + sent).boxed().toList());
    assertThat(warnings)
        .anySatisfy(
            line ->
                assertThat(line)
                    .contains("Set aside the record at poison/0 offset 1")
                    .contains("a processor bug"));
  }

  @Test
  void aRecordAPipelineFailsOnIsSetAsideAtOnceAndThePartitionGoesOn() throws Exception {
    String topic = "failing";
    BROKER.createTopic(topic, 1);
    Sink sink = sink();
    java.util.concurrent.atomic.AtomicInteger offers =
        new java.util.concurrent.atomic.AtomicInteger();
    MarshalContext context = new MarshalContext();
    BatchConsumer failingOnSpan1 =
        batch -> {
          int size = OtlpMarshaler.marshal(batch, context);
          if (SequencedSpans.numbers(Arrays.copyOf(context.outputArray(), size)).contains(1)) {
            offers.incrementAndGet();
            throw new StackOverflowError("a regular expression on a long value");
          }
          return sink.consume(batch);
        };
    start(
        topic,
        new PipelineEntry(
            new MemoryBudget(1 << 20, Long.MAX_VALUE / 4), List.of(failingOnSpan1), 20));
    send(topic, spans(0, 1));
    Await.until("span 0 delivered", WAIT, BROKER_POLL, () -> sink.spans.contains(0));
    send(topic, spans(1, 1));
    send(topic, spans(2, 1));

    Await.until("the record after it", WAIT, BROKER_POLL, () -> sink.spans.contains(2));
    assertThat(setAside(topic)).isEqualTo(1);
    assertThat(offers.get()).as("offered once: failing again is certain").isEqualTo(1);
    assertThat(sink.spans).containsExactly(0, 2);
    Await.until("committed past it", WAIT, BROKER_POLL, () -> committed(topic) == 3);
    assertThat(warnings)
        .anySatisfy(
            line ->
                assertThat(line)
                    .contains("Set aside the record at failing/0 offset 1")
                    .contains("a pipeline failed on it"));
  }

  @Test
  void aFullMemoryBoundIsWaitedForAndNothingIsSetAside() throws Exception {
    String topic = "full";
    BROKER.createTopic(topic, 1);
    Sink sink = sink();
    sink.hold();
    long maxBytes = 16 << 10;
    start(
        topic,
        new PipelineEntry(new MemoryBudget(maxBytes, Long.MAX_VALUE / 4), List.of(sink), 20));
    int records = 0;
    long bytes = 0;
    while (bytes < 3 * maxBytes) {
      byte[] value = spans(records * 20, 20);
      send(topic, value);
      bytes += value.length;
      records++;
    }
    int total = records;
    // The bound fills, and the records after are refused again and again.
    Await.until("a first batch at the sink", WAIT, BROKER_POLL, () -> !sink.spans.isEmpty());
    Await.until(
        "records refused again and again",
        WAIT,
        BROKER_POLL,
        () ->
            MetricsText.of(metrics)
                .lines()
                .anyMatch(
                    l ->
                        l.startsWith("sluice_receiver_kafka_refused_records_total")
                            && Long.parseLong(l.substring(l.lastIndexOf(' ') + 1))
                                >= 4L * LIMITS.setAsideAfter()));
    assertThat(setAside(topic)).isZero();
    assertThat(committed(topic)).isLessThan(total);

    sink.release();
    Await.until("every record committed", WAIT, BROKER_POLL, () -> committed(topic) == total);
    assertThat(setAside(topic)).isZero();
    assertThat(sink.spans)
        .containsExactlyInAnyOrderElementsOf(IntStream.range(0, total * 20).boxed().toList());
  }

  @Test
  void recordsRefusedWhileNothingIsAcceptedAreNeverSetAside() throws Exception {
    String topic = "takes-nothing";
    BROKER.createTopic(topic, 1);
    // Refused although the pipelines say they have room, as a full write-ahead log refuses.
    TestPipeline pipeline = new TestPipeline().refuseOnItsOwnWhen(bytes -> true);
    start(topic, pipeline);
    send(topic, spans(0, 1));
    send(topic, spans(1, 1));
    send(topic, spans(2, 1));

    byte[] first = spans(0, 1);
    Await.until(
        "the first record refused again and again",
        WAIT,
        BROKER_POLL,
        () ->
            pipeline.offered().stream().filter(b -> Arrays.equals(b, first)).count()
                >= 4L * LIMITS.setAsideAfter());
    assertThat(setAside(topic)).isZero();
    assertThat(committed(topic)).isLessThanOrEqualTo(0);

    pipeline.refuseOnItsOwnWhen(bytes -> false);
    assertThat(pipeline.awaitAccepted(3, WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(new AcceptedSpans(pipeline)).containsExactly(0, 1, 2);
    Await.until("every record committed", WAIT, BROKER_POLL, () -> committed(topic) == 3);
    assertThat(setAside(topic)).isZero();
  }

  /** The span numbers a test pipeline accepted, in order, read when asked. */
  private static final class AcceptedSpans extends java.util.AbstractList<Integer> {
    private final TestPipeline pipeline;

    AcceptedSpans(TestPipeline pipeline) {
      this.pipeline = pipeline;
    }

    private List<Integer> now() {
      List<Integer> spans = new ArrayList<>();
      pipeline.accepted().forEach(r -> spans.addAll(SequencedSpans.numbers(r)));
      return spans;
    }

    @Override
    public Integer get(int index) {
      return now().get(index);
    }

    @Override
    public int size() {
      return now().size();
    }

    @Override
    public boolean contains(Object o) {
      return now().contains(o);
    }
  }
}
