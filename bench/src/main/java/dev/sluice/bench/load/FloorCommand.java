package dev.sluice.bench.load;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sluice-bench floor}: the bare gRPC server a collector is measured against. */
@Command(
    name = "floor",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "A bare grpc-java server (grpc-netty-shaded, pass-through marshallers, calls on the event"
          + " loop) whose OTLP Export methods read each request into an array and discard it:"
          + " the cost of the transport alone. Counts requests on GET /counts."
    })
final class FloorCommand extends ServeCommand {
  @Option(
      names = "--read",
      defaultValue = "copy",
      description =
          "copy: read each request into an array, as a collector must (default); skip: only skip"
              + " its bytes.")
  String read;

  @Override
  CountingServer server() {
    if (!read.equals("copy") && !read.equals("skip")) {
      throw new IllegalArgumentException("--read copy or skip, not " + read);
    }
    return new CountingServer(
        CountingServer.Mode.FLOOR, host, grpcPort, httpPort, read.equals("copy"));
  }
}
