package dev.sluice.bench;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An HTTP/1.1 server on 127.0.0.1 that reads each request's body, discards it and answers 200 with
 * an empty body (400 if fewer or more bytes came than {@code Content-Length} announced), keeping
 * the connection alive. One event-loop thread, no aggregation: as little server work as possible,
 * so that a client benchmark measures the client.
 *
 * <p>{@link #main} runs it in a process of its own, printing its port on the first line of standard
 * output and stopping when standard input closes: {@link HttpClientBenchmark} runs it so, so that
 * the server's CPU and allocation do not count against the client.
 */
public final class DiscardHttpServer implements AutoCloseable {
  private final EventLoopGroup group;
  private final Channel channel;
  private final AtomicLong bodyBytes;

  private DiscardHttpServer(EventLoopGroup group, Channel channel, AtomicLong bodyBytes) {
    this.group = group;
    this.channel = channel;
    this.bodyBytes = bodyBytes;
  }

  /** Starts a server on an ephemeral port of 127.0.0.1. */
  public static DiscardHttpServer start() throws InterruptedException {
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    AtomicLong bodyBytes = new AtomicLong();
    Channel channel =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel channel) {
                    channel.pipeline().addLast(new HttpServerCodec(), new Discard(bodyBytes));
                  }
                })
            .bind(new InetSocketAddress("127.0.0.1", 0))
            .sync()
            .channel();
    return new DiscardHttpServer(group, channel, bodyBytes);
  }

  public int port() {
    return ((InetSocketAddress) channel.localAddress()).getPort();
  }

  /** Body bytes received so far, over all requests. */
  public long bodyBytes() {
    return bodyBytes.get();
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** Counts a request's body bytes and answers once the last part came. */
  private static final class Discard extends SimpleChannelInboundHandler<HttpObject> {
    private final AtomicLong total;
    private long expected;
    private long received;
    private boolean keepAlive;

    Discard(AtomicLong total) {
      this.total = total;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, HttpObject message) {
      if (message instanceof HttpRequest request) {
        expected = HttpUtil.getContentLength(request, -1L);
        received = 0;
        keepAlive = HttpUtil.isKeepAlive(request);
      }
      if (message instanceof HttpContent content) {
        received += content.content().readableBytes();
        if (message instanceof LastHttpContent) {
          total.addAndGet(received);
          FullHttpResponse response =
              new DefaultFullHttpResponse(
                  HttpVersion.HTTP_1_1,
                  received == expected ? HttpResponseStatus.OK : HttpResponseStatus.BAD_REQUEST,
                  Unpooled.EMPTY_BUFFER);
          response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
          HttpUtil.setKeepAlive(response, keepAlive);
          if (keepAlive) {
            ctx.writeAndFlush(response);
          } else {
            ctx.writeAndFlush(response).addListener(f -> ctx.close());
          }
        }
      }
    }
  }

  /** Runs the server until standard input closes; prints the port first. */
  public static void main(String[] args) throws Exception {
    try (DiscardHttpServer server = start()) {
      System.out.println(server.port());
      System.out.flush();
      while (System.in.read() >= 0) {
        // Wait for the parent to close our standard input (or exit).
      }
    }
  }
}
