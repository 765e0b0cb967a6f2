package dev.sluice.exporter.kafka;

import dev.sluice.component.ExportResult;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.RetriableException;

/**
 * The records of one export: handed to the producer as they are cut, then waited for. The export
 * succeeds only when the broker acknowledged every record at the configured {@code acks} before the
 * deadline. A failure is retryable when the Kafka client says so ({@link RetriableException}: a
 * broker down or moving, a timeout, not enough replicas) or when the deadline passed, and permanent
 * otherwise (a record too large for the broker, authorization, an invalid topic), as the Collector
 * maps the client's errors.
 *
 * <p>Keyed records are placed by {@link GoPartitioning}; the others by the client's own sticky
 * partitioner. One per sending thread at a time; reused.
 */
final class Delivery implements RecordSink {
  private final List<Future<RecordMetadata>> pending = new ArrayList<>();
  private Producer<byte[], byte[]> producer;
  private String topic;
  private RuntimeException sendFailure;
  private long records;
  private long valueBytes;

  void begin(Producer<byte[], byte[]> producer, String topic) {
    this.producer = producer;
    this.topic = topic;
    pending.clear();
    sendFailure = null;
    records = 0;
    valueBytes = 0;
  }

  @Override
  public void send(byte[] key, byte[] value) {
    if (sendFailure != null) {
      return;
    }
    try {
      Integer partition = key == null ? null : partitionOf(key);
      pending.add(producer.send(new ProducerRecord<>(topic, partition, key, value)));
      records++;
      valueBytes += value.length;
    } catch (InterruptException e) {
      Thread.currentThread().interrupt();
      sendFailure = e;
    } catch (KafkaException | IllegalStateException e) {
      // Metadata not had within max.block.ms, a full buffer, the producer closed.
      sendFailure = e;
    }
  }

  @Override
  public boolean accepting() {
    return sendFailure == null;
  }

  /** Records handed to the producer in this export. */
  long records() {
    return records;
  }

  /** Bytes of their values. */
  long valueBytes() {
    return valueBytes;
  }

  /** Waits for every record until {@code deadlineNanos} and says how the export went. */
  ExportResult await(long deadlineNanos) throws InterruptedException {
    Throwable permanent = null;
    Throwable retryable = sendFailure;
    int unacknowledged = 0;
    for (Future<RecordMetadata> future : pending) {
      try {
        if (deadlineNanos == Long.MAX_VALUE) {
          future.get();
        } else {
          future.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof RetriableException) {
          retryable = retryable == null ? cause : retryable;
        } else {
          permanent = permanent == null ? cause : permanent;
        }
      } catch (TimeoutException e) {
        unacknowledged++;
      }
    }
    pending.clear();
    producer = null;
    if (sendFailure != null
        && !(sendFailure instanceof RetriableException)
        && !(sendFailure instanceof IllegalStateException)
        && !(sendFailure instanceof InterruptException)) {
      permanent = permanent == null ? sendFailure : permanent;
    }
    if (permanent != null) {
      return ExportResult.permanent(describe(permanent));
    }
    if (retryable != null) {
      return ExportResult.retryable(describe(retryable), 0);
    }
    if (unacknowledged > 0) {
      return ExportResult.retryable(
          unacknowledged + " records to " + topic + " were not acknowledged before the deadline",
          0);
    }
    return ExportResult.SUCCESS;
  }

  private int partitionOf(byte[] key) {
    List<PartitionInfo> partitions = producer.partitionsFor(topic);
    return GoPartitioning.partition(key, partitions.size());
  }

  private String describe(Throwable failure) {
    return "sending to topic "
        + topic
        + " failed: "
        + failure.getClass().getSimpleName()
        + ": "
        + failure.getMessage();
  }
}
