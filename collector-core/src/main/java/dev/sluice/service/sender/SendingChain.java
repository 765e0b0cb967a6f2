package dev.sluice.service.sender;

import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Exporter;
import dev.sluice.component.ExporterConfig;
import dev.sluice.component.Host;
import dev.sluice.component.QueueConfig;
import dev.sluice.service.SharedBatch;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One exporter behind its senders, as the OpenTelemetry Collector's exporter helper composes them:
 * {@link QueueSender} (the sending queue, or the direct stage without one) -> {@link RetrySender}
 * -> {@link TimeoutSender} -> the exporter's own send. Shared by every pipeline that lists the
 * exporter; the pipeline's {@code Fanout} offers batches with {@link #hasCapacity()} and {@link
 * #send}, which never block.
 *
 * <p>Without a sending queue ({@code sending_queue.enabled: false}) a batch is taken only while one
 * of {@link #DIRECT_SENDS} sending threads is free, and sent at once; otherwise it is refused and
 * stays with the pipeline. Either way the receivers' event loops and the batch timers never wait on
 * the network or on a retry delay.
 */
public final class SendingChain {
  /**
   * Without a sending queue, the sends in flight at once per exporter (one per sending thread).
   * Enough to keep a destination busy from a few pipelines; more in flight is what the sending
   * queue's {@code num_consumers} is for.
   */
  public static final int DIRECT_SENDS = 4;

  /** A durable exporter's in-memory queue length, in its sizer's units. */
  public static final String MEMORY_QUEUE_SIZE = "sluice_exporter_memory_queue_size";

  /** A durable exporter's in-memory {@code queue_size}, in its sizer's units. */
  public static final String MEMORY_QUEUE_CAPACITY = "sluice_exporter_memory_queue_capacity";

  private final Exporter exporter;
  private final QueueSender head;
  private final RetrySender retry;

  public SendingChain(ComponentSettings settings, Exporter exporter, ExporterConfig config) {
    this.exporter = exporter;
    ExporterTelemetry telemetry = new ExporterTelemetry(settings.metrics(), settings.id());
    TimeoutSender attempt =
        new TimeoutSender(
            exporter, config.timeout().toNanos(), settings.scheduler(), settings.logger());
    this.retry =
        new RetrySender(
            config.retryOnFailure(),
            attempt,
            settings.scheduler(),
            () -> ThreadLocalRandom.current().nextDouble(),
            telemetry,
            settings.logger());
    QueueConfig queue = config.sendingQueue();
    String threadName = "sluice-exporter-" + settings.id();
    if (queue.enabled()) {
      head = QueueSender.queued(queue, retry, telemetry, settings.logger(), threadName);
      String id = settings.id().toString();
      String sizer = queue.sizer().name().toLowerCase(Locale.ROOT);
      // With storage the exporter's queue is the write-ahead log, whose figures take the
      // OpenTelemetry Collector's names (DurableLog); the in-memory queue in front of the sending
      // threads keeps its own under Sluice's.
      boolean durable = queue.storage() != null;
      settings
          .metrics()
          .gauge(
              durable ? MEMORY_QUEUE_SIZE : "otelcol_exporter_queue_size",
              "Current size of the "
                  + (durable ? "in-memory " : "retry ")
                  + "queue (in "
                  + sizer
                  + ")",
              head::queued,
              "exporter",
              id);
      settings
          .metrics()
          .gauge(
              durable ? MEMORY_QUEUE_CAPACITY : "otelcol_exporter_queue_capacity",
              "Fixed capacity of the "
                  + (durable ? "in-memory " : "retry ")
                  + "queue (in "
                  + sizer
                  + ")",
              head::capacity,
              "exporter",
              id);
    } else {
      head =
          QueueSender.direct(
              DIRECT_SENDS, retry, telemetry, settings.logger(), threadName + "-direct");
    }
  }

  public void start() throws Exception {
    start(Host.NONE);
  }

  /** Starts the exporter with the running extensions, then the sending threads. */
  public void start(Host host) throws Exception {
    exporter.start(host);
    head.start();
  }

  /** Whether a batch offered now would be taken. */
  public boolean hasCapacity() {
    return head.hasCapacity();
  }

  /**
   * Takes one share of a batch, released once it is sent or dropped; never blocks. Call after
   * {@link #hasCapacity()}.
   */
  public void send(SharedBatch shared) {
    head.send(shared);
  }

  /** Units waiting in the sending queue (batches waiting for a thread without one). */
  public long queued() {
    return head.queued();
  }

  /**
   * Takes nothing more, sends what waits until the deadline (no retry is waited for past it), then
   * stops the threads and the exporter; what is left is dropped and counted.
   */
  public void shutdown(long deadlineNanos) throws InterruptedException {
    retry.stopBy(deadlineNanos);
    head.shutdown(deadlineNanos);
    exporter.shutdown(deadlineNanos);
  }
}
