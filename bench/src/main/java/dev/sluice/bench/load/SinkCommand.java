package dev.sluice.bench.load;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sluice-bench sink}: the counting OTLP destination. */
@Command(
    name = "sink",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "An OTLP gRPC and OTLP/HTTP server that counts requests, bytes and items (with Sluice's"
          + " indexer on the raw bytes) and serves the totals as JSON on GET /counts.",
      "Runs until SIGTERM or --max-seconds; prints the totals on exit."
    })
final class SinkCommand extends ServeCommand {
  @Option(
      names = "--expect-items",
      description =
          "On exit (also on SIGTERM), checks that exactly this many items arrived: exit status 0"
              + " if so, 3 if not.")
  Long expectItems;

  @Override
  CountingServer server() {
    return new CountingServer(CountingServer.Mode.SINK, host, grpcPort, httpPort, true);
  }

  @Override
  boolean checks() {
    return expectItems != null;
  }

  @Override
  int onExit(CountingServer server) {
    if (expectItems == null) {
      return 0;
    }
    long items = server.counts().items();
    if (items == expectItems) {
      System.out.println("MATCH items=" + items);
      return 0;
    }
    System.out.println("MISMATCH expected=" + expectItems + " items=" + items);
    return 3;
  }
}
