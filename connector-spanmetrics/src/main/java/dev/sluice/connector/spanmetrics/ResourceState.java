package dev.sluice.connector.spanmetrics;

/**
 * What is aggregated for one resource: its identity (the encoded attributes that tell resources
 * apart), the attributes its metrics carry (the full set, as first seen), and a series table per
 * metric.
 */
final class ResourceState {
  final byte[] identity;
  final long hash;

  /** The resource's attributes as {@link ValueCodec} entries: key string, then value. */
  final byte[] attributes;

  final SeriesTable calls;
  final SeriesTable duration;
  final SeriesTable events;

  /** Scheduler nanoseconds of the last span counted, for {@code metrics_expiration}. */
  long lastSeenNanos;

  /** When it was last used, in uses of its table: the least recently used is evicted first. */
  long lastUse;

  /** Evicted for room: emitted by the next flush, then forgotten. */
  boolean evicted;

  ResourceState(
      byte[] identity,
      long hash,
      byte[] attributes,
      SeriesTable calls,
      SeriesTable duration,
      SeriesTable events) {
    this.identity = identity;
    this.hash = hash;
    this.attributes = attributes;
    this.calls = calls;
    this.duration = duration;
    this.events = events;
  }

  boolean empty() {
    return calls.size() == 0
        && (duration == null || duration.size() == 0)
        && (events == null || events.size() == 0);
  }
}
