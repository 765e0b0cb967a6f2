package dev.sluice.bench.fault;

import java.util.BitSet;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the clients of one part of the fault run sent and how the collector answered: every span
 * number handed out, and for each request its outcome over all its attempts. Thread-safe.
 */
final class Ledger {
  /** How a request ended, over all its attempts. */
  enum Outcome {
    /** An attempt was answered OK: the collector owes its spans. */
    OK,
    /** Every attempt was answered with a retryable refusal: its spans must never arrive. */
    REFUSED,
    /**
     * No attempt was answered OK and at least one had no answer (the collector killed or stopped
     * under it, a deadline, another failure): its spans may arrive or not.
     */
    UNANSWERED
  }

  private static final int MAX_REASON_CHARS = 100;

  private int next;
  private final BitSet answeredOk = new BitSet();
  private final BitSet refused = new BitSet();
  private final BitSet unanswered = new BitSet();
  private long okRequests;
  private long refusals;
  private final Map<String, Long> refusalReasons = new TreeMap<>();

  /** The first of {@code count} new span numbers. */
  synchronized int take(int count) {
    int first = next;
    next += count;
    return first;
  }

  /** The next span number to be handed out: every number below it was sent (or tried). */
  synchronized int next() {
    return next;
  }

  /** Records how the request of spans {@code first} to {@code first+count-1} ended. */
  synchronized void settle(int first, int count, Outcome outcome) {
    switch (outcome) {
      case OK -> {
        answeredOk.set(first, first + count);
        okRequests++;
      }
      case REFUSED -> refused.set(first, first + count);
      case UNANSWERED -> unanswered.set(first, first + count);
    }
  }

  /** Counts one refusal (of one attempt) by its reason. */
  synchronized void refusal(String reason) {
    refusals++;
    String key = reason == null ? "(no description)" : reason;
    if (key.length() > MAX_REASON_CHARS) {
      key = key.substring(0, MAX_REASON_CHARS) + "...";
    }
    refusalReasons.merge(key, 1L, Long::sum);
  }

  synchronized BitSet answeredOk() {
    return (BitSet) answeredOk.clone();
  }

  /** Spans of requests whose every attempt was refused. */
  synchronized BitSet refused() {
    return (BitSet) refused.clone();
  }

  synchronized BitSet unanswered() {
    return (BitSet) unanswered.clone();
  }

  /** Requests answered OK so far. */
  synchronized long okRequests() {
    return okRequests;
  }

  /** Attempts answered with a refusal so far. */
  synchronized long refusals() {
    return refusals;
  }

  synchronized Map<String, Long> refusalReasons() {
    return new TreeMap<>(refusalReasons);
  }
}
