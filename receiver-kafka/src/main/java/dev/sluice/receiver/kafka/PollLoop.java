package dev.sluice.receiver.kafka;

import dev.sluice.component.Admission;
import dev.sluice.component.AnswerSink;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.RequestConsumer;
import dev.sluice.component.telemetry.RateLimitedLog;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

/**
 * The consumer thread. Each fetched record is validated and offered to its signal's pipelines; the
 * answers come back on other threads and are handed to this one through a queue. The rules:
 *
 * <ul>
 *   <li>An offset is committed only when every record before it was accepted by the pipelines (a
 *       durable pipeline answers once its write-ahead log synced), skipped as malformed, or set
 *       aside (below).
 *   <li>A malformed record can never succeed: it is counted, logged (rate-limited) and marked.
 *   <li>A record refused because the pipelines are full (they say they have no room, {@link
 *       RequestConsumer#admission()}) or closing is never skipped: its partition stops offering and
 *       fetching, waits with exponential backoff from the pipelines' retry delay, and offers the
 *       same record again.
 *   <li>A record refused on its own (a pipeline threw on it, or the pipelines refused it while
 *       saying they had room: it is larger than the memory they can free) is held back: the
 *       partition goes on behind it while it is offered again with backoff. When it has been
 *       refused {@link RetryLimits#setAsideAfter()} times with other records of its signal accepted
 *       in between, it is set aside: counted per topic and partition, logged with its offset, and
 *       marked done. While nothing else is accepted (the pipelines take nothing at all), it is
 *       never set aside.
 *   <li>The bytes of records fetched and not accepted yet are bounded by {@code max_pending_bytes}
 *       plus one poll's records: at the bound every partition is paused until answers bring the
 *       held bytes below it.
 *   <li>At a rebalance, what is done in the revoked partitions is committed, and nothing more;
 *       answers for them that come later are ignored (their records will be read again by the new
 *       owner: at least once).
 * </ul>
 */
final class PollLoop implements Runnable, ConsumerRebalanceListener {
  /** The poll timeout with nothing to do but wait for records (answers wake the poll up). */
  private static final long IDLE_POLL_MILLIS = 500;

  /** The shortest wait after a refusal. */
  static final long MIN_BACKOFF_MILLIS = 10;

  /**
   * How refused records are retried.
   *
   * @param maxBackoffMillis the longest wait after a refusal
   * @param setAsideAfter refusals of a record on its own, each with other records accepted since
   *     the one before, after which it is set aside
   */
  record RetryLimits(long maxBackoffMillis, int setAsideAfter) {
    /** About 40 s of retries at the collector's default retry delay (1 s). */
    static final RetryLimits DEFAULT = new RetryLimits(5_000, 10);
  }

  /** How long the loop waits after the client failed, before polling again. */
  private static final long ERROR_BACKOFF_MILLIS = 1_000;

  private static final long LOG_INTERVAL_MILLIS = 10_000;

  private final KafkaReceiverConfig config;
  private final RetryLimits limits;
  private final Map<Signal, RequestConsumer> consumers;
  private final TopicRoutes routes;
  private final Consumer<byte[], byte[]> client;
  private final RecordDecoder decoder;
  private final KafkaReceiverMetrics metrics;
  private final OffsetCommits commits;
  private final Logger logger;
  private final RateLimitedLog malformedLog;
  private final RateLimitedLog errorLog;

  private final Map<TopicPartition, PartitionProgress> assigned = new LinkedHashMap<>();
  private final Set<TopicPartition> paused = new HashSet<>();

  /** Records the pipelines of each signal accepted, by {@link Signal#ordinal()}. */
  private final long[] acceptedRecords = new long[Signal.values().length];

  private final ConcurrentLinkedQueue<Offer> answers = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean parked = new AtomicBoolean();
  private boolean pausedForBytes;

  /** Bytes of records fetched and not done: written by this thread only. */
  private volatile long heldBytes;

  private volatile boolean running = true;
  private volatile long drainDeadlineNanos;

  /** One record offered to the pipelines, told its answer once on whatever thread. */
  private final class Offer implements AnswerSink {
    final PartitionProgress progress;
    final ConsumerRecord<byte[], byte[]> record;
    final Signal signal;
    final long units;
    volatile Admission admission;

    /** What the pipeline threw when offered the record; null if it answered. */
    volatile RuntimeException failure;

    Offer(
        PartitionProgress progress,
        ConsumerRecord<byte[], byte[]> record,
        Signal signal,
        long units) {
      this.progress = progress;
      this.record = record;
      this.signal = signal;
      this.units = units;
    }

    @Override
    public void answer(Admission answer) {
      metrics.telemetry.record(signal, answer, units);
      admission = answer;
      answers.add(this);
      if (parked.compareAndSet(true, false)) {
        client.wakeup();
      }
    }
  }

  PollLoop(
      ComponentSettings settings,
      KafkaReceiverConfig config,
      RetryLimits limits,
      Map<Signal, RequestConsumer> consumers,
      TopicRoutes routes,
      Consumer<byte[], byte[]> client) {
    this.config = config;
    this.limits = limits;
    this.consumers = consumers;
    this.routes = routes;
    this.client = client;
    this.decoder = new RecordDecoder(config.headerExtraction());
    this.logger = settings.logger();
    this.metrics = new KafkaReceiverMetrics(settings.metrics(), settings.id(), () -> heldBytes);
    this.malformedLog = new RateLimitedLog(logger, Level.WARNING, LOG_INTERVAL_MILLIS);
    this.errorLog = new RateLimitedLog(logger, Level.WARNING, LOG_INTERVAL_MILLIS);
    long intervalNanos =
        config.autocommit().enable() ? config.autocommit().interval().toNanos() : 0;
    this.commits = new OffsetCommits(client, assigned, intervalNanos, logger, errorLog);
  }

  /** Asks the loop to finish: it waits for answers until {@code deadlineNanos}, then commits. */
  void stop(long deadlineNanos) {
    drainDeadlineNanos = deadlineNanos;
    running = false;
    client.wakeup();
  }

  long heldBytes() {
    return heldBytes;
  }

  @Override
  public void run() {
    try {
      if (routes.literalOnly()) {
        client.subscribe(routes.topics(), this);
      } else {
        client.subscribe(routes.pattern(), this);
      }
      while (running) {
        try {
          step();
        } catch (RuntimeException e) {
          // A bug must not end consumption: what was not done is still not committed.
          errorLog.log("Kafka receiver loop failed, going on: " + e);
          sleepMillis(ERROR_BACKOFF_MILLIS);
        }
      }
      finish();
    } catch (RuntimeException | Error e) {
      logger.log(Level.SEVERE, "Kafka receiver stopped on an unexpected error", e);
    } finally {
      try {
        client.close(OffsetCommits.SYNC_COMMIT_TIMEOUT);
      } catch (RuntimeException e) {
        logger.log(Level.WARNING, "closing the Kafka consumer failed", e);
      }
    }
  }

  private void step() {
    long now = System.nanoTime();
    drainAnswers(now);
    long retryAtNanos = offerRecords(now);
    commits.commitIfDue(now);
    updatePauses();
    long timeoutNanos = TimeUnit.MILLISECONDS.toNanos(IDLE_POLL_MILLIS);
    if (retryAtNanos != Long.MAX_VALUE) {
      timeoutNanos = Math.max(0, Math.min(timeoutNanos, retryAtNanos - now));
    }
    timeoutNanos = Math.min(timeoutNanos, commits.nanosUntilDue(now));
    ConsumerRecords<byte[], byte[]> records;
    try {
      parked.set(true);
      if (!answers.isEmpty() || !running) {
        timeoutNanos = 0;
      }
      records = client.poll(Duration.ofNanos(timeoutNanos));
    } catch (WakeupException e) {
      return;
    } catch (KafkaException e) {
      errorLog.log("Kafka consumer poll failed, retrying: " + e);
      sleepMillis(ERROR_BACKOFF_MILLIS);
      return;
    } finally {
      parked.set(false);
    }
    for (TopicPartition partition : records.partitions()) {
      PartitionProgress progress = assigned.get(partition);
      if (progress == null) {
        continue;
      }
      for (ConsumerRecord<byte[], byte[]> record : records.records(partition)) {
        progress.fetched(record);
        heldBytes += PartitionProgress.sizeOf(record);
      }
    }
  }

  /**
   * Offers what waits in each partition until it is empty or waits out a refusal; returns when the
   * first such wait ends ({@link System#nanoTime()}), or {@link Long#MAX_VALUE} for none.
   */
  private long offerRecords(long now) {
    long retryAtNanos = Long.MAX_VALUE;
    for (PartitionProgress progress : assigned.values()) {
      ConsumerRecord<byte[], byte[]> record;
      while (running && (record = progress.nextToOffer(now)) != null) {
        offer(progress, record);
        // An answer given during the call (a refusal, say) counts before the next record.
        drainAnswers(now);
      }
      if (progress.waitsForRetry()
          && (retryAtNanos == Long.MAX_VALUE || progress.retryAtNanos() - retryAtNanos < 0)) {
        retryAtNanos = progress.retryAtNanos();
      }
    }
    return retryAtNanos;
  }

  private void offer(PartitionProgress progress, ConsumerRecord<byte[], byte[]> record) {
    TopicRoutes.Route route = routes.route(record.topic());
    RequestConsumer consumer = route == null ? null : consumers.get(route.signal());
    if (consumer == null) {
      skipMalformed(progress, record, "no signal's topics match the topic");
      return;
    }
    if (record.value() == null) {
      skipMalformed(progress, record, "the record has no value");
      return;
    }
    OtlpIndex request;
    try {
      request = decoder.decode(route.signal(), route.json(), record.value(), record.headers());
    } catch (MalformedOtlpException e) {
      skipMalformed(progress, record, e.getMessage());
      return;
    } catch (RuntimeException e) {
      // Never thrown for any input, by contract; if it is, the record could never succeed either.
      skipMalformed(progress, record, "the decoder failed: " + e);
      return;
    }
    progress.offered(record);
    Offer offer = new Offer(progress, record, route.signal(), request.unitCount());
    try {
      consumer.consume(request, offer);
    } catch (RuntimeException e) {
      // A pipeline that throws has not taken the record: a refusal of the record on its own.
      errorLog.log("a pipeline failed on a Kafka record, offering it again: " + e);
      offer.failure = e;
      offer.answer(Admission.FULL);
    }
  }

  private void skipMalformed(
      PartitionProgress progress, ConsumerRecord<byte[], byte[]> record, String why) {
    metrics.malformedRecords.increment();
    heldBytes -= progress.skipped(record);
    malformedLog.log(
        "skipping malformed record at "
            + record.topic()
            + "/"
            + record.partition()
            + " offset "
            + record.offset()
            + ": "
            + why);
  }

  private void drainAnswers(long now) {
    Offer offer;
    while ((offer = answers.poll()) != null) {
      PartitionProgress progress = offer.progress;
      if (progress.revoked()) {
        continue;
      }
      if (offer.admission == Admission.ACCEPTED) {
        heldBytes -= progress.accepted(offer.record);
        acceptedRecords[offer.signal.ordinal()]++;
      } else if (offer.admission == Admission.FAILED) {
        // A pipeline failed on it and counted it; the others that took it deliver it.
        progress.failed(offer.record);
        setAside(offer);
      } else {
        refused(offer, now);
      }
    }
  }

  private void refused(Offer offer, long now) {
    metrics.refusedRecords.increment();
    PartitionProgress progress = offer.progress;
    RequestConsumer consumer = consumers.get(offer.signal);
    // Full pipelines say so before a request is read; one they refuse while they have room, or
    // throw on, is refused for what it is.
    boolean ofItsOwn =
        offer.failure != null
            || (offer.admission == Admission.FULL && consumer.admission() == Admission.ACCEPTED);
    long delayMillis =
        backoffMillis(consumer, progress.refusalsBefore(offer.record), limits.maxBackoffMillis());
    PartitionProgress.Refusal outcome =
        progress.refused(
            offer.record,
            ofItsOwn,
            acceptedRecords[offer.signal.ordinal()],
            now + TimeUnit.MILLISECONDS.toNanos(delayMillis),
            limits.setAsideAfter());
    if (outcome == PartitionProgress.Refusal.SET_ASIDE) {
      setAside(offer);
    }
  }

  private void setAside(Offer offer) {
    ConsumerRecord<byte[], byte[]> record = offer.record;
    long bytes = PartitionProgress.sizeOf(record);
    heldBytes -= bytes;
    metrics.setAside(record.topic(), record.partition()).increment();
    String why =
        offer.admission == Admission.FAILED
            ? "a pipeline failed on it (see the pipeline's log line)"
            : "refused "
                + offer.progress.heldBackRefusals()
                + " times, other records being accepted meanwhile; "
                + (offer.failure != null
                    ? "a pipeline failed on it: " + offer.failure
                    : "the pipelines had room for other records, never for this one");
    logger.warning(
        "Set aside the record at "
            + record.topic()
            + "/"
            + record.partition()
            + " offset "
            + record.offset()
            + " ("
            + bytes
            + " bytes, "
            + offer.units
            + " "
            + offer.signal.unitName()
            + "): "
            + why
            + ". The partition goes on past it.");
  }

  /** The wait before offering a refused record again: doubling from the pipelines' delay. */
  static long backoffMillis(RequestConsumer consumer, int refusalsBefore, long maxBackoffMillis) {
    long base =
        Math.min(maxBackoffMillis, Math.max(MIN_BACKOFF_MILLIS, consumer.retryDelayMillis()));
    int doublings = Math.min(refusalsBefore, 16);
    return Math.min(maxBackoffMillis, base << doublings);
  }

  /**
   * Pauses the partitions whose records wait here (so that fetching does not pile more on them), or
   * every partition while {@code max_pending_bytes} are held; resumes the others.
   */
  private void updatePauses() {
    boolean full = heldBytes >= config.maxPendingBytes();
    if (full && !pausedForBytes) {
      metrics.fetchPauses.increment();
    }
    pausedForBytes = full;
    for (PartitionProgress progress : assigned.values()) {
      boolean pause = full || progress.hasBacklog();
      if (pause && paused.add(progress.partition)) {
        client.pause(Set.of(progress.partition));
      } else if (!pause && paused.remove(progress.partition)) {
        client.resume(Set.of(progress.partition));
      }
    }
  }

  /** Waits for the answers of records offered, then commits what is done. */
  private void finish() {
    client.pause(assigned.keySet());
    paused.addAll(assigned.keySet());
    while (hasPending() && System.nanoTime() - drainDeadlineNanos < 0) {
      drainAnswers(System.nanoTime());
      try {
        client.poll(Duration.ofMillis(10));
      } catch (KafkaException e) {
        sleepMillis(10);
      }
    }
    drainAnswers(System.nanoTime());
    commits.commitNow(assigned.values());
  }

  private boolean hasPending() {
    for (PartitionProgress progress : assigned.values()) {
      if (progress.pendingCount() > 0) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
    // Called inside poll: answers from now on must not wake up the commit below.
    parked.set(false);
    drainAnswers(System.nanoTime());
    Map<TopicPartition, PartitionProgress> revoked = new HashMap<>();
    for (TopicPartition partition : partitions) {
      PartitionProgress progress = assigned.get(partition);
      if (progress != null) {
        revoked.put(partition, progress);
      }
    }
    commits.commitNow(revoked.values());
    forget(revoked.values());
  }

  @Override
  public void onPartitionsLost(Collection<TopicPartition> partitions) {
    // Another member may own them already: committing would overwrite its progress.
    for (TopicPartition partition : partitions) {
      PartitionProgress progress = assigned.get(partition);
      if (progress != null) {
        forget(Set.of(progress));
      }
    }
  }

  private void forget(Collection<PartitionProgress> partitions) {
    for (PartitionProgress progress : partitions) {
      heldBytes -= progress.revoke();
      assigned.remove(progress.partition);
      paused.remove(progress.partition);
    }
  }

  @Override
  public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
    for (TopicPartition partition : partitions) {
      assigned.computeIfAbsent(partition, PartitionProgress::new);
    }
  }

  private static void sleepMillis(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
