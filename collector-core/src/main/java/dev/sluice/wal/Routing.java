package dev.sluice.wal;

import java.io.IOException;

/**
 * What the log's owner tells it about records' routes. A record carries a routing (a set of bits)
 * and the number of the layout those bits refer to, both the owner's; the log keeps them and asks
 * here which of its consumers a record goes to.
 */
public interface Routing {
  /**
   * The consumers (a bit per index into the options' consumers) that a record of {@code routing}
   * and {@code signal}, logged under layout {@code layout}, goes to. {@code layout} is {@link
   * WriteAheadLog#FORMER_LAYOUT} for a record of a log written before records carried one. Quick
   * and thread-safe: the writer asks for every record it answers.
   */
  int consumersOf(int layout, int routing, int signal);

  /**
   * Called on the writer thread before each group is written: the owner makes what the group's
   * layout numbers stand for durable (once), so that no record names a layout the log cannot read
   * back. A failure fails the group as a failed write does: its appends are refused as retryable,
   * and the next group calls again.
   */
  default void beforeWrite() throws IOException {}
}
