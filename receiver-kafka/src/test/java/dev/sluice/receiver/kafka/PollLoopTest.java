package dev.sluice.receiver.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Signal;
import dev.sluice.testkit.Await;
import dev.sluice.testkit.MetricsText;
import dev.sluice.testkit.SequencedSpans;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The commit, retry, rebalance and memory rules of the consumer loop, against the client's own
 * {@link MockConsumer}, where each answer's timing is the test's to choose.
 */
class PollLoopTest {
  private static final String TOPIC = "otlp_spans";
  private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
  private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);
  private static final long WAIT_SECONDS = 10;

  /** A mock whose poll waits a little, as a real one does, so that the loop does not spin. */
  static final class PacedMockConsumer extends MockConsumer<byte[], byte[]> {
    /** The offsets committed last, readable after the consumer closed. */
    final Map<TopicPartition, Long> commits = new java.util.concurrent.ConcurrentHashMap<>();

    PacedMockConsumer() {
      super("earliest");
    }

    @Override
    public synchronized void commitAsync(
        Map<TopicPartition, OffsetAndMetadata> offsets,
        org.apache.kafka.clients.consumer.OffsetCommitCallback callback) {
      offsets.forEach((p, o) -> commits.put(p, o.offset()));
      super.commitAsync(offsets, callback);
    }

    @Override
    public synchronized void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
      offsets.forEach((p, o) -> commits.put(p, o.offset()));
      super.commitSync(offsets);
    }

    @Override
    public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
      try {
        Thread.sleep(Math.min(timeout.toMillis(), 2));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return super.poll(timeout);
    }
  }

  private final PacedMockConsumer mock = new PacedMockConsumer();
  private final TestPipeline pipeline = new TestPipeline();
  private final MetricRegistry metrics = new MetricRegistry();
  private KafkaReceiver receiver;

  @AfterEach
  void stop() throws InterruptedException {
    if (receiver != null) {
      receiver.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
    }
  }

  private void start(TestConfig config, TopicPartition... partitions) throws Exception {
    start(config, PollLoop.RetryLimits.DEFAULT, partitions);
  }

  private void start(TestConfig config, PollLoop.RetryLimits limits, TopicPartition... partitions)
      throws Exception {
    receiver =
        new KafkaReceiver(
            new ComponentSettings(ComponentId.parse("kafka"), ComponentKind.RECEIVER, metrics),
            config.traces(TOPIC).build(),
            Map.of(Signal.TRACES, pipeline),
            properties -> mock,
            limits);
    receiver.start();
    CountDownLatch assigned = new CountDownLatch(1);
    mock.schedulePollTask(
        () -> {
          mock.rebalance(List.of(partitions));
          Map<TopicPartition, Long> beginning = new java.util.HashMap<>();
          for (TopicPartition p : partitions) {
            beginning.put(p, 0L);
          }
          mock.updateBeginningOffsets(beginning);
          assigned.countDown();
        });
    assertThat(assigned.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
  }

  private void produce(TopicPartition partition, long offset, byte[] value) {
    mock.schedulePollTask(
        () ->
            mock.addRecord(
                new ConsumerRecord<>(
                    partition.topic(), partition.partition(), offset, null, value)));
  }

  private static byte[] spans(int first, int count) {
    return SequencedSpans.request("svc", first, count).toByteArray();
  }

  private long committed(TopicPartition partition) {
    return mock.commits.getOrDefault(partition, -1L);
  }

  @Test
  void commitsOnlyUpToTheFirstRecordNotYetAccepted() throws Exception {
    pipeline.hold();
    start(new TestConfig(), P0);
    for (int i = 0; i < 5; i++) {
      produce(P0, i, spans(i, 1));
    }
    assertThat(pipeline.awaitOffered(5, WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();

    pipeline.answerHeld(2);
    Await.until("offset 2 committed", () -> committed(P0) == 2);
    Thread.sleep(100);
    assertThat(committed(P0)).as("records 2..4 have no answer yet").isEqualTo(2);

    pipeline.release();
    Await.until("offset 5 committed", () -> committed(P0) == 5);
  }

  @Test
  void refusedRecordPausesItsPartitionAndIsOfferedAgainNeverSkipped() throws Exception {
    byte[] refusedOnce = spans(100, 1);
    int[] refusals = {0};
    pipeline.refuseWhen(
        bytes -> {
          if (java.util.Arrays.equals(bytes, refusedOnce) && refusals[0] < 3) {
            refusals[0]++;
            return true;
          }
          return false;
        });
    start(new TestConfig(), P0, P1);
    produce(P0, 0, spans(0, 1));
    produce(P0, 1, refusedOnce);
    produce(P0, 2, spans(2, 1));
    produce(P1, 0, spans(50, 1));
    Await.until("the other partition goes on", () -> committed(P1) == 1);
    assertThat(pipeline.awaitAccepted(4, WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    Await.until("offset 3 committed after the retries", () -> committed(P0) == 3);

    List<List<Integer>> offeredSpans =
        pipeline.offered().stream().map(SequencedSpans::numbers).toList();
    assertThat(offeredSpans.stream().filter(s -> s.equals(List.of(100))).count())
        .as("the refused record is offered until accepted")
        .isEqualTo(4);
    assertThat(pipeline.accepted().stream().map(SequencedSpans::numbers).flatMap(List::stream))
        .containsExactlyInAnyOrder(0, 100, 2, 50);
    assertThat(MetricsText.of(metrics))
        .contains("sluice_receiver_kafka_refused_records_total{receiver=\"kafka\"} 3");
  }

  @Test
  void refusalKeepsTheCommitBelowTheRefusedRecordAndPausesThePartition() throws Exception {
    byte[] refused = spans(7, 1);
    pipeline.refuseWhen(bytes -> java.util.Arrays.equals(bytes, refused));
    start(new TestConfig(), P0);
    produce(P0, 0, spans(0, 1));
    produce(P0, 1, refused);
    produce(P0, 2, spans(2, 1));
    Await.until("offset 1 committed", () -> committed(P0) == 1);
    Await.until("partition paused", () -> mock.paused().contains(P0));
    Thread.sleep(200);
    assertThat(committed(P0)).isEqualTo(1);
    assertThat(pipeline.accepted().stream().map(SequencedSpans::numbers).flatMap(List::stream))
        .as("nothing after the refused record is offered while it waits")
        .containsExactly(0);

    pipeline.refuseWhen(bytes -> false);
    Await.until("offset 3 committed", () -> committed(P0) == 3);
    Await.until("partition resumed", () -> !mock.paused().contains(P0));
  }

  @Test
  void aRecordRefusedOnItsOwnIsHeldBackTheOthersPassAndTheCommitWaitsBelowIt() throws Exception {
    byte[] misfit = spans(7, 1);
    pipeline.refuseOnItsOwnWhen(bytes -> java.util.Arrays.equals(bytes, misfit));
    // Never set aside here: only the holding back is under test.
    start(new TestConfig(), new PollLoop.RetryLimits(50, Integer.MAX_VALUE), P0);
    produce(P0, 0, spans(0, 1));
    produce(P0, 1, misfit);
    produce(P0, 2, spans(2, 1));
    produce(P0, 3, spans(3, 1));
    assertThat(pipeline.awaitAccepted(3, WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(pipeline.accepted().stream().map(SequencedSpans::numbers).flatMap(List::stream))
        .as("the records after it go on")
        .containsExactly(0, 2, 3);
    Await.until("offset 1 committed", () -> committed(P0) == 1);
    Await.until("offered again", () -> pipeline.offered().size() >= 6);
    assertThat(committed(P0)).as("nothing past the held-back record").isEqualTo(1);
    assertThat(mock.paused()).as("fetching goes on behind it").doesNotContain(P0);

    pipeline.refuseOnItsOwnWhen(bytes -> false);
    Await.until("offset 4 committed", () -> committed(P0) == 4);
    assertThat(pipeline.accepted().stream().map(SequencedSpans::numbers).flatMap(List::stream))
        .containsExactly(0, 2, 3, 7);
    assertThat(MetricsText.of(metrics)).doesNotContain("sluice_receiver_kafka_set_aside_records");
  }

  @Test
  void malformedRecordIsCountedAndSkippedAndTheOnesAroundItArrive() throws Exception {
    start(new TestConfig(), P0);
    produce(P0, 0, spans(0, 2));
    produce(P0, 1, new byte[] {(byte) 0x0a, (byte) 0x05, 1});
    produce(P0, 2, null);
    produce(P0, 3, spans(2, 2));
    Await.until("offset 4 committed", () -> committed(P0) == 4);
    assertThat(pipeline.accepted().stream().map(SequencedSpans::numbers).flatMap(List::stream))
        .containsExactly(0, 1, 2, 3);
    String text = MetricsText.of(metrics);
    assertThat(text)
        .contains("sluice_receiver_kafka_malformed_records_total{receiver=\"kafka\"} 2");
    assertThat(text)
        .contains(
            "otelcol_receiver_accepted_spans_total{receiver=\"kafka\",transport=\"kafka\"} 4");
  }

  @Test
  void revokedPartitionCommitsWhatIsDoneAndIgnoresLaterAnswers() throws Exception {
    pipeline.hold();
    start(new TestConfig(), P0);
    for (int i = 0; i < 4; i++) {
      produce(P0, i, spans(i, 1));
    }
    assertThat(pipeline.awaitOffered(4, WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    pipeline.answerHeld(2);
    CountDownLatch revoked = new CountDownLatch(1);
    // Let the loop take the two answers before the rebalance.
    long unanswered = spans(2, 1).length + spans(3, 1).length;
    Await.until("two answers drained", () -> receiver.loop().heldBytes() == unanswered);
    mock.schedulePollTask(
        () -> {
          mock.rebalance(List.of());
          revoked.countDown();
        });
    assertThat(revoked.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(committed(P0)).isEqualTo(2);

    pipeline.release();
    Thread.sleep(200);
    assertThat(committed(P0)).as("answers after the revocation commit nothing").isEqualTo(2);
    assertThat(receiver.loop().heldBytes()).isZero();
  }

  @Test
  void stopsFetchingAtMaxPendingBytesAndResumesWhenAnswered() throws Exception {
    long threeRecords = spans(0, 1).length + spans(1, 1).length + spans(2, 1).length;
    TestConfig config = new TestConfig();
    config.maxPendingBytes = threeRecords;
    config.maxPollRecords = 1;
    pipeline.hold();
    mock.setMaxPollRecords(1);
    start(config, P0);
    for (int i = 0; i < 10; i++) {
      produce(P0, i, spans(i, 1));
    }
    assertThat(pipeline.awaitOffered(3, WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    Await.until("every partition paused", () -> mock.paused().contains(P0));
    Thread.sleep(200);
    assertThat(pipeline.offered()).as("no fetch past the bound").hasSize(3);
    assertThat(receiver.loop().heldBytes()).isEqualTo(threeRecords);
    assertThat(MetricsText.of(metrics))
        .contains("sluice_receiver_kafka_fetch_pauses_total{receiver=\"kafka\"} 1");

    pipeline.release();
    assertThat(pipeline.awaitAccepted(10, WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    Await.until("offset 10 committed", () -> committed(P0) == 10);
    assertThat(pipeline.accepted().stream().map(SequencedSpans::numbers).flatMap(List::stream))
        .containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
  }

  @Test
  void aPipelineThatThrowsIsTreatedAsARefusalAndNothingIsSkipped() throws Exception {
    int[] calls = {0};
    pipeline.refuseWhen(
        bytes -> {
          if (calls[0]++ < 2) {
            throw new IllegalStateException("a pipeline bug");
          }
          return false;
        });
    start(new TestConfig(), P0);
    produce(P0, 0, spans(0, 1));
    produce(P0, 1, spans(1, 1));
    Await.until("offset 2 committed", () -> committed(P0) == 2);
    assertThat(pipeline.accepted().stream().map(SequencedSpans::numbers).flatMap(List::stream))
        .containsExactly(0, 1);
  }

  @Test
  void stopWaitsForAnswersAndCommitsThem() throws Exception {
    pipeline.hold();
    start(new TestConfig(), P0);
    produce(P0, 0, spans(0, 1));
    produce(P0, 1, spans(1, 1));
    assertThat(pipeline.awaitOffered(2, WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    Thread answering =
        new Thread(
            () -> {
              try {
                Thread.sleep(100);
              } catch (InterruptedException e) {
                return;
              }
              pipeline.answerHeld(1);
            });
    answering.start();
    // The drain lasts the receiver's grace (2 s), not 1 s: an answer 100 ms in still comes within
    // it on a busy machine.
    receiver.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
    receiver = null;
    answering.join();
    Await.until("consumer closed after the drain deadline", mock::closed);
    assertThat(committed(P0)).as("the answered record, not the other").isEqualTo(1);
  }
}
