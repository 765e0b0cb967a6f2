package dev.sluice.http;

import dev.sluice.component.TlsClientConfig;
import dev.sluice.component.tls.TlsLoader;
import dev.sluice.component.tls.TlsMaterial;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import io.netty.util.AttributeKey;
import io.netty.util.NetUtil;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Logger;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;

/**
 * The exporters' HTTP/1.1 client, on Netty: one small event loop group, and for each origin
 * (scheme, host and port) a pool of kept-alive connections with at most one request in flight on
 * each. A sending thread takes an idle connection, or opens one, writes its request and waits for
 * the answer; connections are discarded, never reused, once the server closed them, asked to
 * ({@code Connection: close}), answered too much, broke, missed a deadline, or stayed idle for the
 * idle timeout.
 *
 * <pre>{@code
 * HttpClient http = new HttpClient("sluice-exporter-" + id + "-io", tls, "exporters." + id + ".tls",
 *     logger, timeout, HttpClient.MAX_RESPONSE_BYTES, HttpClient.IDLE_TIMEOUT);   // in start()
 * HttpClient.Route route = http.route(url, Map.of("Content-Type", "application/x-protobuf"));
 * HttpClient.Response response =
 *     http.post(route, body, 0, length, Map.of(), deadlineNanos);               // any thread
 * response.status(); response.header("Retry-After"); response.body();
 * http.shutdown(deadlineNanos);                                                 // in shutdown()
 * }</pre>
 *
 * <p>The body is not copied: the caller may pass a buffer it reuses, since {@link #post} returns
 * only once Netty is done with it, whether the request was answered, failed or timed out (a
 * connection that is abandoned is closed, and {@code post} waits until it is). Routes and the
 * client are shared by any number of sending threads.
 *
 * <p>HTTP/1.1 only; no HTTP/2 and no redirects.
 */
public final class HttpClient {
  /** A bound for response bodies that fits any exporter's answers: 4 MiB. */
  public static final int MAX_RESPONSE_BYTES = 4 << 20;

  /**
   * How long a connection may stay idle and still be used: longer, and a firewall or load balancer
   * on the way may have forgotten it without a word. The OpenTelemetry Collector's default.
   */
  public static final Duration IDLE_TIMEOUT = Duration.ofSeconds(90);

  /** How long to wait for Netty to close a connection that is being given up. */
  private static final long CLOSE_WAIT_MILLIS = 5_000;

  private static final byte[] EMPTY = new byte[0];

  private static final AttributeKey<Connection> CONNECTION =
      AttributeKey.valueOf(HttpClient.class, "connection");

  /** Names and values are checked (no CR or LF that would start another header, say). */
  private static final HttpHeadersFactory VALIDATED = DefaultHttpHeadersFactory.headersFactory();

  /** A request's headers that are a copy of a route's, validated once, need no second check. */
  private static final HttpHeadersFactory UNVALIDATED =
      DefaultHttpHeadersFactory.headersFactory().withValidation(false);

  private final EventLoopGroup group;

  /** Every open connection, for shutdown; connections opened after it are closed at once. */
  private final ChannelGroup connections;

  /** The TLS material {@link #ssl} reads, reloaded with {@code reload_interval}; or null. */
  private final TlsMaterial tls;

  private final SslContext ssl;
  private final String serverNameOverride;
  private final int connectTimeoutMillis;
  private final int maxResponseBytes;
  private final long idleTimeoutNanos;

  /**
   * A {@code Retry-After} header's delay in nanoseconds: delay-seconds or an HTTP-date; 0 when it
   * cannot be read or is past; a delay too long for a {@code long} of nanoseconds (about 292 years)
   * is {@link Long#MAX_VALUE}, never an exception.
   */
  public static long retryAfterNanos(String value) {
    String text = value.trim();
    try {
      return saturatedNanos(Duration.ofSeconds(Math.max(0, Long.parseLong(text))));
    } catch (NumberFormatException notSeconds) {
      try {
        ZonedDateTime at = ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME);
        return Math.max(0, saturatedNanos(Duration.between(ZonedDateTime.now(at.getZone()), at)));
      } catch (DateTimeParseException notADate) {
        return 0;
      }
    }
  }

  private static long saturatedNanos(Duration delay) {
    try {
      return delay.toNanos();
    } catch (ArithmeticException tooLong) {
      return delay.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  /** The connection pools by origin: routes to the same origin share one. */
  private final Map<String, Pool> pools = new ConcurrentHashMap<>();

  /**
   * Creates the client and its event loop (one thread, named for the exporter). Loads the TLS
   * material at once; with {@code reload_interval} it is reloaded until {@link #shutdown}.
   *
   * @param name the event loop thread's name prefix
   * @param tls the TLS settings for https origins, or null when there is none (then only http URLs
   *     can be routed)
   * @param tlsPath the {@code tls} section's key path, for errors
   * @param logger where TLS reloads are logged
   * @param connectTimeout the longest a connection (and its TLS handshake) may take
   * @param maxResponseBytes the largest response body read; a larger one fails the request with
   *     {@link ResponseTooLargeException}
   * @param idleTimeout how long an idle connection may be kept for another request
   * @throws IOException when the TLS material cannot be loaded
   */
  public HttpClient(
      String name,
      TlsClientConfig tls,
      String tlsPath,
      Logger logger,
      Duration connectTimeout,
      int maxResponseBytes,
      Duration idleTimeout)
      throws IOException {
    this.tls = tls == null ? null : TlsLoader.client(tls, tlsPath, logger);
    this.ssl =
        tls == null
            ? null
            : this.tls.context(
                material -> sslContext(material, tls.insecureSkipVerify()),
                SslContext::cipherSuites);
    this.serverNameOverride = tls == null ? "" : tls.serverNameOverride();
    this.connectTimeoutMillis = (int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis());
    this.maxResponseBytes = maxResponseBytes;
    this.idleTimeoutNanos = idleTimeout.toNanos();
    this.group =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory(name, true), NioIoHandler.newFactory());
    this.connections = new DefaultChannelGroup(name, group.next(), true);
  }

  /**
   * Netty's client context over the loaded material: host name verification unless {@code
   * insecure_skip_verify} (whose trust manager accepts any certificate for any name); a configured
   * {@code cipher_suites} replaces Netty's defaults.
   */
  private static SslContext sslContext(TlsMaterial tls, boolean insecureSkipVerify)
      throws SSLException {
    SslContextBuilder ssl =
        SslContextBuilder.forClient()
            .protocols(tls.protocols())
            .endpointIdentificationAlgorithm(insecureSkipVerify ? null : "HTTPS");
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

  /**
   * Where requests to {@code url} go: its connection pool (shared by every route to the same
   * origin), path and query, and the headers of every request ({@code Host}, then {@code headers}
   * in order, which may replace it). Made once, at start; {@code Content-Length} is set per
   * request.
   *
   * @throws IllegalStateException for an https URL when the client was made without TLS settings
   * @throws IllegalArgumentException when a header's name or value is not allowed
   */
  public Route route(URI url, Map<String, String> headers) {
    boolean https = "https".equals(url.getScheme());
    if (https && ssl == null) {
      throw new IllegalStateException("an https URL needs the client made with TLS settings");
    }
    String host = url.getHost();
    int port = url.getPort() >= 0 ? url.getPort() : https ? 443 : 80;
    HttpHeaders fixed = VALIDATED.newHeaders();
    fixed.set(HttpHeaderNames.HOST, url.getPort() >= 0 ? host + ":" + port : host);
    headers.forEach(fixed::set);
    String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
    if (url.getRawQuery() != null) {
      path = path + "?" + url.getRawQuery();
    }
    String address = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
    Pool pool =
        pools.computeIfAbsent(
            (https ? "https://" : "http://") + host + ":" + port,
            origin -> new Pool(address, port, https));
    return new Route(pool, path, fixed);
  }

  /** A POST's destination: a pool of connections to its origin, its path and fixed headers. */
  public final class Route {
    private final Pool pool;
    private final String path;
    private final HttpHeaders headers;

    private Route(Pool pool, String path, HttpHeaders headers) {
      this.pool = pool;
      this.path = path;
      this.headers = headers;
    }

    /**
     * A POST of {@code body[offset, offset + length)}, not copied, with the route's headers, then
     * {@code extra} ones, which replace those of the same name.
     *
     * @throws IllegalArgumentException when an extra header's name or value is not allowed
     */
    private FullHttpRequest request(
        byte[] body, int offset, int length, Map<String, String> extra) {
      HttpHeaders all;
      if (extra.isEmpty()) {
        all = UNVALIDATED.newHeaders();
        all.set(headers);
      } else {
        all = VALIDATED.newHeaders();
        all.set(headers);
        extra.forEach(all::set);
      }
      all.setInt(HttpHeaderNames.CONTENT_LENGTH, length);
      ByteBuf content = Unpooled.wrappedBuffer(body, offset, length);
      return new DefaultFullHttpRequest(
          HttpVersion.HTTP_1_1, HttpMethod.POST, path, content, all, EmptyHttpHeaders.INSTANCE);
    }
  }

  /**
   * The answer to one request: its status, its body (complete, at most the client's bound) and its
   * headers. The headers are those Netty decoded, kept as they are: reading one allocates nothing
   * beyond the value's string, which the decoder made anyway.
   */
  public static final class Response {
    private final int status;
    private final byte[] body;
    private final HttpHeaders headers;
    private final boolean keepAlive;

    Response(int status, byte[] body, HttpHeaders headers, boolean keepAlive) {
      this.status = status;
      this.body = body;
      this.headers = headers;
      this.keepAlive = keepAlive;
    }

    /** The status code. */
    public int status() {
      return status;
    }

    /** The body, empty when there was none; the caller's to keep. */
    public byte[] body() {
      return body;
    }

    /** The first value of the response header {@code name} (any case), or null. */
    public String header(CharSequence name) {
      return headers.get(name);
    }

    /** The {@code Retry-After} header, or null. */
    public String retryAfter() {
      return headers.get(HttpHeaderNames.RETRY_AFTER);
    }

    /** Whether the connection may carry another request. */
    boolean keepAlive() {
      return keepAlive;
    }
  }

  /**
   * An answer whose body is over the bound: the body is not read and the connection is closed, but
   * the status and headers ({@code Retry-After} among them) arrived and still say what the
   * destination meant.
   */
  public static final class ResponseTooLargeException extends IOException {
    private final int status;
    private final HttpHeaders headers;

    ResponseTooLargeException(int status, HttpHeaders headers, int maxResponseBytes) {
      super("HTTP " + status + " with a response body larger than " + maxResponseBytes + " bytes");
      this.status = status;
      this.headers = headers;
    }

    /** The status code. */
    public int status() {
      return status;
    }

    /** The first value of the response header {@code name} (any case), or null. */
    public String header(CharSequence name) {
      return headers.get(name);
    }

    /** The {@code Retry-After} header, or null. */
    public String retryAfter() {
      return header(HttpHeaderNames.RETRY_AFTER);
    }
  }

  /**
   * POSTs {@code body[offset, offset + length)} to the route's URL, with the route's headers and
   * then {@code headers} (per request, such as an authenticator's; they replace the route's of the
   * same name), on an idle connection of the route's pool or a new one, and waits for the whole
   * response until {@code deadlineNanos} ({@link System#nanoTime()}). The body is not copied, and
   * Netty is done with it when this returns, however it returns.
   *
   * @return the answer, whatever its status
   * @throws TimeoutException when no answer came before the deadline (the connection is closed)
   * @throws ResponseTooLargeException when the answer's body is over the client's bound
   * @throws IllegalArgumentException when a header of {@code headers} has a name or value HTTP does
   *     not allow (a line break, say); nothing is sent
   * @throws IOException when the connection could not be made or broke
   * @throws InterruptedException when the thread was interrupted while waiting (the connection is
   *     closed)
   */
  public Response post(
      Route route,
      byte[] body,
      int offset,
      int length,
      Map<String, String> headers,
      long deadlineNanos)
      throws IOException, TimeoutException, InterruptedException {
    FullHttpRequest request = route.request(body, offset, length, headers);
    Connection connection;
    try {
      connection = route.pool.acquire(deadlineNanos);
    } catch (IOException | TimeoutException | InterruptedException | RuntimeException e) {
      request.release();
      throw e;
    }
    return connection.exchange(request, deadlineNanos);
  }

  /**
   * Closes every connection (a request still in flight fails), stops the event loop and the TLS
   * reloads, waiting for both until {@code deadlineNanos} ({@link System#nanoTime()}).
   */
  public void shutdown(long deadlineNanos) throws InterruptedException {
    if (tls != null) {
      tls.close();
    }
    // Closed here, not left to the event loop's shutdown, which may skip closing its channels.
    connections.close().await(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    long left = Math.max(0, deadlineNanos - System.nanoTime());
    group.shutdownGracefully(0, left, TimeUnit.NANOSECONDS).await(left, TimeUnit.NANOSECONDS);
  }

  /** Kept-alive connections to one origin. */
  private final class Pool {
    private final String host;
    private final int port;
    private final Bootstrap bootstrap;
    private final ConcurrentLinkedDeque<Connection> idle = new ConcurrentLinkedDeque<>();

    Pool(String host, int port, boolean https) {
      this.host = host;
      this.port = port;
      String peerHost = serverNameOverride.isEmpty() ? host : serverNameOverride;
      SNIServerName sniName = https ? sniName(peerHost) : null;
      this.bootstrap =
          new Bootstrap()
              .group(group)
              .channel(NioSocketChannel.class)
              .option(ChannelOption.TCP_NODELAY, true)
              .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMillis)
              .handler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                      connections.add(channel);
                      ChannelPipeline pipeline = channel.pipeline();
                      if (https) {
                        // The peer host is the name sent as SNI and verified against the
                        // certificate (unless insecure_skip_verify).
                        SslHandler tls = ssl.newHandler(channel.alloc(), peerHost, port);
                        tls.setHandshakeTimeoutMillis(connectTimeoutMillis);
                        if (sniName != null) {
                          SSLParameters parameters = tls.engine().getSSLParameters();
                          parameters.setServerNames(List.of(sniName));
                          tls.engine().setSSLParameters(parameters);
                        }
                        pipeline.addLast(tls);
                      }
                      pipeline.addLast(new HttpClientCodec());
                      Connection connection = new Connection(Pool.this, maxResponseBytes);
                      channel.attr(CONNECTION).set(connection);
                      pipeline.addLast(connection);
                    }
                  });
    }

    /** The most recently used idle connection that is still open, or a new one. */
    Connection acquire(long deadlineNanos)
        throws IOException, TimeoutException, InterruptedException {
      Connection connection;
      while ((connection = idle.pollFirst()) != null) {
        if (connection.channel.isActive()
            && System.nanoTime() - connection.idleSinceNanos < idleTimeoutNanos) {
          return connection;
        }
        connection.channel.close();
      }
      InetSocketAddress address = new InetSocketAddress(host, port);
      if (address.isUnresolved()) {
        throw new UnknownHostException(host);
      }
      ChannelFuture connect = bootstrap.connect(address);
      Channel channel = connect.channel();
      try {
        awaitSuccess(connect, deadlineNanos);
        SslHandler tls = channel.pipeline().get(SslHandler.class);
        if (tls != null) {
          awaitSuccess(tls.handshakeFuture(), deadlineNanos);
        }
      } catch (IOException | TimeoutException | InterruptedException | RuntimeException e) {
        connect.cancel(false);
        closeAndWait(channel);
        throw e;
      }
      // (From the channel, not its pipeline, which is empty once the channel closed.)
      Connection made = channel.attr(CONNECTION).get();
      if (!channel.isActive()) {
        // A server that refuses a client certificate closes right after TLS 1.3's handshake.
        throw made.closedException("the server closed the connection as soon as it was made");
      }
      return made;
    }

    void release(Connection connection) {
      connection.idleSinceNanos = System.nanoTime();
      idle.offerFirst(connection);
    }
  }

  /**
   * The SNI name for a host: any name that is not an IP address, as Go's TLS sends it (the JDK
   * leaves out names without a dot, such as {@code localhost}).
   */
  private static SNIServerName sniName(String host) {
    if (NetUtil.isValidIpV4Address(host) || NetUtil.isValidIpV6Address(host)) {
      return null;
    }
    try {
      return new SNIHostName(host);
    } catch (IllegalArgumentException notAHostName) {
      return null;
    }
  }

  private static void awaitSuccess(Future<?> future, long deadlineNanos)
      throws IOException, TimeoutException, InterruptedException {
    if (!future.await(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS)) {
      throw new TimeoutException();
    }
    if (!future.isSuccess()) {
      throw asIoException(future.cause());
    }
  }

  private static IOException asIoException(Throwable cause) {
    Throwable unwrapped = cause;
    // Netty wraps what a decoder throws (an SSLHandshakeException, say).
    while (!(unwrapped instanceof IOException)
        && unwrapped != null
        && unwrapped.getCause() != null) {
      unwrapped = unwrapped.getCause();
    }
    return unwrapped instanceof IOException io ? io : new IOException(cause);
  }

  /** Closes the channel and waits (a bounded time) until the event loop has closed it. */
  private static void closeAndWait(Channel channel) {
    channel.close().awaitUninterruptibly(CLOSE_WAIT_MILLIS);
  }

  /**
   * One connection: the last handler of its channel, which reads the answer to the one request in
   * flight into a byte array (at most {@code maxResponseBytes}) and completes the sender's future
   * with it.
   */
  private static final class Connection extends SimpleChannelInboundHandler<HttpObject>
      implements ChannelFutureListener {
    private final Pool pool;
    private final int maxResponseBytes;
    private Channel channel;

    /** When it was last put back in the pool (the pool's queue publishes it). */
    private long idleSinceNanos;

    /** What broke the connection, if anything did. */
    private volatile Throwable failure;

    /** The request in flight's answer; set by the sender, completed on the event loop. */
    private volatile CompletableFuture<Response> answer;

    // The response being read (event loop only).
    private boolean informational;
    private int status;
    private HttpHeaders headers;
    private boolean keepAlive;
    private byte[] body;
    private int bodyLength;

    Connection(Pool pool, int maxResponseBytes) {
      this.pool = pool;
      this.maxResponseBytes = maxResponseBytes;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      channel = ctx.channel();
    }

    /** Writes the request, waits for its answer, then returns this to the pool or discards it. */
    Response exchange(FullHttpRequest request, long deadlineNanos)
        throws IOException, TimeoutException, InterruptedException {
      CompletableFuture<Response> future = new CompletableFuture<>();
      answer = future;
      ChannelFuture written = channel.writeAndFlush(request).addListener(this);
      Response response;
      try {
        response = future.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (TimeoutException | InterruptedException e) {
        answer = null;
        closeAndWait(channel);
        throw e;
      } catch (ExecutionException e) {
        closeAndWait(channel);
        throw asIoException(e.getCause());
      }
      // An answer that came before the whole request was written (the server did not read it
      // all) leaves the connection unusable, and Netty may still be reading the body.
      if (response.keepAlive() && written.isSuccess() && channel.isActive()) {
        pool.release(this);
      } else {
        closeAndWait(channel);
      }
      return response;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, HttpObject message) {
      CompletableFuture<Response> future = answer;
      if (future == null) {
        // Nothing was asked (or the sender gave up): the connection is out of step.
        ctx.close();
        return;
      }
      if (message.decoderResult().isFailure()) {
        fail(ctx, message.decoderResult().cause());
        return;
      }
      if (message instanceof HttpResponse response) {
        status = response.status().code();
        // 1xx (100 Continue, 103 Early Hints) precede the real answer.
        informational = status >= 100 && status < 200;
        if (!informational) {
          headers = response.headers();
          keepAlive = HttpUtil.isKeepAlive(response);
          long declared = HttpUtil.getContentLength(response, -1L);
          if (declared > maxResponseBytes) {
            tooLarge(ctx);
            return;
          }
          body = declared > 0 ? new byte[(int) declared] : EMPTY;
          bodyLength = 0;
        }
      }
      if (message instanceof HttpContent content) {
        if (informational) {
          informational = !(content instanceof LastHttpContent);
          return;
        }
        ByteBuf bytes = content.content();
        int count = bytes.readableBytes();
        if (count > maxResponseBytes - bodyLength) {
          tooLarge(ctx);
          return;
        }
        if (bodyLength + count > body.length) {
          body =
              Arrays.copyOf(
                  body, Math.min(maxResponseBytes, Math.max(bodyLength + count, body.length * 2)));
        }
        bytes.getBytes(bytes.readerIndex(), body, bodyLength, count);
        bodyLength += count;
        if (content instanceof LastHttpContent) {
          answer = null;
          byte[] complete = bodyLength == body.length ? body : Arrays.copyOf(body, bodyLength);
          body = null;
          HttpHeaders answered = headers;
          headers = null;
          future.complete(new Response(status, complete, answered, keepAlive));
          if (!keepAlive) {
            ctx.close();
          }
        }
      }
    }

    /** The request's write: a failure (the connection closed meanwhile, say) is the answer. */
    @Override
    public void operationComplete(ChannelFuture written) {
      if (!written.isSuccess()) {
        CompletableFuture<Response> future = answer;
        answer = null;
        channel.close();
        if (future != null) {
          Throwable broken = failure;
          future.completeExceptionally(broken != null ? broken : written.cause());
        }
      }
    }

    private void tooLarge(ChannelHandlerContext ctx) {
      body = null;
      HttpHeaders answered = headers;
      headers = null;
      fail(ctx, new ResponseTooLargeException(status, answered, maxResponseBytes));
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      failure = cause;
      fail(ctx, cause);
    }

    /** Why the connection is closed: what broke it, else {@code otherwise}. */
    IOException closedException(String otherwise) {
      Throwable broken = failure;
      return broken != null ? asIoException(broken) : new IOException(otherwise);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      CompletableFuture<Response> future = answer;
      if (future != null) {
        answer = null;
        future.completeExceptionally(
            closedException("the connection was closed before the answer was complete"));
      }
    }

    private void fail(ChannelHandlerContext ctx, Throwable cause) {
      CompletableFuture<Response> future = answer;
      answer = null;
      ctx.close();
      if (future != null) {
        future.completeExceptionally(cause);
      }
    }
  }
}
