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

  /**
   * A record no configured consumer is owed (each is done with it, or is not routed to it), found
   * while replaying: it is not handed over. For a consumer that knows what owned such records
   * before (a consumer that is gone from the configuration, see {@link
   * WriteAheadLog#persistedWatermarks}), to count what is dropped with it. Must be quick.
   */
  default void notReplayed(long sequence, int routing, int signal) {}

  /**
   * The consumer whose persisted progress {@code consumer} takes over when the progress file does
   * not know {@code consumer}, or null: it is then new, owed nothing that is already in the log.
   * Asked before {@link #starting}, for a log whose consumers were renamed.
   */
  default String predecessorOf(String consumer) {
    return null;
  }
}
