package dev.sluice.receiver.otlp;

import dev.sluice.core.component.Endpoint;
import dev.sluice.core.component.TlsServerConfig;
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
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.File;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * The OTLP/HTTP server: Netty's HTTP/1.1 codec, a body aggregator bounded by {@code
 * max_request_body_size}, and {@link OtlpHttpHandler}. Like the gRPC server, requests are handled
 * on the event loop: validating and offering a request never waits on the network.
 *
 * <p>It stops as HTTP servers stop gracefully: no new connections, idle kept-alive connections
 * closed at once, and each connection in the middle of a request left to finish it (its answer says
 * {@code Connection: close}) until the deadline, after which what is left is closed.
 */
final class HttpServer {
  private final HttpServerConfig config;
  private final RequestHandler handler;
  private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private OtlpHttpHandler.Routes routes;
  private EventLoopGroup group;
  private Channel channel;

  HttpServer(HttpServerConfig config, RequestHandler handler) {
    this.config = config;
    this.handler = handler;
  }

  void start() throws InterruptedException, SSLException {
    SslContext ssl = config.tls() == null ? null : sslContext(config.tls());
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
                    connections.add(channel);
                    ChannelPipeline pipeline = channel.pipeline();
                    if (ssl != null) {
                      pipeline.addLast(ssl.newHandler(channel.alloc()));
                    }
                    addHttpHandlers(pipeline, config, routes);
                  }
                });
    InetSocketAddress address = Endpoint.parse(config.endpoint()).socketAddress();
    channel = bootstrap.bind(address).sync().channel();
  }

  /** The handlers of one connection after TLS: codec, tracker, body aggregator, OTLP handler. */
  static void addHttpHandlers(
      ChannelPipeline pipeline, HttpServerConfig config, OtlpHttpHandler.Routes routes) {
    pipeline.addLast(new HttpServerCodec());
    pipeline.addLast(new RequestTracker());
    pipeline.addLast(new BoundedBodyAggregator(config.maxRequestBodySize()));
    pipeline.addLast(new OtlpHttpHandler(routes));
  }

  private static SslContext sslContext(TlsServerConfig tls) throws SSLException {
    SslContextBuilder ssl =
        SslContextBuilder.forServer(new File(tls.certFile()), new File(tls.keyFile()));
    if (!tls.clientCaFile().isEmpty()) {
      ssl.trustManager(new File(tls.clientCaFile())).clientAuth(ClientAuth.REQUIRE);
    }
    return ssl.build();
  }

  int port() {
    return ((InetSocketAddress) channel.localAddress()).getPort();
  }

  /** Stops as the class comment says; once only (a second call returns at once). */
  void shutdown(long deadlineNanos) throws InterruptedException {
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
