package dev.sluice.bench.fault;

import dev.sluice.bench.load.PassThrough;
import dev.sluice.pdata.Signal;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.BitSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A backend of the fault run: an OTLP/gRPC trace server on loopback that notes the number of every
 * span it receives (duplicates counted), and refuses with {@code UNAVAILABLE} when told to: the
 * next few calls, or every call while it is down.
 */
final class FaultSink implements AutoCloseable {
  private static final int MAX_REQUEST_BYTES = 64 << 20;
  private static final byte[] EMPTY_RESPONSE = new byte[0];

  private final String name;
  private final Server server;
  private final AtomicInteger refuseNext = new AtomicInteger();
  private volatile boolean down;

  // Guarded by this.
  private final BitSet delivered = new BitSet();
  private long spans;
  private long duplicates;
  private long foreign;
  private long unreadableRequests;
  private long calls;
  private long refusedCalls;

  FaultSink(String name) throws IOException {
    this.name = name;
    MethodDescriptor<byte[], byte[]> export =
        PassThrough.exportMethod(Signal.TRACES, PassThrough.BYTES, PassThrough.BYTES);
    ServerCalls.UnaryMethod<byte[], byte[]> method = this::export;
    this.server =
        NettyServerBuilder.forAddress(new InetSocketAddress(FaultDaemon.HOST, 0))
            .maxInboundMessageSize(MAX_REQUEST_BYTES)
            .addService(
                ServerServiceDefinition.builder(PassThrough.serviceName(Signal.TRACES))
                    .addMethod(export, ServerCalls.asyncUnaryCall(method))
                    .build())
            .build()
            .start();
  }

  String name() {
    return name;
  }

  int port() {
    return ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
  }

  /** Refuses the next {@code count} calls. */
  void refuseNext(int count) {
    refuseNext.addAndGet(count);
  }

  /** Refuses every call until {@code down(false)}. */
  void down(boolean down) {
    this.down = down;
    if (!down) {
      refuseNext.set(0);
    }
  }

  private void export(byte[] body, StreamObserver<byte[]> response) {
    boolean refuse = down || refuseNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
    synchronized (this) {
      calls++;
      if (refuse) {
        refusedCalls++;
      }
    }
    if (refuse) {
      response.onError(
          Status.UNAVAILABLE.withDescription("fault run: " + name + " refuses").asException());
      return;
    }
    synchronized (this) {
      int unnumbered = NumberedSpans.numbers(body, this::note);
      if (unnumbered < 0) {
        unreadableRequests++;
      } else {
        foreign += unnumbered;
      }
    }
    response.onNext(EMPTY_RESPONSE);
    response.onCompleted();
  }

  private void note(int number) {
    spans++;
    if (number < 0) {
      foreign++;
    } else if (delivered.get(number)) {
      duplicates++;
    } else {
      delivered.set(number);
    }
  }

  /** The distinct span numbers received so far. */
  synchronized BitSet delivered() {
    return (BitSet) delivered.clone();
  }

  /** Spans received, duplicates included. */
  synchronized long spans() {
    return spans;
  }

  synchronized long duplicates() {
    return duplicates;
  }

  /** Spans without a number of the run's: must stay 0. */
  synchronized long foreign() {
    return foreign;
  }

  synchronized long unreadableRequests() {
    return unreadableRequests;
  }

  synchronized long calls() {
    return calls;
  }

  synchronized long refusedCalls() {
    return refusedCalls;
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdown();
    if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
      server.shutdownNow();
    }
  }
}
