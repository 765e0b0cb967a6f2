package dev.sluice.bench.hostile;

import dev.sluice.bench.hostile.Answer.Kind;
import dev.sluice.bench.load.PassThrough;
import dev.sluice.pdata.Signal;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.CompressorRegistry;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Sends hostile cases over gRPC: pass-through marshallers, and pass-through codecs under the names
 * {@code gzip} and {@code zstd}, so that each body goes out exactly as the case made it with the
 * {@code grpc-encoding} the case claims (and the compressed flag set).
 */
final class HostileGrpcClient implements AutoCloseable {
  private static final Metadata.Key<byte[]> STATUS_DETAILS =
      Metadata.Key.of("grpc-status-details-bin", Metadata.BINARY_BYTE_MARSHALLER);

  /** Answers are a few bytes; a larger one is itself a finding but must not sink the client. */
  private static final int MAX_ANSWER_BYTES = 1 << 20;

  private final ManagedChannel channel;
  private final Map<Signal, MethodDescriptor<byte[], byte[]>> methods = new EnumMap<>(Signal.class);
  private final long timeoutMillis;

  HostileGrpcClient(String host, int port, long timeoutMillis) {
    CompressorRegistry registry = CompressorRegistry.newEmptyInstance();
    registry.register(new RawCodec(Encoding.GZIP.header()));
    registry.register(new RawCodec(Encoding.ZSTD.header()));
    this.channel =
        NettyChannelBuilder.forAddress(host, port)
            .usePlaintext()
            .directExecutor()
            .maxInboundMessageSize(MAX_ANSWER_BYTES)
            .compressorRegistry(registry)
            .build();
    for (Signal signal : Signal.values()) {
      methods.put(signal, PassThrough.exportMethod(signal, PassThrough.BYTES, PassThrough.DISCARD));
    }
    this.timeoutMillis = timeoutMillis;
  }

  void send(HostileCase request, Answer.Sink answers) {
    CallOptions options =
        CallOptions.DEFAULT.withDeadlineAfter(timeoutMillis, TimeUnit.MILLISECONDS);
    if (request.encodingHeader() != null) {
      options = options.withCompression(request.encodingHeader());
    }
    ClientCall<byte[], byte[]> call = channel.newCall(methods.get(request.signal()), options);
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onClose(Status status, Metadata trailers) {
            answers.answered(request, classify(status, trailers));
          }
        },
        new Metadata());
    call.request(2);
    call.sendMessage(request.body());
    call.halfClose();
  }

  static Answer classify(Status status, Metadata trailers) {
    switch (status.getCode()) {
      case OK:
        return Answer.of(Kind.ACCEPTED, "OK");
      case INVALID_ARGUMENT:
        return Answer.of(Kind.MALFORMED, "INVALID_ARGUMENT");
      case RESOURCE_EXHAUSTED:
        return Answer.of(Kind.TOO_LARGE, "RESOURCE_EXHAUSTED");
      case UNAVAILABLE:
        if (trailers != null && trailers.containsKey(STATUS_DETAILS)) {
          return Answer.of(Kind.BACKPRESSURE, "UNAVAILABLE");
        }
        return Answer.of(Kind.VIOLATION, "grpc UNAVAILABLE without RetryInfo: " + describe(status));
      default:
        return Answer.of(Kind.VIOLATION, "grpc " + status.getCode() + ": " + describe(status));
    }
  }

  private static String describe(Status status) {
    String description = status.getDescription() == null ? "" : status.getDescription();
    if (status.getCause() != null) {
      description += " (" + status.getCause().getClass().getSimpleName() + ")";
    }
    return Verdict.shorten(description);
  }

  @Override
  public void close() throws InterruptedException {
    channel.shutdown();
    if (!channel.awaitTermination(5, TimeUnit.SECONDS)) {
      channel.shutdownNow();
    }
  }
}
