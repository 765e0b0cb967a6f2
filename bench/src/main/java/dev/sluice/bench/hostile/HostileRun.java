package dev.sluice.bench.hostile;

import dev.sluice.bench.hostile.HostileCase.Protocol;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A hostile run end to end: starts the sink and the daemon, sends {@code requests} mutated requests
 * over gRPC and HTTP with at most {@code concurrency} in flight (bounded also by {@code duration}),
 * while the good client sends valid spans; then checks the daemon is alive, its peak RSS, the
 * pipelines' memory back to 0, and the good spans delivered intact.
 */
final class HostileRun {
  /** gRPC's {@code max_recv_msg_size_mib} and HTTP's {@code max_request_body_size} defaults. */
  static final long GRPC_MAX_BYTES = 4L << 20;

  static final long HTTP_MAX_BYTES = 20L << 20;

  private static final long DRAIN_MILLIS = 30_000;
  private static final int ALIVE_CHECK_EVERY = 64;

  /** Good span sequence numbers each daemon's good client may use. */
  private static final int GOOD_SEQUENCES_PER_DAEMON = 50_000_000;

  private static final long PROGRESS_NANOS = TimeUnit.SECONDS.toNanos(10);

  /**
   * @param firstCase the index of the first case sent (to bisect a run)
   * @param launcher {@code bin/sluice}
   * @param examples the OTLP specification's example payloads, or null
   * @param maxDaemons a daemon that dies is started again, up to this many daemons in one run
   * @param rssBoundMib the daemon's peak RSS must stay below this
   * @param goodRequests the good client's bound on requests
   * @param skippedMutations mutations left out, by name (known failures, while they are fixed)
   */
  record Settings(
      long seed,
      long firstCase,
      long requests,
      Duration duration,
      int concurrency,
      long timeoutMillis,
      int maxDaemons,
      long rssBoundMib,
      long goodRequests,
      Path launcher,
      Path workDir,
      Path examples,
      Set<String> skippedMutations) {
    Settings {
      if (requests <= 0
          || concurrency <= 0
          || maxDaemons <= 0
          || duration.isNegative()
          || duration.isZero()) {
        throw new IllegalArgumentException("requests, concurrency and duration must be positive");
      }
      if (duration.compareTo(Duration.ofHours(1)) > 0) {
        throw new IllegalArgumentException("a hostile run is bounded: at most 1 h");
      }
    }
  }

  private final Settings settings;
  private final PrintStream out;

  HostileRun(Settings settings, PrintStream out) {
    this.settings = settings;
    this.out = out;
  }

  CaseFactory cases() throws java.io.IOException {
    return new CaseFactory(
        settings.seed(),
        Bases.standard(settings.seed(), settings.examples()),
        GRPC_MAX_BYTES,
        HTTP_MAX_BYTES,
        settings.skippedMutations());
  }

  Verdict run() throws Exception {
    CaseFactory cases = cases();
    Verdict verdict = new Verdict(settings.seed());
    if (!settings.skippedMutations().isEmpty()) {
      verdict.note("mutations left out: " + new java.util.TreeSet<>(settings.skippedMutations()));
    }
    try (GoodSink sink = new GoodSink(Daemon.HOST)) {
      long start = System.nanoTime();
      long sent = 0;
      for (int generation = 0; ; generation++) {
        try (Daemon daemon = Daemon.start(settings.launcher(), settings.workDir(), sink.port())) {
          out.printf(
              Locale.ROOT,
              "daemon pid %d: gRPC %d, HTTP %d; log %s%n",
              daemon.pid(),
              daemon.grpcPort(),
              daemon.httpPort(),
              daemon.log());
          GoodClient good =
              new GoodClient(
                  Daemon.HOST,
                  daemon.grpcPort(),
                  settings.goodRequests(),
                  generation * GOOD_SEQUENCES_PER_DAEMON);
          try (HostileGrpcClient grpc =
                  new HostileGrpcClient(Daemon.HOST, daemon.grpcPort(), settings.timeoutMillis());
              HostileHttpClient http =
                  new HostileHttpClient(Daemon.HOST, daemon.httpPort(), settings.timeoutMillis())) {
            good.start();
            sent += send(cases, grpc, http, verdict, daemon, start, sent);
            good.stop();
          } finally {
            good.close();
          }
          if (!daemon.alive()) {
            verdict.death(
                "the daemon (pid "
                    + daemon.pid()
                    + ") died after case "
                    + (settings.firstCase() + sent - 1)
                    + "; good spans it had accepted: "
                    + good.accepted().size()
                    + daemon.lastLines());
            if (generation + 1 < settings.maxDaemons()) {
              // Also when the run is over: the checks below need a live daemon.
              continue;
            }
            verdict.check(
                generation + 1 < settings.maxDaemons(),
                "fewer than " + settings.maxDaemons() + " deaths");
            break;
          }
          double seconds = (System.nanoTime() - start) / 1e9;
          verdict.note(
              String.format(
                  Locale.ROOT,
                  "sent %,d hostile requests in %.1f s (%.0f/s) to %d daemon(s), %,d answered",
                  sent,
                  seconds,
                  sent / seconds,
                  generation + 1,
                  verdict.answered()));
          verdict.check(verdict.answered() == sent, "every hostile request was answered");
          verdict.check(true, "the last daemon is alive (pid " + daemon.pid() + ")");
          long pipelineBytes = daemon.awaitPipelinesEmpty(DRAIN_MILLIS);
          verdict.check(
              pipelineBytes == 0,
              "pipelines' memory back to 0 (sluice_pipeline_memory_used_bytes "
                  + pipelineBytes
                  + ")");
          long rssKib = daemon.peakRssKib();
          verdict.check(
              rssKib > 0 && rssKib < settings.rssBoundMib() * 1024,
              String.format(
                  Locale.ROOT,
                  "peak RSS (VmHWM) %.1f MiB under the bound of %d MiB",
                  rssKib / 1024.0,
                  settings.rssBoundMib()));
          checkGoodClient(good, sink, verdict);
          break;
        }
      }
    }
    return verdict;
  }

  private long send(
      CaseFactory cases,
      HostileGrpcClient grpc,
      HostileHttpClient http,
      Verdict verdict,
      Daemon daemon,
      long start,
      long sentBefore)
      throws InterruptedException {
    Semaphore permits = new Semaphore(settings.concurrency());
    Map<Long, HostileCase> inFlight = new ConcurrentHashMap<>();
    AtomicBoolean suspectsTaken = new AtomicBoolean();
    Answer.Sink answers =
        (request, answer) -> {
          if (answer.kind() == Answer.Kind.VIOLATION
              && !daemon.alive()
              && suspectsTaken.compareAndSet(false, true)) {
            // The daemon is gone: what was in flight when the first answer saw it gone killed it.
            verdict.suspects(inFlight.values());
          }
          inFlight.remove(request.index());
          verdict.record(request, answer);
          permits.release();
        };
    long deadline = start + settings.duration().toNanos();
    long nextProgress = System.nanoTime() + PROGRESS_NANOS;
    long sent = 0;
    while (sentBefore + sent < settings.requests() && System.nanoTime() - deadline < 0) {
      if (!permits.tryAcquire(1, TimeUnit.SECONDS)) {
        if (!daemon.alive()) {
          break;
        }
        continue;
      }
      if (sent % ALIVE_CHECK_EVERY == 0 && !daemon.alive()) {
        permits.release();
        break;
      }
      HostileCase request = cases.make(settings.firstCase() + sentBefore + sent);
      inFlight.put(request.index(), request);
      if (request.protocol() == Protocol.GRPC) {
        grpc.send(request, answers);
      } else {
        http.send(request, answers);
      }
      sent++;
      if (System.nanoTime() - nextProgress > 0) {
        nextProgress += PROGRESS_NANOS;
        out.printf(
            Locale.ROOT,
            "[%4ds] sent %,d answered %,d violations %,d peak RSS %d MiB%n",
            TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start),
            sentBefore + sent,
            verdict.answered(),
            verdict.count(Answer.Kind.VIOLATION),
            daemon.peakRssKib() / 1024);
      }
    }
    // Every answer in flight, bounded by the clients' deadline.
    if (permits.tryAcquire(
        settings.concurrency(), settings.timeoutMillis() + 5_000, TimeUnit.MILLISECONDS)) {
      permits.release(settings.concurrency());
    }
    return sent;
  }

  private static void checkGoodClient(GoodClient good, GoodSink sink, Verdict verdict)
      throws InterruptedException {
    Map<Integer, Long> accepted = good.accepted();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DRAIN_MILLIS);
    while (sink.goodSpans() < accepted.size() && System.nanoTime() - deadline < 0) {
      Thread.sleep(100);
    }
    long intact = 0;
    long missing = 0;
    long changed = 0;
    for (Map.Entry<Integer, Long> span : accepted.entrySet()) {
      Long received = sink.hash(span.getKey());
      if (received == null) {
        missing++;
      } else if (received.equals(span.getValue())) {
        intact++;
      } else {
        changed++;
      }
    }
    verdict.note(
        String.format(
            Locale.ROOT,
            "good client: %,d spans sent in %,d requests, %,d accepted, %,d retries of backpressure;"
                + " sink: %,d requests, %,d hostile spans that were accepted, %,d duplicates",
            good.sentSpans(),
            good.sentRequests(),
            accepted.size(),
            good.retries(),
            sink.requests(),
            sink.otherSpans(),
            sink.duplicates()));
    verdict.check(
        good.failures().isEmpty(), "good client's requests all accepted " + good.failures());
    verdict.check(
        accepted.size() > 0 && intact == accepted.size() && sink.conflicting() == 0,
        String.format(
            Locale.ROOT,
            "good spans delivered intact: %,d of %,d (missing %,d, content changed %,d)",
            intact,
            accepted.size(),
            missing,
            changed + sink.conflicting()));
    verdict.check(
        sink.unparseableBlocks() == 0,
        "exported resource blocks protobuf-java cannot parse: " + sink.unparseableBlocks());
  }
}
