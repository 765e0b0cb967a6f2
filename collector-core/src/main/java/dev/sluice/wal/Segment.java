package dev.sluice.wal;

import java.nio.file.Path;

/**
 * A segment file: its first sequence names it; the last and its size move while it is active.
 *
 * <p>A segment every consumer is done with becomes a spare instead of being deleted (up to {@link
 * #MAX_SPARES}), named by its last sequence, and the next segment reuses its file. Its old records
 * stay after what the new segment has written until it is closed; recovery tells them apart by
 * their sequences, all below the new segment's first.
 */
final class Segment {
  static final String GLOB = "segment-*.wal";
  static final String SPARE_GLOB = "spare-*.wal";
  static final int MAX_SPARES = 1;

  /**
   * At most this many sequences in one segment: the writer starts a new segment before a record's
   * sequence would pass its first by as much, and recovery takes no record past it. Bounds how far
   * sequences can jump within a segment (failed writes leave gaps).
   */
  static final long MAX_SEQUENCES = 1L << 24;

  /**
   * No sequence reaches this: a file name or a progress watermark past it is not the log's. Far
   * beyond what a log appends in its life (a million records a second for 36,000 years).
   */
  static final long MAX_SEQUENCE = 1L << 60;

  private static final String PREFIX = "segment-";
  private static final String SPARE_PREFIX = "spare-";
  private static final String SUFFIX = ".wal";
  private static final int DIGITS = 20;

  final Path path;
  final long firstSequence;
  long lastSequence;
  // The bytes of the segment's file that hold its header and records; the writer's alone while the
  // segment is active, read under the log's lock otherwise.
  long sizeBytes;

  Segment(Path path, long firstSequence, long lastSequence, long sizeBytes) {
    this.path = path;
    this.firstSequence = firstSequence;
    this.lastSequence = lastSequence;
    this.sizeBytes = sizeBytes;
  }

  static Path pathOf(Path directory, long firstSequence) {
    return directory.resolve(PREFIX + digits(firstSequence) + SUFFIX);
  }

  /** The first sequence a segment's name gives, or -1 when the name is not a segment's. */
  static long firstSequenceOf(Path file) {
    return sequenceIn(file, PREFIX);
  }

  /** Where a segment whose records end at {@code lastSequence} waits to be reused. */
  static Path sparePathOf(Path directory, long lastSequence) {
    return directory.resolve(SPARE_PREFIX + digits(lastSequence) + SUFFIX);
  }

  /** The last sequence a spare's name gives, or -1 when the name is not a spare's. */
  static long lastSequenceOfSpare(Path file) {
    return sequenceIn(file, SPARE_PREFIX);
  }

  private static String digits(long sequence) {
    String digits = Long.toString(sequence);
    return "0".repeat(DIGITS - digits.length()) + digits;
  }

  private static long sequenceIn(Path file, String prefix) {
    String name = file.getFileName().toString();
    if (!name.startsWith(prefix) || !name.endsWith(SUFFIX)) {
      return -1;
    }
    String digits = name.substring(prefix.length(), name.length() - SUFFIX.length());
    if (digits.length() != DIGITS || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return -1;
    }
    try {
      return Long.parseLong(digits);
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
