package dev.sluice.wal;

import java.nio.file.Path;

/** A segment file: its first sequence names it; the last and its size move while it is active. */
final class Segment {
  static final String GLOB = "segment-*.wal";
  private static final String PREFIX = "segment-";
  private static final String SUFFIX = ".wal";
  private static final int DIGITS = 20;

  final Path path;
  final long firstSequence;
  long lastSequence;
  long sizeBytes;

  Segment(Path path, long firstSequence, long lastSequence, long sizeBytes) {
    this.path = path;
    this.firstSequence = firstSequence;
    this.lastSequence = lastSequence;
    this.sizeBytes = sizeBytes;
  }

  static Path pathOf(Path directory, long firstSequence) {
    String digits = Long.toString(firstSequence);
    return directory.resolve(PREFIX + "0".repeat(DIGITS - digits.length()) + digits + SUFFIX);
  }

  /** The first sequence a segment's name gives, or -1 when the name is not a segment's. */
  static long firstSequenceOf(Path file) {
    String name = file.getFileName().toString();
    if (!name.startsWith(PREFIX) || !name.endsWith(SUFFIX)) {
      return -1;
    }
    String digits = name.substring(PREFIX.length(), name.length() - SUFFIX.length());
    if (digits.length() != DIGITS || !digits.chars().allMatch(Character::isDigit)) {
      return -1;
    }
    try {
      return Long.parseLong(digits);
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
