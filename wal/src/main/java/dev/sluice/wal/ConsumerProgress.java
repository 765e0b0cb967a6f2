package dev.sluice.wal;

/**
 * Which records one consumer is done with: every sequence below {@link #watermark()}, and a ring of
 * flags for those above it that finished out of order. Sequences are handed out in order, and a
 * consumer finishes most nearly in order, so the ring stays a few words long; a consumer that
 * stalls while others go on grows it to one bit per record it is behind (bounded by the log's
 * size).
 */
final class ConsumerProgress {
  private static final int MIN_WORDS = 4;

  private long watermark;
  private long[] words = new long[MIN_WORDS];

  ConsumerProgress(long watermark) {
    this.watermark = watermark;
  }

  synchronized long watermark() {
    return watermark;
  }

  /** Marks {@code sequence} done; a sequence below the watermark, or marked before, is ignored. */
  synchronized void markDone(long sequence) {
    if (sequence < watermark) {
      return;
    }
    if (sequence == watermark) {
      watermark++;
      advance();
      return;
    }
    ensureCovers(sequence);
    words[wordOf(sequence)] |= 1L << (sequence & 63);
  }

  /** Marks every sequence in {@code [from, to)} done. */
  synchronized void markRangeDone(long from, long to) {
    if (to <= watermark || to <= from) {
      return;
    }
    if (from <= watermark) {
      // Jump: clear the flags the range covers (at most the whole ring), then move past it.
      long clearTo = Math.min(to, watermark + 64L * words.length);
      for (long sequence = watermark; sequence < clearTo; sequence++) {
        words[wordOf(sequence)] &= ~(1L << (sequence & 63));
      }
      watermark = to;
      advance();
      return;
    }
    ensureCovers(to - 1);
    for (long sequence = from; sequence < to; sequence++) {
      words[wordOf(sequence)] |= 1L << (sequence & 63);
    }
  }

  /** Moves the watermark past every flagged sequence that now follows it, clearing the flags. */
  private void advance() {
    while (true) {
      int word = wordOf(watermark);
      long bit = 1L << (watermark & 63);
      if ((words[word] & bit) == 0) {
        return;
      }
      words[word] &= ~bit;
      watermark++;
    }
  }

  private int wordOf(long sequence) {
    return (int) ((sequence >>> 6) & (words.length - 1));
  }

  /** Grows the ring (a power of two words) until it holds {@code sequence} beside the watermark. */
  private void ensureCovers(long sequence) {
    long span = (sequence >>> 6) - (watermark >>> 6) + 1;
    if (span <= words.length) {
      return;
    }
    int length = words.length;
    while (length < span) {
      length <<= 1;
    }
    long[] grown = new long[length];
    long firstWord = watermark >>> 6;
    for (long w = firstWord; w < firstWord + words.length; w++) {
      grown[(int) (w & (length - 1))] = words[(int) (w & (words.length - 1))];
    }
    words = grown;
  }
}
