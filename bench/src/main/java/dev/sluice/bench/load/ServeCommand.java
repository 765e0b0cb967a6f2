package dev.sluice.bench.load;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Option;

/** What {@code sink} and {@code floor} share: ports, a bounded lifetime, counts on exit. */
abstract class ServeCommand implements Callable<Integer> {
  @Option(
      names = "--host",
      defaultValue = "127.0.0.1",
      description = "Address to listen on, loopback only (default: ${DEFAULT-VALUE}).")
  String host;

  @Option(
      names = "--grpc-port",
      defaultValue = "0",
      description = "OTLP gRPC port; 0 picks a free one (default: ${DEFAULT-VALUE}).")
  int grpcPort;

  @Option(
      names = "--http-port",
      defaultValue = "0",
      description = "HTTP port of /counts (and OTLP/HTTP for the sink); 0 picks a free one.")
  int httpPort;

  @Option(
      names = "--ports-file",
      description = "Writes \"GRPC_PORT HTTP_PORT\" here once listening.")
  Path portsFile;

  @Option(names = "--counts-file", description = "Writes the final counts (JSON) here on exit.")
  Path countsFile;

  @Option(
      names = "--max-seconds",
      defaultValue = "7200",
      description = "Exits after this many seconds at the latest (default: ${DEFAULT-VALUE}).")
  long maxSeconds;

  @Option(names = "--progress", description = "Prints the item rate every second on stderr.")
  boolean progress;

  abstract CountingServer server();

  /** Called on exit, after the final counts are written; returns the exit status. */
  int onExit(CountingServer server) {
    return 0;
  }

  /** True when the exit status carries a check's outcome, also when stopped by a signal. */
  boolean checks() {
    return false;
  }

  @Override
  public Integer call() throws Exception {
    Delivered.requireLoopback(host);
    CountingServer server = server().start();
    String ports = server.grpcPort() + " " + server.httpPort();
    System.err.println(
        server.mode().name().toLowerCase(Locale.ROOT)
            + " listening: gRPC "
            + host
            + ":"
            + server.grpcPort()
            + ", HTTP "
            + host
            + ":"
            + server.httpPort());
    if (portsFile != null) {
      Path tmp = portsFile.resolveSibling(portsFile.getFileName() + ".tmp");
      Files.writeString(tmp, ports + "\n", StandardCharsets.US_ASCII);
      Files.move(tmp, portsFile, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }
    CountDownLatch stopped = new CountDownLatch(1);
    CountDownLatch finished = new CountDownLatch(1);
    int[] status = {0};
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  stopped.countDown();
                  try {
                    finished.await(10, TimeUnit.SECONDS);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  if (status[0] != 0 || checks()) {
                    Runtime.getRuntime().halt(status[0]);
                  }
                }));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(maxSeconds);
    long lastItems = 0;
    long lastRequests = 0;
    while (!stopped.await(1, TimeUnit.SECONDS) && System.nanoTime() < deadline) {
      if (progress) {
        CountingServer.Counts counts = server.counts();
        System.err.printf(
            Locale.ROOT,
            "%,12d items/s %,8d req/s  total %,d items, %,d errors%n",
            counts.items() - lastItems,
            counts.requests() - lastRequests,
            counts.items(),
            counts.errors());
        lastItems = counts.items();
        lastRequests = counts.requests();
      }
    }
    server.close();
    String json = server.countsJson();
    System.out.println(json);
    if (countsFile != null) {
      Files.writeString(countsFile, json + "\n", StandardCharsets.UTF_8);
    }
    status[0] = onExit(server);
    finished.countDown();
    return status[0];
  }
}
