package dev.sluice.wal;

/**
 * Told, on the log's writer thread, how an append ended. Must be quick and must not block: it
 * typically completes a receiver's answer.
 */
public interface AppendCallback {
  /** The record is written (and, with {@code fsync}, forced to disk) under {@code sequence}. */
  void committed(long sequence);

  /**
   * The record is not in the log. {@code retryable}: a write failed (the disk is full, say) and a
   * later append may succeed; otherwise the log has stopped.
   */
  void failed(String reason, boolean retryable);
}
