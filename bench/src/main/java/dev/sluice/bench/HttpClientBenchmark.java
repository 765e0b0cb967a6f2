package dev.sluice.bench;

import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.ExportResult;
import dev.sluice.component.Exporter;
import dev.sluice.component.QueueConfig;
import dev.sluice.component.RetryConfig;
import dev.sluice.component.TlsClientConfig;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.exporter.otlp.CompressionParams;
import dev.sluice.exporter.otlp.OtlpHttpExporterConfig;
import dev.sluice.exporter.otlp.OtlpHttpExporterFactory;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import io.netty.bootstrap.Bootstrap;
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
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AttributeKey;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.zip.GZIPOutputStream;
import javax.net.SocketFactory;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Which HTTP client the otlphttp exporter should use, and what the exporter costs with the one it
 * uses: each contender POSTs the same OTLP request (a 1000-span {@code ExportTraceServiceRequest}
 * from {@link SpanShapes}, about 430 KB of protobuf; gzip-compressed once in the setup to 73 KB for
 * {@code encoding=gzip}, sent as it is for {@code none}) to {@link DiscardHttpServer}, one request
 * at a time on a kept-alive HTTP/1.1 connection, and checks that the answer is 200.
 *
 * <ul>
 *   <li>{@code jdk}: {@link java.net.http.HttpClient}, HTTP/1.1, {@code send()} with a byte-array
 *       publisher: what the exporter used before it moved to Netty.
 *   <li>{@code okhttp}: OkHttp 5, synchronous {@code execute()}, on sockets with {@code
 *       TCP_NODELAY} (a socket factory sets it: OkHttp leaves Nagle's algorithm on).
 *   <li>{@code okhttpNagle}: the same with OkHttp's default sockets, to show why: the end of each
 *       body waits for the server's delayed ACK.
 *   <li>{@code netty}: a minimal client on Netty's {@link HttpClientCodec}: a kept-alive channel
 *       taken from a small pool of idle channels, the request a {@link DefaultFullHttpRequest}
 *       around the wrapped byte array, the caller waiting on a future that the response completes.
 *   <li>{@code exporter}: the otlphttp exporter itself ({@code Exporter.export} of a {@code Batch}
 *       over the same request, with {@code compression} gzip or none): the other contenders' work
 *       plus marshaling the batch and, for gzip, compressing 430 KB on every request, which they do
 *       once in the setup.
 * </ul>
 *
 * <p>The server runs in a process of its own so that its CPU and allocation are not counted. Run
 * with {@code -prof gc} for the allocation per request ({@code gc.alloc.rate.norm}, every thread of
 * the benchmark's JVM) and {@code -prof dev.sluice.bench.CpuTimeProfiler} for the CPU time per
 * request ({@code cpu.time.norm}, every thread): the average time alone is the caller's wait, and
 * the JDK and Netty clients do their I/O on threads of their own.
 *
 * <p>A request takes hundreds of microseconds, so the per-request code runs only a few thousand
 * times a second and the JIT needs long to finish with it: on two cores the times still fall after
 * 20 seconds of warmup. The defaults here (15 warmup iterations of 2 s) reach a steady state; a
 * short run such as {@code -wi 3 -w 1} measures partly interpreted code and overstates every
 * client's cost, Netty's the most (its first requests load the most classes).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 15, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class HttpClientBenchmark {
  static final String PATH = "/v1/traces";
  static final String CONTENT_TYPE = "application/x-protobuf";

  @Param({"jdk", "okhttp", "okhttpNagle", "netty", "exporter"})
  public String client;

  @Param({"gzip", "none"})
  public String encoding;

  /** Tests start the server in this JVM instead of a process of its own. */
  boolean serverInProcess;

  byte[] body;
  Client http;
  private Process serverProcess;
  private DiscardHttpServer server;

  /** One contender: posts the body, returns the status. */
  interface Client extends AutoCloseable {
    int post() throws Exception;
  }

  @Setup(Level.Trial)
  public void setup() throws Exception {
    byte[] request = SpanShapes.requestBytes(SpanShapes.DEFAULT_SEED, 1000);
    body = "gzip".equals(encoding) ? gzip(request) : request;
    String contentEncoding = "gzip".equals(encoding) ? "gzip" : null;
    int port = startServer();
    switch (client) {
      case "jdk":
        http = new JdkClient(port, body, contentEncoding);
        break;
      case "okhttp":
        http = new OkClient(port, body, contentEncoding, true);
        break;
      case "okhttpNagle":
        http = new OkClient(port, body, contentEncoding, false);
        break;
      case "netty":
        http = new NettyClient(port, body, contentEncoding);
        break;
      case "exporter":
        http = new ExporterClient(port, request, contentEncoding);
        break;
      default:
        throw new IllegalArgumentException("unknown client " + client);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    if (http != null) {
      http.close();
    }
    if (server != null) {
      server.close();
    }
    if (serverProcess != null) {
      serverProcess.getOutputStream().close();
      if (!serverProcess.waitFor(5, TimeUnit.SECONDS)) {
        serverProcess.destroyForcibly();
      }
    }
  }

  @Benchmark
  public int post() throws Exception {
    int status = http.post();
    if (status != 200) {
      throw new IllegalStateException("HTTP " + status);
    }
    return status;
  }

  /** Body bytes the in-process server received so far. */
  long serverBodyBytes() {
    return server.bodyBytes();
  }

  private int startServer() throws Exception {
    if (serverInProcess) {
      server = DiscardHttpServer.start();
      return server.port();
    }
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    serverProcess =
        new ProcessBuilder(
                java,
                "-Xms256m",
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                DiscardHttpServer.class.getName())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    BufferedReader lines =
        new BufferedReader(
            new InputStreamReader(serverProcess.getInputStream(), StandardCharsets.US_ASCII));
    String port = lines.readLine();
    if (port == null) {
      throw new IOException("the discard server did not start");
    }
    return Integer.parseInt(port.trim());
  }

  static byte[] gzip(byte[] bytes) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(bytes.length / 2);
    try (GZIPOutputStream compressing = new GZIPOutputStream(out, 8192)) {
      compressing.write(bytes);
    }
    return out.toByteArray();
  }

  /** {@link java.net.http.HttpClient}, HTTP/1.1 only, as the exporter configures it for http. */
  static final class JdkClient implements Client {
    private final HttpClient client =
        HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final URI uri;
    private final byte[] body;
    private final String contentEncoding;

    JdkClient(int port, byte[] body, String contentEncoding) {
      this.uri = URI.create("http://127.0.0.1:" + port + PATH);
      this.body = body;
      this.contentEncoding = contentEncoding;
    }

    @Override
    public int post() throws Exception {
      HttpRequest.Builder request =
          HttpRequest.newBuilder(uri)
              .header("Content-Type", CONTENT_TYPE)
              .POST(HttpRequest.BodyPublishers.ofByteArray(body));
      if (contentEncoding != null) {
        request.header("Content-Encoding", contentEncoding);
      }
      return client.send(request.build(), BodyHandlers.ofByteArray()).statusCode();
    }

    @Override
    public void close() throws Exception {
      // HttpClient is AutoCloseable from JDK 21 on; before, it closes once unreferenced.
      if (client instanceof AutoCloseable closeable) {
        closeable.close();
      }
    }
  }

  /**
   * The otlphttp exporter, as the collector creates it, exporting a batch of the request's spans;
   * it marshals (and compresses) on every call.
   */
  static final class ExporterClient implements Client {
    private final Exporter exporter;
    private final Batch batch;

    ExporterClient(int port, byte[] request, String contentEncoding) throws Exception {
      OtlpHttpExporterConfig config =
          new OtlpHttpExporterConfig(
              "http://127.0.0.1:" + port,
              "",
              "",
              "",
              "proto",
              contentEncoding == null ? "none" : contentEncoding,
              CompressionParams.DEFAULT,
              TlsClientConfig.DEFAULT,
              Map.of(),
              Duration.ofSeconds(30),
              QueueConfig.DEFAULT,
              RetryConfig.DEFAULT);
      this.exporter =
          new OtlpHttpExporterFactory()
              .create(
                  new ComponentSettings(
                      ComponentId.parse("otlphttp"), ComponentKind.EXPORTER, new MetricRegistry()),
                  config);
      this.batch = Batch.of(new OtlpIndexer().index(Signal.TRACES, request));
      exporter.start();
    }

    @Override
    public int post() throws InterruptedException {
      ExportResult result = exporter.export(batch, System.nanoTime() + 30_000_000_000L);
      if (result.outcome() != ExportResult.Outcome.SUCCESS) {
        throw new IllegalStateException(result.message());
      }
      return 200;
    }

    @Override
    public void close() throws InterruptedException {
      exporter.shutdown(System.nanoTime() + 5_000_000_000L);
    }
  }

  /** OkHttp 5, HTTP/1.1 only, synchronous calls. */
  static final class OkClient implements Client {
    private static final MediaType PROTOBUF = MediaType.get(CONTENT_TYPE);
    private final OkHttpClient client;
    private final HttpUrl url;
    private final byte[] body;
    private final String contentEncoding;

    OkClient(int port, byte[] body, String contentEncoding, boolean noDelay) {
      OkHttpClient.Builder builder =
          new OkHttpClient.Builder().protocols(List.of(Protocol.HTTP_1_1));
      if (noDelay) {
        builder.socketFactory(new NoDelaySocketFactory());
      }
      this.client = builder.build();
      this.url = HttpUrl.get("http://127.0.0.1:" + port + PATH);
      this.body = body;
      this.contentEncoding = contentEncoding;
    }

    @Override
    public int post() throws IOException {
      Request.Builder request =
          new Request.Builder().url(url).post(RequestBody.create(body, PROTOBUF));
      if (contentEncoding != null) {
        request.header("Content-Encoding", contentEncoding);
      }
      try (Response response = client.newCall(request.build()).execute()) {
        response.body().bytes();
        return response.code();
      }
    }

    @Override
    public void close() {
      client.dispatcher().executorService().shutdown();
      client.connectionPool().evictAll();
    }
  }

  /** Plain sockets with {@code TCP_NODELAY}. */
  static final class NoDelaySocketFactory extends SocketFactory {
    private static Socket noDelay(Socket socket) throws IOException {
      socket.setTcpNoDelay(true);
      return socket;
    }

    @Override
    public Socket createSocket() throws IOException {
      return noDelay(new Socket());
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
      return noDelay(new Socket(host, port));
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress local, int localPort)
        throws IOException {
      return noDelay(new Socket(host, port, local, localPort));
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
      return noDelay(new Socket(host, port));
    }

    @Override
    public Socket createSocket(InetAddress host, int port, InetAddress local, int localPort)
        throws IOException {
      return noDelay(new Socket(host, port, local, localPort));
    }
  }

  /**
   * A minimal HTTP/1.1 client on Netty: idle kept-alive channels in a deque (taken and returned by
   * the calling thread, without a hop to the event loop, as Netty's {@code ChannelPool}s would
   * make), {@link HttpClientCodec}, and a handler that completes the caller's future with the
   * status once the response's last part is read.
   */
  static final class NettyClient implements Client {
    private static final AttributeKey<CompletableFuture<Integer>> ANSWER =
        AttributeKey.valueOf("sluice.answer");
    private final EventLoopGroup group =
        new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Bootstrap bootstrap;
    private final ConcurrentLinkedDeque<Channel> idle = new ConcurrentLinkedDeque<>();
    private final String host;
    private final byte[] body;
    private final String contentEncoding;

    NettyClient(int port, byte[] body, String contentEncoding) {
      this.host = "127.0.0.1:" + port;
      this.body = body;
      this.contentEncoding = contentEncoding;
      this.bootstrap =
          new Bootstrap()
              .group(group)
              .channel(NioSocketChannel.class)
              .option(ChannelOption.TCP_NODELAY, true)
              .remoteAddress(new InetSocketAddress("127.0.0.1", port))
              .handler(
                  new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                      channel.pipeline().addLast(new HttpClientCodec(), new Answers());
                    }
                  });
    }

    private Channel acquire() throws InterruptedException {
      Channel channel;
      while ((channel = idle.pollFirst()) != null) {
        if (channel.isActive()) {
          return channel;
        }
      }
      return bootstrap.connect().sync().channel();
    }

    @Override
    public int post() throws InterruptedException, ExecutionException, TimeoutException {
      Channel channel = acquire();
      boolean reusable = false;
      try {
        CompletableFuture<Integer> answer = new CompletableFuture<>();
        channel.attr(ANSWER).set(answer);
        FullHttpRequest request =
            new DefaultFullHttpRequest(
                HttpVersion.HTTP_1_1, HttpMethod.POST, PATH, Unpooled.wrappedBuffer(body));
        HttpHeaders headers = request.headers();
        headers.set(HttpHeaderNames.HOST, host);
        headers.set(HttpHeaderNames.CONTENT_TYPE, CONTENT_TYPE);
        headers.setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        if (contentEncoding != null) {
          headers.set(HttpHeaderNames.CONTENT_ENCODING, contentEncoding);
        }
        channel
            .writeAndFlush(request)
            .addListener(
                written -> {
                  if (!written.isSuccess()) {
                    answer.completeExceptionally(written.cause());
                  }
                });
        int status = answer.get(30, TimeUnit.SECONDS);
        reusable = true;
        return status;
      } finally {
        if (reusable) {
          idle.offerFirst(channel);
        } else {
          channel.close();
        }
      }
    }

    @Override
    public void close() {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** Completes the waiting caller's future with the response status after its last part. */
    private static final class Answers extends SimpleChannelInboundHandler<HttpObject> {
      private int status;

      @Override
      protected void channelRead0(ChannelHandlerContext ctx, HttpObject message) {
        if (message instanceof HttpResponse response) {
          status = response.status().code();
        }
        if (message instanceof LastHttpContent) {
          CompletableFuture<Integer> answer = ctx.channel().attr(ANSWER).getAndSet(null);
          if (answer != null) {
            answer.complete(status);
          }
        }
      }

      @Override
      public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        fail(ctx, cause);
        ctx.close();
      }

      @Override
      public void channelInactive(ChannelHandlerContext ctx) {
        fail(ctx, new IOException("connection closed"));
      }

      private static void fail(ChannelHandlerContext ctx, Throwable cause) {
        CompletableFuture<Integer> answer = ctx.channel().attr(ANSWER).getAndSet(null);
        if (answer != null) {
          answer.completeExceptionally(cause);
        }
      }
    }
  }
}
