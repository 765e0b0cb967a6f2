package dev.sluice.exporter.otlp;

import dev.sluice.component.ClientAuthenticator;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.ExportResult;
import dev.sluice.component.Exporter;
import dev.sluice.component.Host;
import dev.sluice.component.TlsClientConfig;
import dev.sluice.component.tls.TlsLoader;
import dev.sluice.component.tls.TlsMaterial;
import dev.sluice.grpc.OtlpGrpc;
import dev.sluice.grpc.ZstdCodec;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.MarshalContext;
import dev.sluice.pdata.codec.OtlpMarshaler;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Codec;
import io.grpc.CompressorRegistry;
import io.grpc.Deadline;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NegotiationType;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SupportedCipherSuiteFilter;
import java.io.IOException;
import java.io.InputStream;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Logger;
import javax.net.ssl.SSLException;

/**
 * Sends batches over OTLP/gRPC. Each sending thread marshals into its own reusable {@link
 * MarshalContext} and hands grpc-java a {@link io.grpc.Drainable} view of it, so a steady stream of
 * batches allocates only what grpc-java itself needs per call.
 */
final class OtlpGrpcExporter implements Exporter {
  private final OtlpExporterConfig config;
  private final Logger logger;

  /** The exporter's key path in the configuration, {@code exporters.otlp}, for errors. */
  private final String configPath;

  private volatile ManagedChannel channel;

  /** The channel's TLS material, reloaded with {@code reload_interval}; null without TLS. */
  private TlsMaterial tls;

  private final Map<Signal, MethodDescriptor<MarshaledRequest, byte[]>> methods =
      new EnumMap<>(Signal.class);
  private final ThreadLocal<MarshalContext> contexts = ThreadLocal.withInitial(MarshalContext::new);
  private final Metadata headers = new Metadata();
  private final String compression;
  private volatile AuthCallCredentials credentials;

  OtlpGrpcExporter(ComponentSettings settings, OtlpExporterConfig config) {
    this.config = config;
    this.logger = settings.logger();
    this.configPath = "exporters." + settings.id();
    this.compression = config.grpcCompression();
    for (Map.Entry<String, String> header : config.headers().entrySet()) {
      headers.put(
          Metadata.Key.of(header.getKey(), Metadata.ASCII_STRING_MARSHALLER), header.getValue());
    }
    for (Signal signal : Signal.values()) {
      methods.put(
          signal,
          MethodDescriptor.<MarshaledRequest, byte[]>newBuilder()
              .setType(MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(OtlpGrpc.exportMethod(signal))
              .setRequestMarshaller(RequestMarshaller.INSTANCE)
              .setResponseMarshaller(OtlpGrpc.Bytes.MARSHALLER)
              .build());
    }
  }

  @Override
  public void start() throws IOException {
    start(Host.NONE);
  }

  @Override
  public void start(Host host) throws IOException {
    if (config.auth() != null) {
      ClientAuthenticator authenticator = host.clientAuthenticator(config.auth());
      // The authenticator's headers replace configured ones of the same name, as over HTTP,
      // rather than travelling beside them.
      for (String name : authenticator.requestHeaders().keySet()) {
        headers.discardAll(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER));
      }
      credentials = new AuthCallCredentials(authenticator);
    }
    channel = channel(config);
  }

  private ManagedChannel channel(OtlpExporterConfig config) throws IOException {
    Target target = Target.parse(config.endpoint());
    NettyChannelBuilder builder =
        NettyChannelBuilder.forAddress(target.endpoint().host(), target.endpoint().port())
            .compressorRegistry(compressors(config))
            .defaultLoadBalancingPolicy(config.balancerName())
            // Sluice retries whole batches itself, with the configured backoff; the channel's own
            // retries would keep and replay messages whose buffers are reused.
            .disableRetry();
    if (!config.authority().isEmpty()) {
      builder.overrideAuthority(config.authority());
    }
    OtlpExporterConfig.Keepalive keepalive = config.keepalive();
    if (keepalive != null && !keepalive.time().isZero()) {
      builder
          .keepAliveTime(keepalive.time().toNanos(), TimeUnit.NANOSECONDS)
          .keepAliveTimeout(keepalive.timeout().toNanos(), TimeUnit.NANOSECONDS)
          .keepAliveWithoutCalls(keepalive.permitWithoutStream());
    }
    TlsClientConfig tlsConfig = config.tls();
    if (tlsConfig.insecure() || target.plaintextScheme()) {
      builder.negotiationType(NegotiationType.PLAINTEXT);
    } else {
      tls = TlsLoader.client(tlsConfig, configPath + ".tls", logger);
      builder.sslContext(tls.context(OtlpGrpcExporter::sslContext, SslContext::cipherSuites));
      if (!tlsConfig.serverNameOverride().isEmpty()) {
        builder.overrideAuthority(tlsConfig.serverNameOverride());
      }
    }
    return builder.build();
  }

  /**
   * The channel's own compressors: identity and the configured compression at its level. Its own,
   * not grpc-java's default registry, so that one exporter's level does not reach another's
   * channel, which looks its compressor up by the same name.
   */
  private static CompressorRegistry compressors(OtlpExporterConfig config) {
    CompressorRegistry registry = CompressorRegistry.newEmptyInstance();
    registry.register(Codec.Identity.NONE);
    String compression = config.grpcCompression();
    if (compression != null) {
      int level = config.compressionParams().levelFor(compression);
      registry.register(
          "zstd".equals(compression) ? ZstdCodec.atLevel(level) : new GzipCompressor(level));
    }
    return registry;
  }

  /**
   * grpc-netty-shaded's client context over the loaded material: {@link GrpcSslContexts} chooses
   * the TLS provider and sets up ALPN for h2 and gRPC's default cipher suites, which a configured
   * {@code cipher_suites} then replaces. grpc-java verifies the host name itself (unless the trust
   * manager is {@code insecure_skip_verify}'s, which accepts any certificate for any name).
   */
  private static SslContext sslContext(TlsMaterial tls) throws SSLException {
    SslContextBuilder ssl = GrpcSslContexts.forClient().protocols(tls.protocols());
    if (tls.trustManagers() != null) {
      ssl.trustManager(tls.trustManagers());
    }
    if (tls.keyManagers() != null) {
      ssl.keyManager(tls.keyManagers());
    }
    if (tls.cipherSuites() != null) {
      ssl.ciphers(tls.cipherSuites(), SupportedCipherSuiteFilter.INSTANCE);
    }
    return ssl.build();
  }

  @Override
  public ExportResult export(Batch batch, long deadlineNanos) throws InterruptedException {
    MarshalContext context = contexts.get();
    int size = OtlpMarshaler.marshal(batch, context);
    CallOptions options =
        CallOptions.DEFAULT.withDeadline(
            Deadline.after(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS));
    if (compression != null) {
      options = options.withCompression(compression);
    }
    if (config.waitForReady()) {
      options = options.withWaitForReady();
    }
    if (credentials != null) {
      options = options.withCallCredentials(credentials);
    }
    ClientCall<MarshaledRequest, byte[]> call =
        channel.newCall(methods.get(batch.signal()), options);
    Answer answer = new Answer();
    Metadata callHeaders = new Metadata();
    callHeaders.merge(headers);
    call.start(answer, callHeaders);
    call.request(1);
    call.sendMessage(new MarshaledRequest(context.outputArray(), size));
    call.halfClose();
    try {
      // The call's own deadline ends it; the extra second only guards against a lost callback.
      return answer.result.get(
          Math.max(0, deadlineNanos - System.nanoTime()) + TimeUnit.SECONDS.toNanos(1),
          TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      call.cancel("the exporter is stopping", null);
      throw e;
    } catch (TimeoutException e) {
      call.cancel("no answer before the deadline", null);
      return ExportResult.retryable("no answer before the deadline", 0);
    } catch (ExecutionException e) {
      return ExportResult.retryable("call failed: " + e.getCause(), 0);
    } finally {
      // Only replaces an outsized array; a call that still holds the old one keeps it intact.
      context.release();
    }
  }

  /** Collects the response or the status of one call. */
  private static final class Answer extends ClientCall.Listener<byte[]> {
    final CompletableFuture<ExportResult> result = new CompletableFuture<>();
    private byte[] response;

    @Override
    public void onMessage(byte[] message) {
      response = message;
    }

    @Override
    public void onClose(Status status, Metadata trailers) {
      result.complete(
          status.isOk() ? GrpcAnswers.success(response) : GrpcAnswers.failure(status, trailers));
    }
  }

  @Override
  public void shutdown(long deadlineNanos) throws InterruptedException {
    if (tls != null) {
      tls.close();
    }
    if (channel == null) {
      return;
    }
    channel.shutdown();
    if (!channel.awaitTermination(
        Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS)) {
      channel.shutdownNow();
    }
  }

  private enum RequestMarshaller implements MethodDescriptor.Marshaller<MarshaledRequest> {
    INSTANCE;

    @Override
    public InputStream stream(MarshaledRequest value) {
      return value.stream();
    }

    @Override
    public MarshaledRequest parse(InputStream stream) {
      throw new UnsupportedOperationException("the exporter only writes requests");
    }
  }
}
