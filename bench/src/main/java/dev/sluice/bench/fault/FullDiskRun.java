package dev.sluice.bench.fault;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Part two of the fault run: the write-ahead log on a small file system of its own, with a {@code
 * max_size_mib} larger than the file system, so that the disk fills before the log's own bound. The
 * backend is down while the load goes on until the collector has refused requests for a while (its
 * writes failing); then the backend comes back, and space and OK answers must come back without a
 * restart. Then the disk is filled again, the collector stopped with SIGTERM and started on the
 * full disk, and it must start and drain. No kills: a request answered with a refusal must never
 * arrive.
 */
final class FullDiskRun {
  /**
   * @param recoverySeconds the bound on the time from the backend's return to space and OK answers
   */
  record Settings(
      Path launcher,
      Path workDir,
      Path diskDir,
      int clients,
      int spansPerRequest,
      long fillTimeoutSeconds,
      long recoverySeconds,
      long deliveryTimeoutSeconds,
      boolean batch) {}

  /** How the disk was when the collector had refused long enough. */
  private record Full(double seconds, long usableBytes, long failedWrites, long refusals) {}

  private static final String FAILED_WRITES = "sluice_wal_failed_writes";
  private static final String TO_REPLAY = "sluice_wal_records_to_replay";
  private static final long REFUSING_FOR_MILLIS = 10_000;
  private static final long MIN_REFUSALS = 20;
  private static final long SPACE_BACK_BYTES = 4L << 20;
  private static final long LOAD_AFTER_RECOVERY_MILLIS = 2_000;
  private static final long STOP_TIMEOUT_SECONDS = 60;
  private static final long POLL_MILLIS = 100;

  private final Settings settings;
  private final PrintStream out;

  FullDiskRun(Settings settings, PrintStream out) {
    this.settings = settings;
    this.out = out;
  }

  Findings run() throws Exception {
    Findings findings = new Findings("disk");
    long started = System.nanoTime();
    Path dir = settings.workDir().resolve("disk");
    FaultRun.deleteTree(dir);
    Files.createDirectories(dir);
    Path wal = settings.diskDir().resolve("wal");
    FaultRun.deleteTree(wal);
    FileStore store = Files.getFileStore(settings.diskDir());
    out.printf(
        "disk: the log in %s (%s, %.1f MiB, %.1f MiB free), max_size_mib 256, segment_size_mib 1;"
            + " logs in %s%n",
        wal, store.type(), mib(store.getTotalSpace()), mib(store.getUsableSpace()), dir);
    findings.figure(
        "file system %s of %.1f MiB (%.1f MiB free at the start); max_size_mib 256, segments of 1"
            + " MiB",
        store.type(), mib(store.getTotalSpace()), mib(store.getUsableSpace()));
    Ledger ledger = new Ledger();
    LoadClients.Settings load =
        new LoadClients.Settings(settings.clients(), settings.spansPerRequest(), 30_000, 3, 50);
    try (FaultSink sink = new FaultSink("B")) {
      int port = KillRuns.freePort();
      int metricsPort = KillRuns.freePort();
      Path config = dir.resolve("sluice-disk.yaml");
      Files.writeString(
          config,
          FaultConfigs.durable(
              new FaultConfigs.Settings(port, wal, 1, 256, 500, metricsPort, settings.batch()),
              List.of(new FaultConfigs.Route("b", sink.port()))));
      List<String> arguments = List.of("--shutdown-timeout", "5s");

      // The disk fills while the backend is down, then drains once it is back.
      sink.down(true);
      FaultDaemon daemon =
          FaultDaemon.start(
              settings.launcher(), config, dir.resolve("sluice-1.log"), "", arguments);
      if (!daemon.awaitListening(port)) {
        findings.broken(
            "the collector did not start: status %d:%s", daemon.exitStatus(), daemon.tail(20));
        return findings;
      }
      LoadClients clients = new LoadClients(ledger, port, load).start();
      Full full = awaitFull(daemon, metricsPort, ledger, store, 0);
      if (full == null) {
        clients.stop();
        daemon.stop(STOP_TIMEOUT_SECONDS);
        findings.broken(
            "the disk did not fill (failed writes and refusals for %d s) within %d s; %s:%s",
            REFUSING_FOR_MILLIS / 1000,
            settings.fillTimeoutSeconds(),
            daemon.log(),
            daemon.tail(20));
        return findings;
      }
      out.printf(
          "  full after %.1f s: %.1f MiB free, %,d failed writes, %,d refusals%n",
          full.seconds(), mib(full.usableBytes()), full.failedWrites(), full.refusals());
      long okBefore = ledger.okRequests();
      long backAt = System.nanoTime();
      sink.down(false);
      double[] spaceBack = {-1};
      double[] okAgain = {-1};
      long[] mostFree = {full.usableBytes()};
      FaultRun.await(
          () -> {
            double seconds = (System.nanoTime() - backAt) / 1e9;
            long free = usable(store);
            mostFree[0] = Math.max(mostFree[0], free);
            if (spaceBack[0] < 0 && free >= full.usableBytes() + SPACE_BACK_BYTES) {
              spaceBack[0] = seconds;
            }
            if (okAgain[0] < 0 && ledger.okRequests() > okBefore) {
              okAgain[0] = seconds;
            }
            return spaceBack[0] >= 0 && okAgain[0] >= 0;
          },
          settings.recoverySeconds());
      boolean stayedUp = daemon.alive();
      Thread.sleep(LOAD_AFTER_RECOVERY_MILLIS);
      clients.stop();
      double deliveredAfter = awaitDelivered(ledger, sink, backAt);
      out.printf(
          "  backend back: %s MiB more free after %s s, OK answers again after %s s, everything"
              + " answered OK delivered after %s s%n",
          SPACE_BACK_BYTES >> 20,
          seconds(spaceBack[0]),
          seconds(okAgain[0]),
          seconds(deliveredAfter));
      findings.figure(
          "disk full after %.1f s of load with the backend down (%.1f MiB free, %,d failed writes,"
              + " %,d refusals); backend back: %d MiB freed after %s s (most free %.1f MiB), OK"
              + " answers again after %s s, all answered OK delivered after %s s, no restart",
          full.seconds(),
          mib(full.usableBytes()),
          full.failedWrites(),
          full.refusals(),
          SPACE_BACK_BYTES >> 20,
          seconds(spaceBack[0]),
          mib(mostFree[0]),
          seconds(okAgain[0]),
          seconds(deliveredAfter));
      if (spaceBack[0] < 0) {
        findings.broken(
            "no space came back within %d s of the backend's return", settings.recoverySeconds());
      }
      if (okAgain[0] < 0) {
        findings.broken(
            "no request answered OK within %d s of the backend's return",
            settings.recoverySeconds());
      }
      if (!stayedUp) {
        findings.broken(
            "the collector exited (status %d) while the disk drained:%s",
            daemon.exitStatus(), daemon.tail(20));
        return findings;
      }
      if (deliveredAfter < 0) {
        findings.broken(
            "spans answered OK not delivered within %d s: %,d",
            settings.deliveryTimeoutSeconds(), KillRuns.missing(ledger.answeredOk(), 0, sink));
      }

      // Full again, stopped, and started on the full disk.
      sink.down(true);
      clients = new LoadClients(ledger, port, load).start();
      Full again = awaitFull(daemon, metricsPort, ledger, store, full.failedWrites());
      clients.stop();
      if (again == null) {
        daemon.stop(STOP_TIMEOUT_SECONDS);
        findings.broken(
            "the disk did not fill a second time within %d s:%s",
            settings.fillTimeoutSeconds(), daemon.tail(20));
        return findings;
      }
      int stopStatus = daemon.stop(STOP_TIMEOUT_SECONDS);
      long freeAtRestart = usable(store);
      out.printf(
          "  full again after %.1f s; SIGTERM: exit status %d; %.1f MiB free at the restart%n",
          again.seconds(), stopStatus, mib(freeAtRestart));
      if (stopStatus != 0) {
        findings.broken(
            "the stop on a full disk (SIGTERM) ended with status %d; %s:%s",
            stopStatus, daemon.log(), daemon.tail(20));
      }
      FaultDaemon restarted =
          FaultDaemon.start(
              settings.launcher(), config, dir.resolve("sluice-2.log"), "", arguments);
      if (!restarted.awaitListening(port)) {
        findings.broken(
            "the collector did not start on the full disk (%.1f MiB free): exit status %d; %s:%s",
            mib(freeAtRestart), restarted.exitStatus(), restarted.log(), restarted.tail(30));
        return findings;
      }
      long toReplay = (long) restarted.metric(metricsPort, TO_REPLAY);
      long okBeforeRestart = ledger.okRequests();
      long restartedBackAt = System.nanoTime();
      sink.down(false);
      clients = new LoadClients(ledger, port, load).start();
      boolean okAfterRestart =
          FaultRun.await(() -> ledger.okRequests() > okBeforeRestart, settings.recoverySeconds());
      double okAfterRestartSeconds = (System.nanoTime() - restartedBackAt) / 1e9;
      Thread.sleep(LOAD_AFTER_RECOVERY_MILLIS);
      clients.stop();
      double drainedAfter = awaitDelivered(ledger, sink, restartedBackAt);
      long freeAtEnd = usable(store);
      int lastStatus = restarted.stop(STOP_TIMEOUT_SECONDS);
      out.printf(
          "  restarted on the full disk: %,d requests to replay; OK answers after %.1f s, everything"
              + " answered OK delivered after %s s; %.1f MiB free; SIGTERM: exit status %d%n",
          toReplay, okAfterRestartSeconds, seconds(drainedAfter), mib(freeAtEnd), lastStatus);
      findings.figure(
          "filled again (%.1f s), SIGTERM (status %d), started on the full disk (%.1f MiB free):"
              + " %,d requests to replay; backend back: OK answers after %.1f s, all answered OK"
              + " delivered after %s s; %.1f MiB free at the end; SIGTERM (status %d)",
          again.seconds(),
          stopStatus,
          mib(freeAtRestart),
          toReplay,
          okAfterRestartSeconds,
          seconds(drainedAfter),
          mib(freeAtEnd),
          lastStatus);
      if (!okAfterRestart) {
        findings.broken(
            "no request answered OK within %d s after the restart on the full disk",
            settings.recoverySeconds());
      }
      if (drainedAfter < 0) {
        findings.broken(
            "after the restart on the full disk, spans answered OK not delivered within %d s: %,d",
            settings.deliveryTimeoutSeconds(), KillRuns.missing(ledger.answeredOk(), 0, sink));
      }
      if (lastStatus != 0) {
        findings.broken(
            "the last stop (SIGTERM) ended with status %d; %s:%s",
            lastStatus, restarted.log(), restarted.tail(20));
      }
      report(findings, ledger, sink);
    }
    findings.figure("elapsed %d s", TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
    return findings;
  }

  /**
   * Waits until the log's writes have failed and the collector has kept refusing for {@link
   * #REFUSING_FOR_MILLIS}; null if that does not happen in time or the collector exits.
   */
  private Full awaitFull(
      FaultDaemon daemon, int metricsPort, Ledger ledger, FileStore store, long failedBefore)
      throws InterruptedException {
    long started = System.nanoTime();
    long deadline = started + TimeUnit.SECONDS.toNanos(settings.fillTimeoutSeconds());
    long firstFailedAt = 0;
    long refusalsAtFirst = 0;
    while (System.nanoTime() - deadline < 0 && daemon.alive()) {
      long failed = (long) daemon.metric(metricsPort, FAILED_WRITES);
      long now = System.nanoTime();
      if (firstFailedAt == 0 && failed > failedBefore) {
        firstFailedAt = now;
        refusalsAtFirst = ledger.refusals();
      }
      if (firstFailedAt != 0
          && now - firstFailedAt >= TimeUnit.MILLISECONDS.toNanos(REFUSING_FOR_MILLIS)
          && ledger.refusals() - refusalsAtFirst >= MIN_REFUSALS) {
        return new Full((now - started) / 1e9, usable(store), failed, ledger.refusals());
      }
      Thread.sleep(POLL_MILLIS);
    }
    return null;
  }

  /** Seconds from {@code since} until every span answered OK has arrived, or -1 if not in time. */
  private double awaitDelivered(Ledger ledger, FaultSink sink, long since)
      throws InterruptedException {
    boolean delivered =
        FaultRun.await(
            () -> KillRuns.missing(ledger.answeredOk(), 0, sink) == 0,
            settings.deliveryTimeoutSeconds());
    return delivered ? (System.nanoTime() - since) / 1e9 : -1;
  }

  private static void report(Findings findings, Ledger ledger, FaultSink sink) {
    BitSet ok = ledger.answeredOk();
    BitSet refused = ledger.refused();
    BitSet unanswered = ledger.unanswered();
    int sent = ledger.next();
    BitSet delivered = sink.delivered();
    BitSet notOk = (BitSet) delivered.clone();
    notOk.andNot(ok);
    long refusedDelivered = KillRuns.overlap(refused, sink);
    long unansweredDelivered = KillRuns.overlap(unanswered, sink);
    long neverSent = KillRuns.neverSent(sink, sent) + sink.foreign() + sink.unreadableRequests();
    long missing = KillRuns.missing(ok, 0, sink);
    findings.figure(
        "spans sent %,d; answered OK %,d; every attempt refused %,d; no answer %,d; refusals %,d",
        sent, ok.cardinality(), refused.cardinality(), unanswered.cardinality(), ledger.refusals());
    StringBuilder reasons = new StringBuilder();
    for (Map.Entry<String, Long> reason : ledger.refusalReasons().entrySet()) {
      reasons
          .append(reasons.length() == 0 ? "" : "; ")
          .append(String.format("%,d x \"%s\"", reason.getValue(), reason.getKey()));
    }
    findings.figure("refusals by reason: %s", reasons.length() == 0 ? "none" : reasons);
    findings.figure(
        "sink B: %,d spans delivered, %,d duplicates; answered OK missing %,d; delivered but never"
            + " answered OK %,d (refused %,d, no answer %,d); never sent %,d",
        delivered.cardinality(),
        sink.duplicates(),
        missing,
        notOk.cardinality(),
        refusedDelivered,
        unansweredDelivered,
        neverSent);
    findings.expectZero(missing, "spans answered OK never delivered");
    findings.expectZero(
        notOk.cardinality(), "spans delivered but never answered OK (no kills here)");
    findings.expectZero(neverSent, "spans delivered that were never sent");
    if (refused.isEmpty()) {
      findings.broken("no request was refused for good: the refusals were not checked");
    }
  }

  private static long usable(FileStore store) {
    try {
      return store.getUsableSpace();
    } catch (IOException e) {
      return -1;
    }
  }

  private static double mib(long bytes) {
    return bytes / (double) (1 << 20);
  }

  private static String seconds(double seconds) {
    return seconds < 0 ? "(never)" : String.format("%.1f", seconds);
  }
}
