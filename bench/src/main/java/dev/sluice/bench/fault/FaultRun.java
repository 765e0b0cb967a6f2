package dev.sluice.bench.fault;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sluice-bench fault-run}: breaks the durable pipeline's promises on purpose, on loopback,
 * and checks that nothing answered OK is lost: twenty SIGKILLs under load with a change of the
 * pipelines' layout halfway ({@link KillRuns}), then a disk that fills and drains ({@link
 * FullDiskRun}, when {@code --disk-dir} names a small file system of its own). Prints a summary,
 * writes it to {@code --result}, and exits 1 when any promise broke. {@code bench/fault-run.sh}
 * builds what it needs, makes the small file system and runs it.
 */
@Command(
    name = "fault-run",
    mixinStandardHelpOptions = true,
    description =
        "Kill bin/sluice's durable pipelines under load (20 SIGKILLs, a layout change halfway) and"
            + " fill its log's disk; check that nothing answered OK is lost (exit 1 if anything"
            + " is).")
public final class FaultRun implements Callable<Integer> {
  private static final long POLL_MILLIS = 100;

  @Option(
      names = "--launcher",
      defaultValue = "bin/sluice",
      description = "The collector's launcher (default ${DEFAULT-VALUE}).")
  Path launcher;

  @Option(
      names = "--work-dir",
      defaultValue = "bench/results/logs/fault-run",
      description = "Configurations, logs and the kill runs' log (default ${DEFAULT-VALUE}).")
  Path workDir;

  @Option(
      names = "--disk-dir",
      description =
          "A directory on a small file system of its own (32 MiB) for the full-disk part; without"
              + " it that part is skipped.")
  Path diskDir;

  @Option(names = "--result", description = "Where the summary is written as well.")
  Path result;

  @Option(
      names = "--parts",
      split = ",",
      defaultValue = "kills,disk",
      description = "Which parts run: kills, disk (default ${DEFAULT-VALUE}).")
  Set<String> parts = new TreeSet<>();

  @Option(names = "--seed", defaultValue = "1", description = "Seed (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--kills",
      defaultValue = "20",
      description = "Runs that end in a kill, 2 to 100 (default ${DEFAULT-VALUE}).")
  int kills;

  @Option(
      names = "--clients",
      defaultValue = "2",
      description = "Client threads, 1 to 16 (default ${DEFAULT-VALUE}).")
  int clients;

  @Option(
      names = "--max-run-millis",
      defaultValue = "10000",
      description =
          "The longest a kill run's load goes on before the kill, 1000 to 60000 (default"
              + " ${DEFAULT-VALUE}).")
  long maxRunMillis;

  @Option(
      names = "--no-batch",
      description =
          "Pipelines without the batch processor, each exporter's in-memory queue of 2 requests"
              + " on one sending thread: a full queue then refuses requests already in the log.")
  boolean noBatch;

  @Option(
      names = "--invoked-as",
      defaultValue = "",
      description = "The command line to name in the summary (the script passes its own).")
  String invokedAs;

  @Option(names = "--commit", defaultValue = "", description = "The commit to name in the summary.")
  String commit;

  @Override
  public Integer call() throws Exception {
    if (kills < 2 || kills > 100 || clients < 1 || clients > 16) {
      System.err.println("--kills must be 2 to 100 and --clients 1 to 16");
      return 2;
    }
    if (maxRunMillis < 1000 || maxRunMillis > 60_000) {
      System.err.println("--max-run-millis must be 1000 to 60000");
      return 2;
    }
    if (!parts.stream().allMatch(p -> p.equals("kills") || p.equals("disk"))) {
      System.err.println("--parts takes kills and disk, not " + parts);
      return 2;
    }
    Files.createDirectories(workDir);
    Instant date = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    long started = System.nanoTime();
    PrintStream out = System.out;
    List<Findings> all = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    if (parts.contains("kills")) {
      all.add(
          new KillRuns(
                  new KillRuns.Settings(
                      launcher, workDir, seed, kills, clients, 50, maxRunMillis, 120, !noBatch),
                  out)
              .run());
    }
    if (parts.contains("disk")) {
      if (diskDir == null) {
        skipped.add(
            "disk: no --disk-dir (a small file system of its own; bench/fault-run.sh"
                + " makes one when run as root)");
      } else {
        all.add(
            new FullDiskRun(
                    new FullDiskRun.Settings(
                        launcher, workDir, diskDir, clients, 100, 180, 60, 120, !noBatch),
                    out)
                .run());
      }
    }
    List<String> summary =
        summary(date, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started), all, skipped);
    out.println();
    summary.forEach(out::println);
    if (result != null) {
      if (result.toAbsolutePath().getParent() != null) {
        Files.createDirectories(result.toAbsolutePath().getParent());
      }
      Files.write(result, summary);
      out.println("written to " + result);
    }
    return all.stream().allMatch(f -> f.broken().isEmpty()) ? 0 : 1;
  }

  private List<String> summary(
      Instant date, long elapsedSeconds, List<Findings> all, List<String> skipped) {
    boolean held = all.stream().allMatch(f -> f.broken().isEmpty());
    List<String> lines = new ArrayList<>();
    lines.add("FAULT RUN " + (held ? "PASS" : "FAIL") + " " + date);
    lines.add("command: " + (invokedAs.isEmpty() ? "sluice-bench fault-run" : invokedAs));
    if (!commit.isEmpty()) {
      lines.add("commit: " + commit);
    }
    lines.add(
        "machine: "
            + Runtime.getRuntime().availableProcessors()
            + " cores, "
            + System.getProperty("os.name")
            + " "
            + System.getProperty("os.version")
            + ", Java "
            + System.getProperty("java.version")
            + "; seed "
            + seed
            + (noBatch ? "; pipelines without batch, exporter queues of 2 requests" : ""));
    for (Findings findings : all) {
      for (String figure : findings.figures()) {
        lines.add("[" + findings.part() + "] " + figure);
      }
    }
    for (String skip : skipped) {
      lines.add("skipped: " + skip);
    }
    for (Findings findings : all) {
      for (String broken : findings.broken()) {
        lines.add("BROKEN [" + findings.part() + "] " + broken);
      }
    }
    lines.add("total elapsed " + elapsedSeconds + " s");
    return lines;
  }

  /** Polls {@code condition} until it holds (true) or {@code timeoutSeconds} pass (false). */
  static boolean await(BooleanSupplier condition, long timeoutSeconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    while (true) {
      if (condition.getAsBoolean()) {
        return true;
      }
      if (System.nanoTime() - deadline >= 0) {
        return false;
      }
      Thread.sleep(POLL_MILLIS);
    }
  }

  /** Deletes a directory and everything in it, if it exists. */
  static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }
}
