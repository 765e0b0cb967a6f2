package dev.sluice.processor.tailsampling;

/**
 * A list of traces in the order they were appended, linked through the traces themselves, so that
 * appending and removing anywhere cost no object and no search. Two kinds: every trace held, in the
 * order it arrived ({@link #arrivals()}); and the traces waiting for a decision, in the order they
 * fall due ({@link #due()}).
 */
final class TraceList {
  private final boolean arrival;
  private TraceData oldest;
  private TraceData newest;
  private int size;

  private TraceList(boolean arrival) {
    this.arrival = arrival;
  }

  static TraceList arrivals() {
    return new TraceList(true);
  }

  static TraceList due() {
    return new TraceList(false);
  }

  int size() {
    return size;
  }

  TraceData oldest() {
    return oldest;
  }

  void append(TraceData trace) {
    setOlder(trace, newest);
    setNewer(trace, null);
    if (newest == null) {
      oldest = trace;
    } else {
      setNewer(newest, trace);
    }
    newest = trace;
    size++;
  }

  void remove(TraceData trace) {
    TraceData older = older(trace);
    TraceData newer = newer(trace);
    if (older == null) {
      oldest = newer;
    } else {
      setNewer(older, newer);
    }
    if (newer == null) {
      newest = older;
    } else {
      setOlder(newer, older);
    }
    setOlder(trace, null);
    setNewer(trace, null);
    size--;
  }

  private TraceData older(TraceData trace) {
    return arrival ? trace.arrivedBefore : trace.dueBefore;
  }

  private TraceData newer(TraceData trace) {
    return arrival ? trace.arrivedAfter : trace.dueAfter;
  }

  private void setOlder(TraceData trace, TraceData older) {
    if (arrival) {
      trace.arrivedBefore = older;
    } else {
      trace.dueBefore = older;
    }
  }

  private void setNewer(TraceData trace, TraceData newer) {
    if (arrival) {
      trace.arrivedAfter = newer;
    } else {
      trace.dueAfter = newer;
    }
  }
}
