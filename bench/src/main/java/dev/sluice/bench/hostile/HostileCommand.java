package dev.sluice.bench.hostile;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sluice-bench hostile}: a daemon on loopback under mutated requests over gRPC and HTTP (see
 * {@link HostileRun}); prints the verdict and exits 1 when anything did not hold. With {@code
 * --replay N} it sends case N of the seed alone and prints it and its answer.
 */
@Command(
    name = "hostile",
    mixinStandardHelpOptions = true,
    description =
        "Start bin/sluice on loopback and send it mutated OTLP requests over gRPC and HTTP while a"
            + " good client sends valid spans; print the verdict (exit 1 on any violation).")
public final class HostileCommand implements Callable<Integer> {
  /**
   * The peak RSS bound under bin/sluice's default flags (-Xmx256m): 393 MiB measured at the peak of
   * a hostile run (the heap full before an OutOfMemoryError), plus 30 %.
   */
  static final long DEFAULT_RSS_BOUND_MIB = 512;

  private static final long REPLAY_SETTLE_MILLIS = 2_000;

  @Option(names = "--seed", defaultValue = "1", description = "Seed of every case (default 1).")
  long seed;

  @Option(
      names = "--first",
      defaultValue = "0",
      description = "Index of the first case (default 0): with --requests, a slice of a run.")
  long firstCase;

  @Option(
      names = "--requests",
      defaultValue = "1000000",
      description = "Hostile requests to send (default 1,000,000).")
  long requests;

  @Option(
      names = "--duration",
      defaultValue = "900",
      description = "Bound on the sending time in seconds (default 900, at most 3600).")
  long durationSeconds;

  @Option(
      names = "--concurrency",
      defaultValue = "16",
      description = "Hostile requests in flight (default 16).")
  int concurrency;

  @Option(
      names = "--timeout-millis",
      defaultValue = "30000",
      description = "Deadline of each request (default 30000).")
  long timeoutMillis;

  @Option(
      names = "--max-daemons",
      defaultValue = "20",
      description = "A daemon that dies is started again, up to this many in a run (default 20).")
  int maxDaemons;

  @Option(
      names = "--rss-bound-mib",
      defaultValue = "" + DEFAULT_RSS_BOUND_MIB,
      description = "The daemon's peak RSS must stay under this (default ${DEFAULT-VALUE}).")
  long rssBoundMib;

  @Option(
      names = "--good-requests",
      defaultValue = "100000",
      description = "Bound on the good client's requests of 10 spans (default 100000).")
  long goodRequests;

  @Option(
      names = "--launcher",
      defaultValue = "bin/sluice",
      description = "The collector's launcher (default bin/sluice).")
  Path launcher;

  @Option(
      names = "--work-dir",
      defaultValue = "bench/results/logs/hostile",
      description = "Where the daemon's config and log go (default bench/results/logs/hostile).")
  Path workDir;

  @Option(
      names = "--examples",
      description = "A directory of the OTLP specification's example JSON payloads to start from.")
  Path examples;

  @Option(
      names = "--skip",
      split = ",",
      description =
          "Mutations to leave out, by name (e.g. json-huge-number), while known failures are fixed.")
  java.util.Set<String> skipped = new java.util.TreeSet<>();

  @Option(names = "--replay", description = "Send only case N of the seed, and print it.")
  Long replay;

  @Override
  public Integer call() throws Exception {
    Files.createDirectories(workDir);
    HostileRun.Settings settings =
        new HostileRun.Settings(
            seed,
            firstCase,
            requests,
            Duration.ofSeconds(durationSeconds),
            concurrency,
            timeoutMillis,
            maxDaemons,
            rssBoundMib,
            goodRequests,
            launcher,
            workDir,
            examples,
            skipped);
    HostileRun run = new HostileRun(settings, System.out);
    if (replay != null) {
      return replay(run, replay);
    }
    Verdict verdict = run.run();
    verdict.print(System.out);
    return verdict.failures().isEmpty() ? 0 : 1;
  }

  private int replay(HostileRun run, long index) throws Exception {
    HostileCase request = run.cases().make(index);
    System.out.println("case #" + index + " " + request.key() + " (" + request.what() + ")");
    System.out.println("base64 " + Base64.getEncoder().encodeToString(request.body()));
    try (GoodSink sink = new GoodSink(Daemon.HOST);
        Daemon daemon = Daemon.start(launcher, workDir, sink.port());
        HostileGrpcClient grpc =
            new HostileGrpcClient(Daemon.HOST, daemon.grpcPort(), timeoutMillis);
        HostileHttpClient http =
            new HostileHttpClient(Daemon.HOST, daemon.httpPort(), timeoutMillis)) {
      CompletableFuture<Answer> answer = new CompletableFuture<>();
      if (request.protocol() == HostileCase.Protocol.GRPC) {
        grpc.send(request, (r, a) -> answer.complete(a));
      } else {
        http.send(request, (r, a) -> answer.complete(a));
      }
      Answer got = answer.get(timeoutMillis + 5_000, TimeUnit.MILLISECONDS);
      System.out.println("answer " + got.kind() + " " + got.detail());
      // A daemon that dies of a request may answer it first.
      Thread.sleep(REPLAY_SETTLE_MILLIS);
      System.out.println(
          "daemon alive: " + daemon.alive() + (daemon.alive() ? "" : daemon.lastLines()));
      return got.kind() == Answer.Kind.VIOLATION || !daemon.alive() ? 1 : 0;
    }
  }
}
