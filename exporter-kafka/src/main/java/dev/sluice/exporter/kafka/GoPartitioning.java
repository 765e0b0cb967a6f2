package dev.sluice.exporter.kafka;

/**
 * Where the Collector's Kafka exporter places a keyed record: its franz-go client uses a sticky key
 * partitioner with the Sarama-compatible hasher, so the partition is the 32-bit FNV-1a hash of the
 * key, taken as a signed 32-bit integer, modulo the partition count, negated when negative
 * (Sarama's {@code HashPartitioner}). Sluice places keyed records the same way, so that a Go
 * producer and Sluice writing the same trace ID or resource put it on the same partition. The Java
 * client's own default (murmur2, then the sign bit cleared) would place most keys elsewhere.
 */
final class GoPartitioning {
  private static final int FNV_OFFSET_BASIS = 0x811c9dc5;
  private static final int FNV_PRIME = 0x01000193;

  private GoPartitioning() {}

  /** The 32-bit FNV-1a hash of {@code key}. */
  static int fnv1a(byte[] key) {
    int hash = FNV_OFFSET_BASIS;
    for (byte b : key) {
      hash ^= b & 0xFF;
      hash *= FNV_PRIME;
    }
    return hash;
  }

  /** The partition of {@code partitions} that a Go producer chooses for {@code key}. */
  static int partition(byte[] key, int partitions) {
    int partition = fnv1a(key) % partitions;
    return partition < 0 ? -partition : partition;
  }
}
