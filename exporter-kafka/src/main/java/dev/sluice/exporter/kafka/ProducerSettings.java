package dev.sluice.exporter.kafka;

import dev.sluice.component.ConfigProblems;
import dev.sluice.component.GoDuration;
import dev.sluice.component.Validatable;
import java.time.Duration;
import java.util.List;

/**
 * The {@code producer} section, with the Collector's keys and defaults.
 *
 * @param maxMessageBytes the most bytes of one record (key and value); larger batches are split,
 *     and an item larger than this alone is dropped and counted
 * @param requiredAcks {@code 1} (the leader wrote it; the default), {@code -1} or {@code all}
 *     (every in-sync replica did; recommended), or {@code 0} (no answer waited for)
 * @param compression {@code none}, {@code gzip}, {@code snappy}, {@code lz4} or {@code zstd}, per
 *     record batch on the wire
 * @param flushMaxMessages accepted for the Collector's files; the Java client batches by bytes and
 *     {@code linger}, so it has no effect (0, the default, is the Collector's "no limit")
 * @param linger how long the client waits for more records to fill a request to a broker
 */
public record ProducerSettings(
    int maxMessageBytes,
    String requiredAcks,
    String compression,
    int flushMaxMessages,
    Duration linger)
    implements Validatable {
  public static final ProducerSettings DEFAULT =
      new ProducerSettings(1_000_000, "1", "none", 0, Duration.ofMillis(10));

  static final List<String> COMPRESSIONS = List.of("none", "gzip", "snappy", "lz4", "zstd");

  /** The smallest record limit that leaves room for a useful record. */
  static final int MIN_MESSAGE_BYTES = 1024;

  /** The Kafka client's {@code acks} value. */
  String acks() {
    return switch (requiredAcks) {
      case "all", "-1" -> "all";
      default -> requiredAcks;
    };
  }

  @Override
  public void validate(ConfigProblems problems) {
    if (maxMessageBytes < MIN_MESSAGE_BYTES) {
      problems.add(
          "max_message_bytes",
          "must be at least " + MIN_MESSAGE_BYTES + ", was " + maxMessageBytes);
    }
    if (!List.of("all", "-1", "0", "1").contains(requiredAcks)) {
      problems.add(
          "required_acks",
          "must be 1 (the leader wrote it), -1 or all (every in-sync replica did), or 0 (no"
              + " answer), was \""
              + requiredAcks
              + "\"");
    }
    if (!COMPRESSIONS.contains(compression)) {
      problems.add(
          "compression", "must be none, gzip, snappy, lz4 or zstd, was \"" + compression + "\"");
    }
    if (flushMaxMessages < 0) {
      problems.add("flush_max_messages", "must not be negative, was " + flushMaxMessages);
    }
    if (linger.isNegative()) {
      problems.add("linger", "must not be negative, was " + GoDuration.format(linger));
    }
  }
}
