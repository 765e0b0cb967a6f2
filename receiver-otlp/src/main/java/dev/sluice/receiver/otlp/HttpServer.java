package dev.sluice.receiver.otlp;

import dev.sluice.component.Endpoint;
import dev.sluice.component.tls.TlsLoader;
import dev.sluice.component.tls.TlsMaterial;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import javax.net.ssl.SSLException;

/**
 * The OTLP/HTTP server: Netty's HTTP/1.1 codec, a body aggregator bounded by {@code
 * max_request_body_size}, and {@link OtlpHttpHandler}. Like the gRPC server, requests are handled
 * on the event loop: validating and offering a request never waits on the network.
 *
 * <p>It stops as HTTP servers stop gracefully: no new connections, idle kept-alive connections
 * closed at once, and each connection in the middle of a request left to finish it (its answer says
 * {@code Connection: close}) until the deadline, after which what is left is closed.
 *
 * <p>Limits at the edge: {@link ConnectionLimit} closes connections over {@code max_connections} at
 * accept; {@link ReadTimeouts} bounds how long a request may take to arrive; {@link HttpEdgeGate}
 * refuses at the headers and bounds the bytes of bodies being received; the codec bounds the
 * request line and the header fields.
 */
final class HttpServer {
  /** The longest request line; longer is answered 414. */
  static final int MAX_INITIAL_LINE_BYTES = 4096;

  /**
   * The most bytes of header fields per request; more is answered 431. This also bounds their
   * number. SDKs send a few hundred bytes, an auth token a few KiB.
   */
  static final int MAX_HEADER_BYTES = 16 * 1024;

  private final HttpServerConfig config;
  private final RequestHandler handler;
  private final EdgeAdmission admission;
  private final ConnectionLimit connectionLimit;
  private HttpAuthHandler.Factory auth;
  private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private OtlpHttpHandler.Routes routes;
  private EventLoopGroup group;
  private Channel channel;
  private TlsMaterial tls;

  HttpServer(
      HttpServerConfig config,
      RequestHandler handler,
      EdgeAdmission admission,
      ConnectionLimit connectionLimit) {
    this.config = config;
    this.handler = handler;
    this.admission = admission;
    this.connectionLimit = connectionLimit;
  }

  /** Checks every request with {@code auth} before its body is read; call before {@link #start}. */
  void authenticate(HttpAuthHandler.Factory auth) {
    this.auth = auth;
  }

  /**
   * Starts listening; a {@code tls} section that cannot be loaded fails with what is wrong.
   *
   * @param logger where TLS reloads are logged
   * @param configPath the server's key path, such as {@code receivers.otlp.protocols.http}
   */
  void start(Logger logger, String configPath) throws InterruptedException, IOException {
    if (config.tls() != null) {
      tls = TlsLoader.server(config.tls(), configPath + ".tls", logger);
    }
    SslContext ssl =
        tls == null ? null : tls.context(HttpServer::sslContext, SslContext::cipherSuites);
    routes = new OtlpHttpHandler.Routes(config, handler);
    group =
        new MultiThreadIoEventLoopGroup(
            Math.max(1, Runtime.getRuntime().availableProcessors()), NioIoHandler.newFactory());
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel channel) {
                    if (!connectionLimit.tryOpen()) {
                      channel.close();
                      return;
                    }
                    channel.closeFuture().addListener(closed -> connectionLimit.closed());
                    connections.add(channel);
                    ChannelPipeline pipeline = channel.pipeline();
                    if (ssl != null) {
                      pipeline.addLast(ssl.newHandler(channel.alloc()));
                    }
                    addHttpHandlers(pipeline, config, routes, admission, auth);
                  }
                });
    InetSocketAddress address = Endpoint.parse(config.endpoint()).socketAddress();
    channel = bootstrap.bind(address).sync().channel();
  }

  /**
   * The handlers of one connection after TLS: read timeouts, codec, tracker, authentication, the
   * admission gate, body aggregator, OTLP handler.
   */
  static void addHttpHandlers(
      ChannelPipeline pipeline,
      HttpServerConfig config,
      OtlpHttpHandler.Routes routes,
      EdgeAdmission admission,
      HttpAuthHandler.Factory auth) {
    ReadTimeouts timeouts = new ReadTimeouts(config);
    pipeline.addLast(timeouts.requestStart());
    pipeline.addLast(new HttpServerCodec(decoderLimits()));
    pipeline.addLast(new RequestTracker());
    pipeline.addLast(timeouts);
    // Before the gate: a request without credentials takes no admission budget.
    if (auth != null) {
      pipeline.addLast(auth.newHandler());
    }
    pipeline.addLast(new HttpEdgeGate(routes, admission));
    pipeline.addLast(new BoundedBodyAggregator(config.maxRequestBodySize()));
    pipeline.addLast(new OtlpHttpHandler(routes));
  }

  private static HttpDecoderConfig decoderLimits() {
    return new HttpDecoderConfig()
        .setMaxInitialLineLength(MAX_INITIAL_LINE_BYTES)
        .setMaxHeaderSize(MAX_HEADER_BYTES);
  }

  /** Netty's context over the loaded material; a configured cipher_suites replaces its defaults. */
  private static SslContext sslContext(TlsMaterial tls) throws SSLException {
    SslContextBuilder ssl =
        SslContextBuilder.forServer(tls.keyManagers()).protocols(tls.protocols());
    if (tls.cipherSuites() != null) {
      ssl.ciphers(tls.cipherSuites(), SupportedCipherSuiteFilter.INSTANCE);
    }
    if (tls.clientCertificateRequired()) {
      ssl.trustManager(tls.trustManagers()).clientAuth(ClientAuth.REQUIRE);
    }
    return ssl.build();
  }

  int port() {
    return ((InetSocketAddress) channel.localAddress()).getPort();
  }

  /** Stops as the class comment says; once only (a second call returns at once). */
  void shutdown(long deadlineNanos) throws InterruptedException {
    if (tls != null) {
      tls.close();
    }
    if (group == null || group.isShuttingDown()) {
      return;
    }
    if (channel != null) {
      channel.close().await(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    }
    routes.draining = true;
    connections.forEach(
        connection -> connection.pipeline().fireUserEventTriggered(RequestTracker.DRAIN));
    connections
        .newCloseFuture()
        .await(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    long left = Math.max(0, deadlineNanos - System.nanoTime());
    group.shutdownGracefully(0, left, TimeUnit.NANOSECONDS).await(left, TimeUnit.NANOSECONDS);
  }
}
