package dev.sluice.http.testkit;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.ssl.SniHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.File;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An HTTP/1.1 server for the tests of the HTTP client and the exporters that use it, on Netty: it
 * counts the connections it accepted and that are closed, and hands every request to a {@link
 * Script} that answers it (or not) as the test wants. With TLS, it records the server name (SNI)
 * each client asked for. Binds a free port on loopback.
 */
public final class ScriptedHttpServer implements AutoCloseable {
  /** Decides how to answer each request (on the server's event loop). */
  public interface Script {
    void answer(Exchange exchange);
  }

  /** One request: its number (from 1, over all connections), head, body and connection. */
  public static final class Exchange {
    public final int number;
    public final String uri;
    public final HttpHeaders headers;
    public final byte[] body;
    public final Channel connection;
    private final ChannelHandlerContext ctx;

    Exchange(int number, FullHttpRequest request, ChannelHandlerContext ctx) {
      this.number = number;
      this.uri = request.uri();
      this.headers = request.headers().copy();
      this.body = ByteBufUtil.getBytes(request.content());
      this.connection = ctx.channel();
      this.ctx = ctx;
    }

    /** Answers with a status and an empty body, keeping the connection. */
    public void ok() {
      reply(200, new byte[0], false);
    }

    /** Answers with a Content-Length body; with {@code close}, says so and closes. */
    public void reply(int status, byte[] body, boolean close) {
      reply(status, body, close, close);
    }

    /**
     * Answers with a Content-Length body, with {@code Connection: close} if {@code sayClose}, and
     * closes the connection after it if {@code close}.
     */
    public void reply(int status, byte[] body, boolean sayClose, boolean close) {
      reply(status, body, sayClose, close, Map.of());
    }

    /**
     * Answers with a Content-Length body and a {@code Retry-After} header, keeping the connection.
     */
    public void replyRetryAfter(int status, byte[] body, String retryAfter) {
      reply(status, body, false, false, Map.of(HttpHeaderNames.RETRY_AFTER.toString(), retryAfter));
    }

    /** Answers with a Content-Length body and these headers, keeping the connection. */
    public void replyWithHeaders(int status, byte[] body, Map<String, String> headers) {
      reply(status, body, false, false, headers);
    }

    private void reply(
        int status, byte[] body, boolean sayClose, boolean close, Map<String, String> headers) {
      FullHttpResponse response =
          new DefaultFullHttpResponse(
              HttpVersion.HTTP_1_1,
              HttpResponseStatus.valueOf(status),
              Unpooled.wrappedBuffer(body));
      response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
      if (sayClose) {
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      }
      headers.forEach(response.headers()::add);
      if (close) {
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
      } else {
        ctx.writeAndFlush(response);
      }
    }

    /** Answers with a body of unannounced length, ended by closing the connection. */
    public void replyUntilClose(int status, byte[] body) {
      HttpResponse head =
          new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status));
      ctx.write(head);
      ctx.write(new DefaultHttpContent(Unpooled.wrappedBuffer(body)));
      ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT)
          .addListener(ChannelFutureListener.CLOSE);
    }

    /** Answers 200 with a chunked body. */
    public void replyChunked(byte[] body) {
      HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
      head.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
      ctx.write(head);
      for (int at = 0; at < body.length; at += 64 * 1024) {
        int end = Math.min(body.length, at + 64 * 1024);
        ctx.write(new DefaultHttpContent(Unpooled.wrappedBuffer(body, at, end - at)));
      }
      ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
    }
  }

  private final EventLoopGroup group =
      new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final Channel server;
  private final AtomicInteger accepted = new AtomicInteger();
  private final AtomicInteger closed = new AtomicInteger();
  private final AtomicInteger requests = new AtomicInteger();
  private final List<String> serverNames = new CopyOnWriteArrayList<>();

  private ScriptedHttpServer(Script script, SslContext tls) throws InterruptedException {
    server =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel channel) {
                    accepted.incrementAndGet();
                    channel.closeFuture().addListener(f -> closed.incrementAndGet());
                    ChannelPipeline pipeline = channel.pipeline();
                    if (tls != null) {
                      pipeline.addLast(
                          new SniHandler(
                              name -> {
                                serverNames.add(String.valueOf(name));
                                return tls;
                              }));
                    }
                    pipeline.addLast(new HttpServerCodec());
                    pipeline.addLast(new HttpObjectAggregator(64 << 20));
                    pipeline.addLast(
                        new SimpleChannelInboundHandler<FullHttpRequest>() {
                          @Override
                          protected void channelRead0(
                              ChannelHandlerContext ctx, FullHttpRequest request) {
                            script.answer(new Exchange(requests.incrementAndGet(), request, ctx));
                          }
                        });
                  }
                })
            .bind(new InetSocketAddress("127.0.0.1", 0))
            .sync()
            .channel();
  }

  /** A plain HTTP server. */
  public static ScriptedHttpServer start(Script script) throws InterruptedException {
    return new ScriptedHttpServer(script, null);
  }

  /** An https server with this certificate chain and key (PEM files). */
  public static ScriptedHttpServer startTls(Script script, File certChain, File key)
      throws Exception {
    return new ScriptedHttpServer(script, SslContextBuilder.forServer(certChain, key).build());
  }

  /** The server's root URL, as {@code scheme://host:port}. */
  public String url(String scheme, String host) {
    return scheme + "://" + host + ":" + ((InetSocketAddress) server.localAddress()).getPort();
  }

  /** {@code http://127.0.0.1:port}. */
  public String url() {
    return url("http", "127.0.0.1");
  }

  /** Connections accepted so far. */
  public int accepted() {
    return accepted.get();
  }

  /** Connections closed so far, by either side. */
  public int closed() {
    return closed.get();
  }

  /** Requests received so far. */
  public int requests() {
    return requests.get();
  }

  /** The server name each TLS client asked for ("null" for none). */
  public List<String> serverNames() {
    return serverNames;
  }

  @Override
  public void close() {
    server.close().syncUninterruptibly();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
