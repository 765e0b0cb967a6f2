package dev.sluice.bench.load;

import dev.sluice.grpc.ZstdCodec;
import dev.sluice.pdata.Signal;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.CompressorRegistry;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * OTLP over gRPC with pass-through marshallers: each call writes the encoded request as it is.
 * Calls go round-robin over {@code connections} channels (one HTTP/2 connection each); callbacks
 * run on the channels' event loops.
 */
public final class GrpcTransport implements Transport {
  private final List<ManagedChannel> channels = new ArrayList<>();
  private final Map<Signal, MethodDescriptor<byte[], byte[]>> methods = new EnumMap<>(Signal.class);
  private final CallOptions options;
  private final AtomicInteger next = new AtomicInteger();
  private final long timeoutMillis;

  /**
   * @param compression {@code none}, {@code gzip} or {@code zstd} (done by grpc-java per call)
   * @param flowControlWindow the HTTP/2 window of each connection, in bytes
   * @param timeoutMillis the deadline of each call
   */
  public GrpcTransport(
      String host,
      int port,
      int connections,
      String compression,
      int flowControlWindow,
      long timeoutMillis) {
    for (int i = 0; i < connections; i++) {
      channels.add(
          NettyChannelBuilder.forAddress(host, port)
              .usePlaintext()
              .directExecutor()
              .flowControlWindow(flowControlWindow)
              .maxInboundMessageSize(16 << 20)
              .compressorRegistry(compressors())
              .build());
    }
    for (Signal signal : Signal.values()) {
      methods.put(signal, PassThrough.exportMethod(signal, PassThrough.BYTES, PassThrough.DISCARD));
    }
    CallOptions callOptions = CallOptions.DEFAULT;
    if (!compression.equals("none")) {
      callOptions = callOptions.withCompression(compression);
    }
    this.options = callOptions;
    this.timeoutMillis = timeoutMillis;
  }

  private static CompressorRegistry compressors() {
    CompressorRegistry registry = CompressorRegistry.newEmptyInstance();
    registry.register(new io.grpc.Codec.Gzip());
    registry.register(ZstdCodec.INSTANCE);
    return registry;
  }

  @Override
  public void send(Signal signal, byte[] body, Done done) {
    ManagedChannel channel = channels.get(Math.floorMod(next.getAndIncrement(), channels.size()));
    ClientCall<byte[], byte[]> call =
        channel.newCall(
            methods.get(signal), options.withDeadlineAfter(timeoutMillis, TimeUnit.MILLISECONDS));
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onClose(Status status, Metadata trailers) {
            done.completed(status.isOk() ? null : status.getCode().name());
          }
        },
        new Metadata());
    call.request(2);
    call.sendMessage(body);
    call.halfClose();
  }

  @Override
  public void close() {
    for (ManagedChannel channel : channels) {
      channel.shutdown();
    }
    for (ManagedChannel channel : channels) {
      try {
        if (!channel.awaitTermination(5, TimeUnit.SECONDS)) {
          channel.shutdownNow();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        channel.shutdownNow();
      }
    }
  }
}
