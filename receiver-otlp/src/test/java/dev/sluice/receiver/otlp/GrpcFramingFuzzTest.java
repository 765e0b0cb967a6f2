package dev.sluice.receiver.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.testkit.AllocationBound;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Fuzzes the gRPC server's framing (HTTP/2 frames, HPACK, the 5-byte length-prefixed messages,
 * message compression) with arbitrary bytes after the HTTP/2 client preface, sent over loopback to
 * the real receiver: grpc-java's Netty transport has no in-process form that runs its HTTP/2 code,
 * so this is a socket per input. The receiver is in no pipeline, so that no message goes on to the
 * indexer (fuzzed on its own). Checks: the server ends every connection (no hang), reports no
 * leaked buffer (shaded Netty's leak detector at PARANOID), and what its threads allocate for one
 * connection is within the allocation bound of the input beyond what an empty connection costs.
 */
class GrpcFramingFuzzTest {
  /** How many times an input over the bound is measured before it counts as a finding. */
  private static final int MEASUREMENTS = 3;

  private static final byte[] PREFACE =
      "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

  /** Long enough for a loaded machine; a server that has not closed by then hangs. */
  private static final int READ_TIMEOUT_MILLIS = 10_000;

  private static final int MAX_ANSWER_BYTES = 1 << 20;

  /** The server's max_recv_msg_size_mib, in bytes: one message may cost that much. */
  private static final long MAX_MESSAGE_BYTES = 1 << 20;

  /**
   * What grpc-java allocates for one call beyond the connection (stream state, metadata, the call,
   * its status and trailers): about 150 KiB measured; this is the allowance.
   */
  private static final long CALL_BYTES = 256 * 1024;

  private static final int FRAME_HEADER_BYTES = 9;
  private static final int HEADERS_FRAME = 1;

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  private static final List<String> LEAKS = new CopyOnWriteArrayList<>();
  private static final Logger LEAK_LOGGER =
      Logger.getLogger("io.grpc.netty.shaded.io.netty.util.ResourceLeakDetector");
  private static final Handler LEAK_HANDLER =
      new Handler() {
        @Override
        public void publish(LogRecord record) {
          if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
            LEAKS.add(String.valueOf(record.getMessage()));
          }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  private static OtlpReceiver receiver;
  private static long emptyConnectionBytes;
  private static int inputs;
  private static long[] serverThreads = new long[0];

  @BeforeAll
  static void start() throws Exception {
    LEAK_LOGGER.addHandler(LEAK_HANDLER);
    GrpcServerConfig grpc =
        new GrpcServerConfig(
            "127.0.0.1:0", "tcp", null, 1, 0, GrpcServerConfig.Keepalive.DEFAULT, false);
    receiver =
        (OtlpReceiver)
            new OtlpReceiverFactory()
                .create(
                    new ComponentSettings(
                        ComponentId.parse("otlp"), ComponentKind.RECEIVER, new MetricRegistry()),
                    new OtlpReceiverConfig(new OtlpReceiverConfig.Protocols(grpc, null)),
                    Map.of());
    receiver.start();
    for (int i = 0; i < 20; i++) {
      serverAllocation(new byte[0]);
    }
    serverThreads = findServerThreads();
    for (int i = 0; i < 20; i++) {
      emptyConnectionBytes = Math.max(emptyConnectionBytes, serverAllocation(new byte[0]));
    }
  }

  @AfterAll
  static void stop() throws Exception {
    LEAK_LOGGER.removeHandler(LEAK_HANDLER);
    receiver.shutdown(System.nanoTime() + 5_000_000_000L);
  }

  @FuzzTest
  void answersAnyFramesWithinBound(byte[] frames) throws Exception {
    // Connecting to the receiver is the point here, not a request forged from the input.
    BugDetectors.allowNetworkConnections((host, port) -> port.intValue() == receiver.grpcPort());
    serverAllocation(frames); // once unmeasured: first runs link and load what they use
    long limit =
        emptyConnectionBytes
            + MAX_MESSAGE_BYTES
            + CALL_BYTES * (headersFrames(frames) + 1)
            + AllocationBound.limitFor(frames.length);
    // The paranoid leak detector records a stack trace per buffer access and drops records past
    // its target at random, so one measurement can be high by megabytes for no fault of the
    // server's. What the server itself allocates for these bytes is the same every time: measure
    // again before calling it a finding, and keep the least.
    long allocated = serverAllocation(frames);
    for (int retry = 0; retry < MEASUREMENTS - 1 && allocated > limit; retry++) {
      allocated = Math.min(allocated, serverAllocation(frames));
    }
    assertThat(allocated)
        .as(
            "server allocation for %d bytes (an empty connection: %d)",
            frames.length, emptyConnectionBytes)
        .isLessThanOrEqualTo(limit);
    if (++inputs % 256 == 0) {
      System.gc(); // the leak detector reports leaked buffers once they are collected
      serverThreads = findServerThreads();
    }
    assertThat(LEAKS).as("leaked buffers").isEmpty();
  }

  /** The HEADERS frames in {@code frames}, each of which may open a call. */
  static int headersFrames(byte[] frames) {
    int count = 0;
    int at = 0;
    while (frames.length - at >= FRAME_HEADER_BYTES) {
      int length =
          (frames[at] & 0xff) << 16 | (frames[at + 1] & 0xff) << 8 | (frames[at + 2] & 0xff);
      if (frames[at + 3] == HEADERS_FRAME) {
        count++;
      }
      at += FRAME_HEADER_BYTES + length;
    }
    return count;
  }

  /** What the server's threads allocated for one connection that sent {@code frames}. */
  private static long serverAllocation(byte[] frames) throws IOException {
    long before = serverThreadsAllocated();
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), receiver.grpcPort())) {
      socket.setSoTimeout(READ_TIMEOUT_MILLIS);
      OutputStream out = socket.getOutputStream();
      out.write(PREFACE);
      out.write(frames);
      out.flush();
      socket.shutdownOutput();
      drain(socket.getInputStream());
    }
    return serverThreadsAllocated() - before;
  }

  private static void drain(InputStream in) throws IOException {
    byte[] buffer = new byte[8192];
    long total = 0;
    try {
      for (int read; (read = in.read(buffer)) >= 0; ) {
        total += read;
        if (total > MAX_ANSWER_BYTES) {
          throw new AssertionError("the server answers more than " + MAX_ANSWER_BYTES + " bytes");
        }
      }
    } catch (SocketTimeoutException e) {
      throw new AssertionError("the server did not end the connection", e);
    } catch (IOException e) {
      // A reset is an end too.
    }
  }

  private static long serverThreadsAllocated() {
    return Arrays.stream(THREADS.getThreadAllocatedBytes(serverThreads)).filter(b -> b > 0).sum();
  }

  /** The server's threads (its event loops start one by one, with the first connections). */
  private static long[] findServerThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("grpc-"))
        .mapToLong(Thread::getId)
        .toArray();
  }
}
