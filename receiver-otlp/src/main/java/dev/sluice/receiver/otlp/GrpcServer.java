package dev.sluice.receiver.otlp;

import dev.sluice.component.Endpoint;
import dev.sluice.component.tls.TlsLoader;
import dev.sluice.component.tls.TlsMaterial;
import dev.sluice.grpc.OtlpGrpc;
import dev.sluice.grpc.ZstdCodec;
import dev.sluice.pdata.RequestMetadata;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.ByteArrays;
import io.grpc.DecompressorRegistry;
import io.grpc.KnownLength;
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
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SupportedCipherSuiteFilter;
import io.grpc.netty.shaded.io.netty.util.AsciiString;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import javax.net.ssl.SSLException;

/**
 * The OTLP gRPC server: {@code TraceService}, {@code MetricsService} and {@code LogsService}
 * Export, with pass-through marshallers (the request's bytes go to the indexer, never through
 * protobuf-java).
 *
 * <p>Calls run on the Netty event loop ({@code directExecutor}): handling a request is indexing it
 * and offering it to the pipelines, which never wait for the network (exporters send from their
 * queues' threads), so a thread hop would only add latency and CPU. Refusals are answered at once.
 *
 * <p>Limits at the edge: {@link GrpcAdmission} refuses a call at its headers when the pipelines or
 * the bytes in flight ({@link GrpcInFlightTracer}) are full; {@link GrpcConnectionLimit} closes
 * connections over {@code max_connections}; a fixed HTTP/2 flow-control window bounds what one
 * connection can push ahead of what the server has read; new connections must complete their
 * handshake within {@code handshake_timeout}; headers are bounded by {@link
 * #MAX_HEADER_LIST_BYTES}. A call answered before its client has sent all of it (any of these
 * refusals) has its stream reset ({@link GrpcAnsweredStreamReset}), so that it gives its place in
 * {@code max_concurrent_streams} back.
 */
final class GrpcServer {
  /**
   * The largest header list a call may send (HTTP/2 {@code SETTINGS_MAX_HEADER_LIST_SIZE}, names
   * and values plus 32 bytes per field). SDKs send a few hundred bytes, an auth token a few KiB;
   * over it grpc-java answers HTTP 431 and resets the stream, the connection stays up.
   */
  static final int MAX_HEADER_LIST_BYTES = 16 * 1024;

  /**
   * The HTTP/2 flow-control window of each connection and call, fixed (grpc-java would grow it with
   * its bandwidth-delay estimate up to 8 MiB): what a client can send that the server has not yet
   * read is bounded by it per connection. Calls being read give it back as fast as they arrive; 1
   * MiB is grpc-java's own starting window, ample on the networks a collector serves.
   */
  static final int FLOW_CONTROL_WINDOW_BYTES = 1 << 20;

  private final GrpcServerConfig config;
  private final RequestHandler handler;
  private final EdgeAdmission admission;
  private final ConnectionLimit connections;
  private GrpcAuthInterceptor auth;
  private Server server;
  private TlsMaterial tls;
  private ScheduledThreadPoolExecutor callDeadlines;

  GrpcServer(
      GrpcServerConfig config,
      RequestHandler handler,
      EdgeAdmission admission,
      ConnectionLimit connections) {
    this.config = config;
    this.handler = handler;
    this.admission = admission;
    this.connections = connections;
  }

  /** Checks every call with {@code auth} before it starts; call before {@link #start}. */
  void authenticate(GrpcAuthInterceptor auth) {
    this.auth = auth;
  }

  /**
   * Starts listening; a {@code tls} section that cannot be loaded fails with what is wrong.
   *
   * @param logger where TLS reloads are logged
   * @param configPath the server's key path, such as {@code receivers.otlp.protocols.grpc}
   */
  void start(Logger logger, String configPath) throws IOException {
    Endpoint endpoint = Endpoint.parse(config.endpoint());
    callDeadlines =
        new ScheduledThreadPoolExecutor(
            1,
            task -> {
              Thread thread = new Thread(task, "sluice-grpc-call-deadlines");
              thread.setDaemon(true);
              return thread;
            });
    // A call that ends in time takes its deadline out at once, not when it would have run out.
    callDeadlines.setRemoveOnCancelPolicy(true);
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(endpoint.socketAddress())
            .directExecutor()
            .withChildOption(ChannelOption.TCP_NODELAY, true)
            .maxInboundMessageSize(config.maxRecvMsgSizeMib() << 20)
            .maxInboundMetadataSize(MAX_HEADER_LIST_BYTES)
            .flowControlWindow(FLOW_CONTROL_WINDOW_BYTES)
            .handshakeTimeout(config.handshakeTimeout().toNanos(), TimeUnit.NANOSECONDS)
            .intercept(new GrpcAdmission(admission))
            .addStreamTracerFactory(
                new GrpcInFlightTracer.Factory(
                    admission.inFlight(), config.maxCallDuration().toNanos(), callDeadlines))
            .decompressorRegistry(
                DecompressorRegistry.getDefaultInstance().with(ZstdCodec.INSTANCE, true));
    if (config.maxConcurrentStreams() > 0) {
      builder.maxConcurrentCallsPerConnection(config.maxConcurrentStreams());
    }
    applyKeepalive(builder, config.keepalive());
    if (config.includeMetadata()) {
      builder.intercept(GrpcMetadata.interceptor());
    }
    if (config.tls() != null) {
      tls = TlsLoader.server(config.tls(), configPath + ".tls", logger);
    }
    try {
      builder.protocolNegotiator(
          new ComposingNegotiator(
              connections,
              tls == null
                  ? InternalProtocolNegotiators.serverPlaintext()
                  : InternalProtocolNegotiators.serverTls(
                      tls.context(GrpcServer::sslContext, SslContext::cipherSuites))));
      for (Signal signal : Signal.values()) {
        builder.addService(service(signal));
      }
      // Added last, so it runs first: a call without credentials takes no admission budget.
      if (auth != null) {
        builder.intercept(auth);
      }
      server = builder.build().start();
    } catch (IOException | RuntimeException e) {
      // A server that did not start is not shut down: stop its reloads and timers here.
      closeTls();
      callDeadlines.shutdownNow();
      throw e;
    }
  }

  private void closeTls() {
    if (tls != null) {
      tls.close();
    }
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

  /**
   * grpc-netty-shaded's context over the loaded material: {@link GrpcSslContexts} chooses the TLS
   * provider and sets up ALPN for h2 and gRPC's default cipher suites, which a configured {@code
   * cipher_suites} then replaces.
   */
  private static SslContext sslContext(TlsMaterial tls) throws SSLException {
    SslContextBuilder ssl =
        GrpcSslContexts.configure(SslContextBuilder.forServer(tls.keyManagers()))
            .protocols(tls.protocols());
    if (tls.cipherSuites() != null) {
      ssl.ciphers(tls.cipherSuites(), SupportedCipherSuiteFilter.INSTANCE);
    }
    if (tls.clientCertificateRequired()) {
      ssl.trustManager(tls.trustManagers()).clientAuth(ClientAuth.REQUIRE);
    }
    return ssl.build();
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
    handler.handle(
        signal,
        request.body(),
        config.includeMetadata() ? GrpcMetadata.current() : RequestMetadata.NONE,
        result -> answer(result, response));
  }

  /** Answers a call; once, from the event loop or from a durable pipeline's writer thread. */
  private static void answer(RequestHandler.Result result, StreamObserver<byte[]> response) {
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
      case FAILED:
        // Not among the codes OTLP clients retry.
        response.onError(Status.INTERNAL.withDescription(result.message()).asRuntimeException());
        return;
      default:
        response.onError(
            Status.UNAVAILABLE
                .withDescription(result.message())
                .asRuntimeException(
                    GrpcAdmission.unavailableTrailers(
                        result.message(), result.retryDelayMillis())));
    }
  }

  void shutdown(long deadlineNanos) throws InterruptedException {
    closeTls();
    if (server != null) {
      server.shutdown();
      if (!server.awaitTermination(
          Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS)) {
        server.shutdownNow();
      }
    }
    if (callDeadlines != null) {
      callDeadlines.shutdownNow();
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

    private final ConnectionLimit connections;
    private final InternalProtocolNegotiator.ProtocolNegotiator delegate;

    ComposingNegotiator(
        ConnectionLimit connections, InternalProtocolNegotiator.ProtocolNegotiator delegate) {
      this.connections = connections;
      this.delegate = delegate;
    }

    @Override
    public AsciiString scheme() {
      return delegate.scheme();
    }

    @Override
    public ChannelHandler newHandler(GrpcHttp2ConnectionHandler grpcHandler) {
      grpcHandler.setCumulator(new AdaptiveCumulator(COMPOSE_MIN_BYTES));
      return new GrpcConnectionLimit(
          connections, new GrpcAnsweredStreamReset(grpcHandler, delegate.newHandler(grpcHandler)));
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
