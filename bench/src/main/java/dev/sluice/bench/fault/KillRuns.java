package dev.sluice.bench.fault;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Part one of the fault run: the collector with durable pipelines under steady load, killed with
 * SIGKILL many times, half of them at a crash point of the write-ahead log, its backends refusing
 * now and then; halfway through, a second durable pipeline ({@code traces/a}) is added in front of
 * the first ({@code traces/b}), so that the pipelines' routing bits change under the logged
 * requests. The backend of {@code traces/b} is down for the whole run before the change, so that
 * the log owes it requests of the old layout when the new one starts. A last run is stopped cleanly
 * once everything answered OK has arrived.
 */
final class KillRuns {
  /**
   * @param kills the runs that end in a kill; the layout changes after half of them
   * @param maxRunMillis the longest a run's load goes on before its kill, from the moment the
   *     collector listens (the shortest is 200 ms: the replay of what the run before left may still
   *     be under way)
   */
  record Settings(
      Path launcher,
      Path workDir,
      long seed,
      int kills,
      int clients,
      int spansPerRequest,
      long maxRunMillis,
      long deliveryTimeoutSeconds,
      boolean batch) {}

  private static final String[] CRASH_POINTS = {
    "torn-write", "force", "roll", "progress", "delete"
  };
  private static final int CRASH_STATUS = 137;
  private static final long MIN_RUN_MILLIS = 200;
  private static final long LAST_RUN_LOAD_MILLIS = 3_000;
  private static final long STOP_TIMEOUT_SECONDS = 60;

  private final Settings settings;
  private final PrintStream out;

  KillRuns(Settings settings, PrintStream out) {
    this.settings = settings;
    this.out = out;
  }

  Findings run() throws Exception {
    Findings findings = new Findings("kills");
    long started = System.nanoTime();
    Random random = new Random(settings.seed());
    Path dir = settings.workDir().resolve("kills");
    FaultRun.deleteTree(dir);
    Files.createDirectories(dir);
    int kills = settings.kills();
    int firstWithA = kills / 2 + 1;
    List<Integer> order = new ArrayList<>();
    for (int run = 1; run <= kills; run++) {
      order.add(run);
    }
    Collections.shuffle(order, random);
    List<Integer> atCrashPoint = order.subList(0, kills / 2);
    Ledger ledger = new Ledger();
    LoadClients.Settings load =
        new LoadClients.Settings(settings.clients(), settings.spansPerRequest(), 10_000, 3, 20);
    int boundary = -1;
    int crashPointsReached = 0;
    int diedStarting = 0;
    try (FaultSink sinkA = new FaultSink("A");
        FaultSink sinkB = new FaultSink("B")) {
      int port = freePort();
      int metricsPort = freePort();
      FaultConfigs.Settings config =
          new FaultConfigs.Settings(
              port, dir.resolve("wal"), 1, 256, 100, metricsPort, settings.batch());
      Path oneConfig = dir.resolve("sluice-b.yaml");
      Path twoConfig = dir.resolve("sluice-a-b.yaml");
      Files.writeString(
          oneConfig,
          FaultConfigs.durable(config, List.of(new FaultConfigs.Route("b", sinkB.port()))));
      Files.writeString(
          twoConfig,
          FaultConfigs.durable(
              config,
              List.of(
                  new FaultConfigs.Route("a", sinkA.port()),
                  new FaultConfigs.Route("b", sinkB.port()))));
      out.printf(
          "kills: %d SIGKILLs of bin/sluice under load, traces/a added in front of traces/b before"
              + " run %d; logs and configurations in %s%n",
          kills, firstWithA, dir);
      for (int run = 1; run <= kills + 1; run++) {
        boolean last = run == kills + 1;
        boolean withA = run >= firstWithA;
        if (run == firstWithA) {
          boundary = ledger.next();
        }
        String crash = "";
        if (!last && atCrashPoint.contains(run)) {
          crash =
              CRASH_POINTS[random.nextInt(CRASH_POINTS.length)] + ":" + (1 + random.nextInt(20));
        }
        List<String> notes = new ArrayList<>();
        sinkA.down(false);
        sinkB.down(false);
        if (!last) {
          disturb(sinkB, run == firstWithA - 1, random, notes);
          if (withA) {
            disturb(sinkA, false, random, notes);
          }
        }
        long okBefore = ledger.okRequests();
        long duplicatesBeforeA = sinkA.duplicates();
        long duplicatesBeforeB = sinkB.duplicates();
        long runStarted = System.nanoTime();
        FaultDaemon daemon =
            FaultDaemon.start(
                settings.launcher(),
                withA ? twoConfig : oneConfig,
                dir.resolve("sluice-" + run + ".log"),
                crash,
                List.of());
        boolean listening = daemon.awaitListening(port);
        long loadStarted = System.nanoTime();
        LoadClients clients = new LoadClients(ledger, port, load).start();
        String ending;
        if (last) {
          if (!listening) {
            findings.broken(
                "the clean run's collector did not start: status %d; %s:%s",
                daemon.exitStatus(), daemon.log(), daemon.tail(20));
          }
          Thread.sleep(LAST_RUN_LOAD_MILLIS);
          clients.stop();
          final int from = boundary;
          boolean delivered =
              FaultRun.await(
                  () ->
                      missing(ledger.answeredOk(), 0, sinkB) == 0
                          && missing(ledger.answeredOk(), from, sinkA) == 0,
                  settings.deliveryTimeoutSeconds());
          int status = daemon.stop(STOP_TIMEOUT_SECONDS);
          ending = "stopped with SIGTERM, exit status " + status;
          if (!delivered) {
            findings.broken(
                "not everything answered OK arrived within %d s of the clean run",
                settings.deliveryTimeoutSeconds());
          }
          if (status != 0) {
            findings.broken(
                "the clean stop (SIGTERM) ended with status %d; %s:%s",
                status, daemon.log(), daemon.tail(20));
          }
        } else {
          long deadline =
              loadStarted
                  + TimeUnit.MILLISECONDS.toNanos(
                      MIN_RUN_MILLIS
                          + random.nextInt((int) (settings.maxRunMillis() - MIN_RUN_MILLIS + 1)));
          while (daemon.alive() && System.nanoTime() - deadline < 0) {
            Thread.sleep(10);
          }
          if (daemon.alive()) {
            notes.add(owed(daemon, metricsPort, withA));
          }
          boolean died = !daemon.alive();
          int status = daemon.kill();
          clients.stop();
          if (!died) {
            ending = "SIGKILL";
          } else if (status == CRASH_STATUS && !crash.isEmpty()) {
            crashPointsReached++;
            ending = "halted at the crash point" + (listening ? "" : " while starting");
            if (!listening) {
              diedStarting++;
            }
          } else {
            ending = "exited by itself with status " + status;
            findings.broken(
                "run %d: the collector exited with status %d; %s:%s",
                run, status, daemon.log(), daemon.tail(20));
          }
        }
        out.printf(
            "  run %2d %-19s %-22s %-44s %5.1f s, %,6d requests OK, spans again at B %,7d,"
                + " at A %,7d: %s%n",
            run,
            withA ? "[traces/a,traces/b]" : "[traces/b]",
            crash.isEmpty() ? "" : "crash " + crash,
            String.join(", ", notes),
            (System.nanoTime() - runStarted) / 1e9,
            ledger.okRequests() - okBefore,
            sinkB.duplicates() - duplicatesBeforeB,
            sinkA.duplicates() - duplicatesBeforeA,
            ending);
      }
      report(
          findings,
          ledger,
          sinkA,
          sinkB,
          boundary,
          crashPointsReached,
          diedStarting,
          atCrashPoint.size());
    }
    findings.figure("elapsed %d s", TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
    return findings;
  }

  /** What the log owes each exporter, from the collector's metrics, as a note. */
  private static String owed(FaultDaemon daemon, int metricsPort, boolean withA) {
    String metric = "sluice_wal_exporter_records_owed{exporter=\"otlp/";
    long owedB = (long) daemon.metric(metricsPort, metric + "b\"}");
    return withA
        ? String.format("owed B %d A %d", owedB, (long) daemon.metric(metricsPort, metric + "a\"}"))
        : String.format("owed B %d", owedB);
  }

  /** Now and then a backend refuses: the whole run (down), or its next two calls. */
  private static void disturb(
      FaultSink sink, boolean downForSure, Random random, List<String> notes) {
    if (downForSure || random.nextInt(5) == 0) {
      sink.down(true);
      notes.add(sink.name() + " down");
    } else if (random.nextInt(3) == 0) {
      sink.refuseNext(2);
      notes.add(sink.name() + " refuses 2");
    }
  }

  private void report(
      Findings findings,
      Ledger ledger,
      FaultSink sinkA,
      FaultSink sinkB,
      int boundary,
      int crashPointsReached,
      int diedStarting,
      int crashPointsArmed) {
    BitSet ok = ledger.answeredOk();
    BitSet refused = ledger.refused();
    int sent = ledger.next();
    findings.figure(
        "%d runs killed: %d armed with a crash point of the log, %d halted there (%d while starting),"
            + " the rest by SIGKILL at a random moment; then a clean run",
        settings.kills(), crashPointsArmed, crashPointsReached, diedStarting);
    findings.figure(
        "spans sent %,d; answered OK %,d (%,d after the layout change); every attempt refused %,d;"
            + " no answer (killed under them) %,d; refusals %,d",
        sent,
        ok.cardinality(),
        ok.get(boundary, Math.max(boundary, ok.length())).cardinality(),
        refused.cardinality(),
        ledger.unanswered().cardinality(),
        ledger.refusals());
    for (FaultSink sink : List.of(sinkB, sinkA)) {
      BitSet delivered = sink.delivered();
      BitSet extra = (BitSet) delivered.clone();
      extra.andNot(ok);
      findings.figure(
          "sink %s: %,d spans delivered, %,d duplicates, %,d delivered though not answered OK"
              + " (no answer before the kill); %,d calls, %,d refused",
          sink.name(),
          delivered.cardinality(),
          sink.duplicates(),
          extra.cardinality(),
          sink.calls(),
          sink.refusedCalls());
    }
    long missingB = missing(ok, 0, sinkB);
    long missingA = missing(ok, boundary, sinkA);
    long misrouted = sinkA.delivered().get(0, boundary).cardinality();
    long neverSent =
        neverSent(sinkA, sent)
            + neverSent(sinkB, sent)
            + sinkA.foreign()
            + sinkB.foreign()
            + sinkA.unreadableRequests()
            + sinkB.unreadableRequests();
    long refusedDelivered = overlap(refused, sinkA) + overlap(refused, sinkB);
    findings.figure(
        "answered OK missing at B %,d; answered OK after the change missing at A %,d; at A from"
            + " before the change %,d; never sent %,d; refused yet delivered %,d",
        missingB, missingA, misrouted, neverSent, refusedDelivered);
    findings.expectZero(missingB, "spans answered OK never delivered to sink B");
    findings.expectZero(missingA, "spans answered OK after the layout change never delivered to A");
    findings.expectZero(misrouted, "spans sent before traces/a existed delivered to sink A");
    findings.expectZero(neverSent, "spans delivered that were never sent");
    findings.expectZero(refusedDelivered, "spans whose every attempt was refused, delivered");
    if (ok.get(boundary, Math.max(boundary, ok.length())).isEmpty()
        || ok.get(0, boundary).isEmpty()) {
      findings.broken("nothing answered OK before or after the layout change: nothing was checked");
    }
  }

  /** Spans of {@code ok} from {@code from} on that {@code sink} has not received. */
  static long missing(BitSet ok, int from, FaultSink sink) {
    BitSet missing = ok.get(from, Math.max(from, ok.length()));
    BitSet delivered = sink.delivered();
    BitSet shifted = delivered.get(from, Math.max(from, delivered.length()));
    missing.andNot(shifted);
    return missing.cardinality();
  }

  static long neverSent(FaultSink sink, int sent) {
    BitSet delivered = sink.delivered();
    return delivered.get(sent, Math.max(sent, delivered.length())).cardinality();
  }

  static long overlap(BitSet spans, FaultSink sink) {
    BitSet both = sink.delivered();
    both.and(spans);
    return both.cardinality();
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(FaultDaemon.HOST))) {
      return socket.getLocalPort();
    }
  }
}
