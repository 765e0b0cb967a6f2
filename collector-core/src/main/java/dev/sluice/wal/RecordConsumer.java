package dev.sluice.wal;

/** Takes the records recovered from a log, in their original order. */
public interface RecordConsumer {
  /**
   * Called once while the log is opened, before anything is read: consumers may mark replayed
   * records done on it ({@link WriteAheadLog#done}) from now on; nothing else.
   */
  default void starting(WriteAheadLog log) {}

  /**
   * One record some consumers are not done with, handed on the thread that runs {@link
   * WriteAheadLog#replay}. It may block until the pipelines take the record; the log takes new
   * appends meanwhile. {@code payload} is the caller's to keep.
   *
   * @param layout the layout number the record was logged under ({@link
   *     WriteAheadLog#FORMER_LAYOUT} for one of the earlier format)
   * @param owedConsumers the consumers (a bit per index) still owed the record
   */
  void replay(long sequence, int layout, int routing, int signal, int owedConsumers, byte[] payload)
      throws InterruptedException;

  /**
   * A record no configured consumer is owed (each is done with it, or is not routed to it), found
   * while the log is opened: it is not handed over. For a consumer that knows what owned such
   * records before (a consumer that is gone from the configuration, see {@link
   * WriteAheadLog#persistedWatermarks}), to count what is dropped with it. Must be quick.
   */
  default void notReplayed(long sequence, int layout, int routing, int signal) {}

  /**
   * The consumer whose persisted progress {@code consumer} takes over when the progress file does
   * not know {@code consumer}, or null: it is then new, owed nothing that is already in the log.
   * Asked before {@link #starting}, for a log whose consumers were renamed.
   */
  default String predecessorOf(String consumer) {
    return null;
  }
}
