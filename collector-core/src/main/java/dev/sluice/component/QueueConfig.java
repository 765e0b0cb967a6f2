package dev.sluice.component;

/**
 * An exporter's sending queue ({@code sending_queue}), with the OpenTelemetry Collector's keys and
 * defaults.
 *
 * @param enabled whether batches wait in a queue for consumer threads (otherwise each batch goes
 *     straight to one of a few sending threads, or is refused, retryably, while all are busy)
 * @param numConsumers threads sending from the queue at once
 * @param queueSize how much the queue holds, counted by {@code sizer}
 * @param sizer what {@code queue_size} counts: {@code requests}, {@code items} or {@code bytes}
 * @param blockOnOverflow accepted for compatibility; Sluice never drops on a full queue: it keeps
 *     the batch in the pipeline, whose memory bound then refuses new data at the receivers
 * @param waitForResult accepted for compatibility; receivers answer once data is in the pipeline
 * @param storage the id of a {@code file_storage} extension, or null: with one, every pipeline that
 *     feeds this exporter logs each request before it is answered, and replays what the exporter
 *     had not finished after a crash
 */
public record QueueConfig(
    boolean enabled,
    int numConsumers,
    long queueSize,
    Sizer sizer,
    boolean blockOnOverflow,
    boolean waitForResult,
    String storage)
    implements Validatable {

  public enum Sizer {
    REQUESTS,
    ITEMS,
    BYTES
  }

  public static final QueueConfig DEFAULT =
      new QueueConfig(true, 10, 1000, Sizer.REQUESTS, false, false, null);
  public static final QueueConfig DISABLED =
      new QueueConfig(false, 10, 1000, Sizer.REQUESTS, false, false, null);

  /** A disabled queue is not checked: its keys are not used. */
  @Override
  public void validate(ConfigProblems problems) {
    if (!enabled) {
      return;
    }
    if (numConsumers < 1) {
      problems.add("num_consumers", "must be at least 1, was " + numConsumers);
    }
    if (queueSize < 1) {
      problems.add("queue_size", "must be at least 1, was " + queueSize);
    }
  }
}
