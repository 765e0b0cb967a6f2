package dev.sluice.bench.load;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code sluice-bench ports N}: N distinct free loopback TCP ports, one a line. */
@Command(
    name = "ports",
    mixinStandardHelpOptions = true,
    description = "Prints N distinct TCP ports free on 127.0.0.1, one a line.")
final class PortsCommand implements Callable<Integer> {
  @Parameters(index = "0", defaultValue = "1", description = "How many (at most 32).")
  int count;

  @Override
  public Integer call() throws Exception {
    if (count < 1 || count > 32) {
      throw new IllegalArgumentException("between 1 and 32 ports");
    }
    List<ServerSocket> sockets = new ArrayList<>();
    try {
      for (int i = 0; i < count; i++) {
        ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        socket.setReuseAddress(true);
        sockets.add(socket);
      }
      for (ServerSocket socket : sockets) {
        System.out.println(socket.getLocalPort());
      }
    } finally {
      for (ServerSocket socket : sockets) {
        socket.close();
      }
    }
    return 0;
  }
}
