package dev.sluice.service;

import dev.sluice.pdata.codec.OtlpIndex;

/**
 * One logged request on its way to the durable exporters, each of which is a consumer of the log
 * with its own progress: a consumer is done with the request once it has let go of every slice it
 * was handed and no other slice can reach it any more. It is the request's releaser, so a
 * pipeline's end ({@link DurableFanout}) finds it from any slice.
 *
 * <p>"No other slice can reach it": every reference to the request (the entry's hold and each
 * slice, {@link OtlpIndex#references()}) is either held by the exporters of a durable fan-out,
 * which count what they were handed ({@link #handed}, {@link #leaving}), or still upstream (the
 * entry, the processors). When the two counts are equal, nothing is upstream any more, and nothing
 * ever comes back upstream. Reading the references races only with upstream changes, and a stale
 * read sees more references than there are, so a consumer is never marked done early; at worst it
 * is marked when the request is released whole ({@link #released}), as with one consumer for all.
 *
 * <p>A request one exporter abandoned (dropped only because it stopped) stays owed to every
 * consumer not already done with it.
 *
 * <p>Data a connector made from the request ({@link MadeFromLogged}) pins it for the consumers
 * behind that connector: none of them is done with it while a request made from it is still on its
 * way to them, even once the request's own bytes are released.
 */
final class DurableRequest implements OtlpIndex.Releaser {
  private final DurableLog log;
  private final MemoryBudget budget;
  private final int owedConsumers;
  private final boolean replayed;
  private final long recordBytes;
  // Guarded by this: slices each consumer holds, slices all durable fan-outs' exporters hold, and
  // the consumers already told done.
  private final int[] slicesHeld;
  private int slicesAtExporters;
  private int doneConsumers;
  // Guarded by this: requests made from this one still on their way to each consumer, the
  // consumers with any, and whether the request itself was released (not abandoned).
  private final int[] pins;
  private int pinnedConsumers;
  private boolean releasedWhole;
  // Guarded by this: the request while it is pinned and not released, for settle() on unpin; so a
  // pin holds the request's bytes only while something else does too.
  private OtlpIndex live;
  private volatile long sequence = -1;

  /**
   * @param owedConsumers the log's consumers (a bit per index) the request goes to
   * @param replayed whether it came back from the log at start: then only the exporters of {@code
   *     owedConsumers} get it
   * @param recordBytes what its record takes in the log, owed by each consumer until it is done
   */
  DurableRequest(
      DurableLog log, MemoryBudget budget, int owedConsumers, boolean replayed, long recordBytes) {
    this.log = log;
    this.budget = budget;
    this.owedConsumers = owedConsumers;
    this.replayed = replayed;
    this.recordBytes = recordBytes;
    this.slicesHeld = new int[Integer.SIZE - Integer.numberOfLeadingZeros(owedConsumers)];
    this.pins = new int[slicesHeld.length];
  }

  /** The durable request a held request belongs to, or null. */
  static DurableRequest of(OtlpIndex request) {
    return request.account() instanceof DurableRequest durable ? durable : null;
  }

  int owedConsumers() {
    return owedConsumers;
  }

  boolean replayed() {
    return replayed;
  }

  /**
   * The record is in the log (or its append was taken) as {@code logged}: from now on each owed
   * consumer owes its bytes until it is done. Called once, before any slice of it is made.
   */
  void logged(long logged) {
    sequence = logged;
    log.owe(owedConsumers, recordBytes);
  }

  /** Exporters of a durable fan-out took {@code slices} slices; those of {@code consumers} too. */
  synchronized void handed(int consumers, int slices) {
    slicesAtExporters += slices;
    for (int owed = consumers & owedConsumers; owed != 0; owed &= owed - 1) {
      slicesHeld[Integer.numberOfTrailingZeros(owed)] += slices;
    }
  }

  /** Consumer {@code consumer}'s exporter let go of {@code slices} slices of {@code request}. */
  void releasedBy(int consumer, int slices, OtlpIndex request) {
    int bit = 1 << consumer;
    if ((owedConsumers & bit) == 0) {
      return;
    }
    synchronized (this) {
      slicesHeld[consumer] -= slices;
    }
    settle(bit, request);
  }

  /** The last exporter let go of {@code slices} slices, which are cleared next. */
  synchronized void leaving(int slices) {
    slicesAtExporters -= slices;
  }

  /**
   * Tells the log that the consumers of {@code consumers} are done with the request, those of them
   * that hold none of its slices, when nothing upstream refers to it any more.
   */
  void settle(int consumers, OtlpIndex request) {
    long logged = sequence;
    if (logged < 0 || request.abandoned()) {
      return;
    }
    int done = 0;
    synchronized (this) {
      int candidates = consumers & owedConsumers & ~doneConsumers & ~pinnedConsumers;
      if (candidates == 0 || request.references() != slicesAtExporters) {
        return;
      }
      for (int left = candidates; left != 0; left &= left - 1) {
        int consumer = Integer.numberOfTrailingZeros(left);
        if (slicesHeld[consumer] == 0) {
          done |= 1 << consumer;
        }
      }
      doneConsumers |= done;
    }
    markDone(done, logged);
  }

  /** Every owed consumer not told yet is done, unless part of the request was abandoned. */
  @Override
  public void released(OtlpIndex request) {
    budget.released(request);
    long logged = sequence;
    boolean abandoned = request.abandoned();
    int done = 0;
    synchronized (this) {
      live = null;
      releasedWhole = !abandoned;
      if (logged >= 0 && !abandoned) {
        done = owedConsumers & ~doneConsumers & ~pinnedConsumers;
        doneConsumers |= done;
      }
    }
    markDone(done, logged);
  }

  /**
   * A request made from {@code request} (this one's) is on its way to the consumers of {@code
   * consumers}: those of them not done yet stay owed until {@link #unpin}. Called while a batch of
   * the request is still held, so none of them can have been told done in between.
   *
   * @return the consumers pinned, to hand to {@link #unpin}
   */
  synchronized int pin(int consumers, OtlpIndex request) {
    int pinned = consumers & owedConsumers & ~doneConsumers;
    for (int left = pinned; left != 0; left &= left - 1) {
      pins[Integer.numberOfTrailingZeros(left)]++;
    }
    pinnedConsumers |= pinned;
    if (pinned != 0 && !releasedWhole) {
      live = request;
    }
    return pinned;
  }

  /**
   * The request made from this one that {@link #pin} was called for is delivered, or dropped for
   * good, by the consumers of {@code pinned}: those with no other pin are done once nothing of this
   * request is left with them either (now, if it was released meanwhile and not abandoned).
   */
  void unpin(int pinned) {
    long logged = sequence;
    int freed = 0;
    int done = 0;
    OtlpIndex request;
    synchronized (this) {
      request = live;
      for (int left = pinned; left != 0; left &= left - 1) {
        int consumer = Integer.numberOfTrailingZeros(left);
        if (--pins[consumer] == 0) {
          freed |= 1 << consumer;
        }
      }
      pinnedConsumers &= ~freed;
      if (releasedWhole && logged >= 0) {
        done = freed & ~doneConsumers;
        doneConsumers |= done;
      }
    }
    // Not released yet: released() tells the freed consumers done unless settle() does first.
    markDone(done, logged);
    if (request != null && freed != 0) {
      settle(freed, request);
    }
  }

  @Override
  public void editBytesChanged(OtlpIndex request, long deltaBytes) {
    budget.editBytesChanged(request, deltaBytes);
  }

  private void markDone(int consumers, long logged) {
    for (int left = consumers; left != 0; left &= left - 1) {
      log.done(Integer.numberOfTrailingZeros(left), logged, recordBytes);
    }
  }
}
