package dev.sluice.receiver.otlp;

import dev.sluice.core.component.Endpoint;
import dev.sluice.core.component.TlsServerConfig;
import dev.sluice.core.grpc.OtlpGrpc;
import dev.sluice.core.grpc.ZstdCodec;
import dev.sluice.core.otlp.Signal;
import dev.sluice.core.wire.ByteArrays;
import io.grpc.DecompressorRegistry;
import io.grpc.KnownLength;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.GrpcHttp2ConnectionHandler;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.InternalProtocolNegotiator;
import io.grpc.netty.shaded.io.grpc.netty.InternalProtocolNegotiators;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandler;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.handler.codec.AdaptiveCumulator;
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.grpc.netty.shaded.io.netty.util.AsciiString;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * The OTLP gRPC server: {@code TraceService}, {@code MetricsService} and {@code LogsService}
 * Export, with pass-through marshallers (the request's bytes go to the indexer, never through
 * protobuf-java).
 *
 * <p>Calls run on the Netty event loop ({@code directExecutor}): handling a request is indexing it
 * and offering it to the pipelines, which never wait for the network (exporters send from their
 * queues' threads), so a thread hop would only add latency and CPU. Refusals are answered at once.
 */
final class GrpcServer {
  private static final Metadata.Key<byte[]> STATUS_DETAILS =
      Metadata.Key.of("grpc-status-details-bin", Metadata.BINARY_BYTE_MARSHALLER);

  private final GrpcServerConfig config;
  private final RequestHandler handler;
  private Server server;

  GrpcServer(GrpcServerConfig config, RequestHandler handler) {
    this.config = config;
    this.handler = handler;
  }

  void start() throws IOException {
    Endpoint endpoint = Endpoint.parse(config.endpoint());
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(endpoint.socketAddress())
            .directExecutor()
            .withChildOption(ChannelOption.TCP_NODELAY, true)
            .maxInboundMessageSize(config.maxRecvMsgSizeMib() << 20)
            .decompressorRegistry(
                DecompressorRegistry.getDefaultInstance().with(ZstdCodec.INSTANCE, true));
    if (config.maxConcurrentStreams() > 0) {
      builder.maxConcurrentCallsPerConnection(config.maxConcurrentStreams());
    }
    applyKeepalive(builder, config.keepalive());
    builder.protocolNegotiator(
        new ComposingNegotiator(
            config.tls() == null
                ? InternalProtocolNegotiators.serverPlaintext()
                : InternalProtocolNegotiators.serverTls(sslContext(config.tls()))));
    for (Signal signal : Signal.values()) {
      builder.addService(service(signal));
    }
    server = builder.build().start();
  }

  /** The port bound, for an endpoint configured with port 0. */
  int port() {
    return ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
  }

  private static void applyKeepalive(
      NettyServerBuilder builder, GrpcServerConfig.Keepalive keepalive) {
    if (keepalive == null) {
      return;
    }
    GrpcServerConfig.ServerParameters server = keepalive.serverParameters();
    if (server != null) {
      if (!server.maxConnectionIdle().isZero()) {
        builder.maxConnectionIdle(server.maxConnectionIdle().toNanos(), TimeUnit.NANOSECONDS);
      }
      if (!server.maxConnectionAge().isZero()) {
        builder.maxConnectionAge(server.maxConnectionAge().toNanos(), TimeUnit.NANOSECONDS);
      }
      if (!server.maxConnectionAgeGrace().isZero()) {
        builder.maxConnectionAgeGrace(
            server.maxConnectionAgeGrace().toNanos(), TimeUnit.NANOSECONDS);
      }
      if (!server.time().isZero()) {
        builder.keepAliveTime(server.time().toNanos(), TimeUnit.NANOSECONDS);
      }
      if (!server.timeout().isZero()) {
        builder.keepAliveTimeout(server.timeout().toNanos(), TimeUnit.NANOSECONDS);
      }
    }
    GrpcServerConfig.EnforcementPolicy policy = keepalive.enforcementPolicy();
    if (policy != null) {
      builder.permitKeepAliveTime(policy.minTime().toNanos(), TimeUnit.NANOSECONDS);
      builder.permitKeepAliveWithoutCalls(policy.permitWithoutStream());
    }
  }

  private static io.grpc.netty.shaded.io.netty.handler.ssl.SslContext sslContext(
      TlsServerConfig tls) {
    try {
      SslContextBuilder ssl =
          GrpcSslContexts.forServer(new File(tls.certFile()), new File(tls.keyFile()));
      if (!tls.clientCaFile().isEmpty()) {
        ssl.trustManager(new File(tls.clientCaFile())).clientAuth(ClientAuth.REQUIRE);
      }
      return ssl.build();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot load the TLS certificate or key", e);
    }
  }

  private ServerServiceDefinition service(Signal signal) {
    String service = OtlpGrpc.serviceName(signal);
    MethodDescriptor<Incoming, byte[]> export =
        MethodDescriptor.<Incoming, byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName(OtlpGrpc.exportMethod(signal))
            .setRequestMarshaller(IncomingMarshaller.INSTANCE)
            .setResponseMarshaller(OtlpGrpc.Bytes.MARSHALLER)
            .build();
    return ServerServiceDefinition.builder(service)
        .addMethod(
            export, ServerCalls.asyncUnaryCall((body, response) -> export(signal, body, response)))
        .build();
  }

  private void export(Signal signal, Incoming request, StreamObserver<byte[]> response) {
    if (request.error() != null) {
      response.onError(request.error().asRuntimeException());
      return;
    }
    RequestHandler.Result result = handler.handle(signal, request.body());
    switch (result.outcome()) {
      case ACCEPTED:
        response.onNext(RequestHandler.EMPTY_RESPONSE);
        response.onCompleted();
        return;
      case MALFORMED:
        response.onError(
            Status.INVALID_ARGUMENT.withDescription(result.message()).asRuntimeException());
        return;
      case NO_PIPELINE:
        response.onError(
            Status.UNIMPLEMENTED.withDescription(result.message()).asRuntimeException());
        return;
      default:
        Metadata trailers = new Metadata();
        trailers.put(
            STATUS_DETAILS,
            RpcStatus.encode(
                Status.Code.UNAVAILABLE.value(), result.message(), result.retryDelayMillis()));
        response.onError(
            Status.UNAVAILABLE.withDescription(result.message()).asRuntimeException(trailers));
    }
  }

  void shutdown(long deadlineNanos) throws InterruptedException {
    if (server == null) {
      return;
    }
    server.shutdown();
    if (!server.awaitTermination(
        Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS)) {
      server.shutdownNow();
    }
  }

  /**
   * Has the connection's HTTP/2 frame decoder keep the socket's reads as they are, composing them
   * instead of copying each read into a larger buffer when a frame spans two reads (Netty's default
   * for a {@code ByteToMessageDecoder}): with large requests nearly every read ends inside a DATA
   * frame, so the default copied all of a request's bytes once more before gRPC saw them.
   *
   * <p>grpc-java has no public way to reach that decoder; its {@code Internal} negotiator API is
   * the way in (the plaintext and TLS negotiators it wraps are grpc-java's own), so a grpc-java
   * upgrade must keep it: {@code GrpcReceiverTest} covers plaintext, and exporter-otlp's {@code
   * OtlpGrpcTlsTest} sends to this receiver over TLS and mutual TLS.
   */
  private static final class ComposingNegotiator
      implements InternalProtocolNegotiator.ProtocolNegotiator {
    /** Reads smaller than this are merged into the last one rather than composed. */
    private static final int COMPOSE_MIN_BYTES = 16 * 1024;

    private final InternalProtocolNegotiator.ProtocolNegotiator delegate;

    ComposingNegotiator(InternalProtocolNegotiator.ProtocolNegotiator delegate) {
      this.delegate = delegate;
    }

    @Override
    public AsciiString scheme() {
      return delegate.scheme();
    }

    @Override
    public ChannelHandler newHandler(GrpcHttp2ConnectionHandler grpcHandler) {
      grpcHandler.setCumulator(new AdaptiveCumulator(COMPOSE_MIN_BYTES));
      return delegate.newHandler(grpcHandler);
    }

    @Override
    public void close() {
      delegate.close();
    }
  }

  /** A request body, or why it could not be read (such as a decompressed size over the limit). */
  record Incoming(byte[] body, Status error) {}

  /**
   * Reads a request into one array of its exact length (grpc-java gives its size), which becomes
   * the request's immutable source; the array is not zeroed first, since the read fills it or it is
   * dropped. grpc-java has already bounded it by {@code max_recv_msg_size_mib}, also after
   * decompression; a read that fails for that reason is returned as an error for the handler to
   * answer, since exceptions thrown here would not reach the client as a status on the event loop.
   * A compressed message that does not decompress (corrupt or truncated) is INVALID_ARGUMENT.
   */
  enum IncomingMarshaller implements MethodDescriptor.Marshaller<Incoming> {
    INSTANCE;

    @Override
    public InputStream stream(Incoming value) {
      return new ByteArrayInputStream(value.body());
    }

    @Override
    public Incoming parse(InputStream stream) {
      try {
        if (stream instanceof KnownLength) {
          int size = stream.available();
          byte[] bytes = ByteArrays.forOverwrite(size);
          if (stream.readNBytes(bytes, 0, size) == size && stream.read() < 0) {
            return new Incoming(bytes, null);
          }
          return new Incoming(
              null, Status.INTERNAL.withDescription("message length changed while reading"));
        }
        // Compressed: grpc-java's stream stops at max_recv_msg_size_mib (RESOURCE_EXHAUSTED).
        // Closed here, since a zstd stream holds native memory until it is closed.
        try (stream) {
          return new Incoming(stream.readAllBytes(), null);
        }
      } catch (StatusRuntimeException e) {
        return new Incoming(null, e.getStatus());
      } catch (IOException | RuntimeException e) {
        // RuntimeException: zstd-jni reports some corrupt frames that way.
        return new Incoming(
            null,
            Status.INVALID_ARGUMENT.withDescription(
                "cannot decompress the request: " + BodyDecoder.quoted(e.getMessage())));
      }
    }
  }
}
