package dev.sluice.bench.hostile;

import dev.sluice.bench.hostile.Answer.Kind;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a hostile run found: answers per class per protocol, format and encoding; every violation,
 * with the first few failing inputs in base64 (or their index, to replay, when they are large); and
 * the run-level checks (the daemon alive, its peak RSS, the pipelines' memory at the end, the good
 * client's spans delivered intact). {@link #failures()} is empty when everything held.
 */
final class Verdict {
  /** Failing inputs kept with their bytes; the others are counted. */
  static final int MAX_SAMPLES = 10;

  /** Inputs up to this size are printed in base64; larger ones by index, for {@code --replay}. */
  static final int MAX_SAMPLE_BYTES = 8192;

  private static final int MAX_DETAIL_CHARS = 160;

  /** A failing input. */
  record Sample(long index, String key, String what, String answer, int bytes, String base64) {}

  private final long seed;
  private final Map<String, LongAdder[]> tallies = new ConcurrentHashMap<>();
  private final Map<String, LongAdder> violations = new ConcurrentHashMap<>();
  private final List<Sample> samples = new ArrayList<>();
  private final List<Sample> suspects = new ArrayList<>();
  private final LongAdder answered = new LongAdder();
  private final List<String> runFailures = new ArrayList<>();
  private final List<String> deaths = new ArrayList<>();
  private final List<String> runFacts = new ArrayList<>();

  Verdict(long seed) {
    this.seed = seed;
  }

  /** Records one answer; thread-safe. */
  void record(HostileCase request, Answer answer) {
    answered.increment();
    tallies.computeIfAbsent(request.key(), k -> newCounters())[answer.kind().ordinal()].increment();
    String violation = null;
    if (answer.kind() == Kind.VIOLATION) {
      violation = answer.detail();
    } else if (request.expect() == HostileCase.Expect.ACCEPTED
        && answer.kind() != Kind.ACCEPTED
        && answer.kind() != Kind.BACKPRESSURE) {
      violation = "valid request answered " + answer.detail();
    } else if (request.expect() == HostileCase.Expect.TOO_LARGE
        && answer.kind() != Kind.TOO_LARGE
        && answer.kind() != Kind.BACKPRESSURE) {
      violation = "body over the limit answered " + answer.detail();
    }
    if (violation != null) {
      String label = request.protocol().name().toLowerCase(Locale.ROOT) + ": " + violation;
      violations.computeIfAbsent(label, k -> new LongAdder()).increment();
      synchronized (samples) {
        if (samples.size() < MAX_SAMPLES) {
          samples.add(sample(request, violation));
        }
      }
    }
  }

  /** The requests in flight when the daemon was first seen gone: one of them killed it. */
  void suspects(java.util.Collection<HostileCase> inFlight) {
    synchronized (samples) {
      for (HostileCase request : inFlight) {
        suspects.add(sample(request, "in flight when the daemon died"));
      }
    }
  }

  private static Sample sample(HostileCase request, String answer) {
    byte[] body = request.body();
    return new Sample(
        request.index(),
        request.key(),
        request.what(),
        answer,
        body.length,
        body.length <= MAX_SAMPLE_BYTES ? Base64.getEncoder().encodeToString(body) : null);
  }

  private static LongAdder[] newCounters() {
    LongAdder[] counters = new LongAdder[Kind.values().length];
    for (int i = 0; i < counters.length; i++) {
      counters[i] = new LongAdder();
    }
    return counters;
  }

  /** A run-level check: recorded as a fact, and as a failure when it did not hold. */
  synchronized void check(boolean held, String fact) {
    runFacts.add((held ? "ok   " : "FAIL ") + fact);
    if (!held) {
      runFailures.add(fact);
    }
  }

  /** A daemon that died: a failure of its own kind, listed apart from the checks at the end. */
  synchronized void death(String fact) {
    runFacts.add("FAIL " + fact);
    deaths.add(fact);
  }

  synchronized List<String> deaths() {
    return List.copyOf(deaths);
  }

  synchronized void note(String fact) {
    runFacts.add("     " + fact);
  }

  long answered() {
    return answered.sum();
  }

  /** The count of answers of {@code kind} over every key. */
  long count(Kind kind) {
    long sum = 0;
    for (LongAdder[] counters : tallies.values()) {
      sum += counters[kind.ordinal()].sum();
    }
    return sum;
  }

  Map<String, Long> violations() {
    Map<String, Long> copy = new TreeMap<>();
    violations.forEach((k, v) -> copy.put(k, v.sum()));
    return copy;
  }

  /** The violations found per answer, then the run-level checks that failed. */
  synchronized List<String> failures() {
    List<String> failures = new ArrayList<>();
    violations().forEach((label, count) -> failures.add(count + " x " + label));
    failures.addAll(deaths);
    failures.addAll(runFailures);
    return failures;
  }

  /** The checks at the end of the run (on the last daemon) that failed; deaths are apart. */
  synchronized List<String> runFailures() {
    return List.copyOf(runFailures);
  }

  List<Sample> samples() {
    synchronized (samples) {
      return List.copyOf(samples);
    }
  }

  List<Sample> suspects() {
    synchronized (samples) {
      return List.copyOf(suspects);
    }
  }

  void print(PrintStream out) {
    out.printf(Locale.ROOT, "HOSTILE seed=%d answered=%d%n", seed, answered());
    out.printf(
        Locale.ROOT,
        "  %-32s %10s %10s %10s %12s %10s%n",
        "protocol/format/encoding",
        "accepted",
        "malformed",
        "too_large",
        "backpressure",
        "violation");
    new TreeMap<>(tallies)
        .forEach(
            (key, counters) ->
                out.printf(
                    Locale.ROOT,
                    "  %-32s %10d %10d %10d %12d %10d%n",
                    key,
                    counters[0].sum(),
                    counters[1].sum(),
                    counters[2].sum(),
                    counters[3].sum(),
                    counters[4].sum()));
    Map<String, Long> found = violations();
    out.println(found.isEmpty() ? "violations: none" : "violations:");
    found.forEach((label, count) -> out.printf(Locale.ROOT, "  %,d x %s%n", count, label));
    List<Sample> shown = new ArrayList<>(suspects());
    shown.addAll(samples());
    for (Sample sample : shown) {
      out.printf(
          Locale.ROOT,
          "  failing input #%d %s (%s) -> %s; %d bytes; replay: --seed %d --replay %d%n",
          sample.index(),
          sample.key(),
          sample.what(),
          sample.answer(),
          sample.bytes(),
          seed,
          sample.index());
      if (sample.base64() != null) {
        out.println("    base64 " + sample.base64());
      }
    }
    synchronized (this) {
      out.println("checks:");
      runFacts.forEach(fact -> out.println("  " + fact));
    }
    List<String> failures = failures();
    out.println(
        failures.isEmpty()
            ? "VERDICT PASS seed=" + seed
            : "VERDICT FAIL seed=" + seed + " failures=" + failures.size());
  }

  static String shorten(String text) {
    if (text == null) {
      return "";
    }
    String oneLine = text.replace('\n', ' ').replace('\r', ' ');
    return oneLine.length() <= MAX_DETAIL_CHARS
        ? oneLine
        : oneLine.substring(0, MAX_DETAIL_CHARS) + "...";
  }
}
