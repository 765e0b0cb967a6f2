package dev.sluice.wal;

/** Takes the records recovered at start, in their original order. */
@FunctionalInterface
public interface RecordConsumer {
  /**
   * Called once before the first record, with the log being opened: consumers may mark replayed
   * records done on it ({@link WriteAheadLog#done}) while the replay goes on; nothing else.
   */
  default void starting(WriteAheadLog log) {}

  /**
   * One record some consumers are not done with. It may block until the pipelines take the record:
   * recovery runs before the receivers open. {@code payload} is the caller's to keep.
   *
   * @param owedConsumers the consumers (a bit per index) still owed the record
   */
  void replay(long sequence, int routing, int signal, int owedConsumers, byte[] payload)
      throws InterruptedException;
}
