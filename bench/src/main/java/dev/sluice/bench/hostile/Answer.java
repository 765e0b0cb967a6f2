package dev.sluice.bench.hostile;

/**
 * What came back for a request, in the classes the verdict counts.
 *
 * @param detail for {@link Kind#VIOLATION}: the status or the connection error; else the code
 */
record Answer(Kind kind, String detail) {
  /** The answer classes. Only {@link #VIOLATION} breaks the run's rules by itself. */
  enum Kind {
    /** OK, 200. */
    ACCEPTED,
    /** INVALID_ARGUMENT, 400. */
    MALFORMED,
    /** RESOURCE_EXHAUSTED, 413. */
    TOO_LARGE,
    /** UNAVAILABLE with RetryInfo, 503 or 429 with Retry-After: allowed as backpressure only. */
    BACKPRESSURE,
    /** Anything else: another status, a reset connection, a timeout. */
    VIOLATION
  }

  static Answer of(Kind kind, String detail) {
    return new Answer(kind, detail);
  }

  /** Called once per request with its answer, on a client thread. */
  interface Sink {
    void answered(HostileCase request, Answer answer);
  }
}
