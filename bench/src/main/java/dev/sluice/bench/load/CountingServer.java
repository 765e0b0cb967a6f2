package dev.sluice.bench.load;

import com.github.luben.zstd.ZstdInputStream;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.sluice.grpc.ZstdCodec;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import io.grpc.DecompressorRegistry;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.zip.GZIPInputStream;
import java.util.zip.InflaterInputStream;
import org.xerial.snappy.Snappy;

/**
 * An OTLP server for benchmarks, in one of two modes.
 *
 * <ul>
 *   <li>{@link Mode#SINK}: the destination of OTLP exporters. Counts requests, bytes and items
 *       (spans, log records, metric data points) of every request it gets over gRPC (gzip, zstd or
 *       none) and OTLP/HTTP (protobuf; gzip, deflate, zstd). Items are counted with Sluice's {@link
 *       OtlpIndexer} on the raw bytes (pass-through marshallers, no protobuf-java), which also
 *       rejects malformed requests ({@code INVALID_ARGUMENT}, 400) and counts them as errors.
 *   <li>{@link Mode#FLOOR}: the transport floor. A bare grpc-java server whose Export methods read
 *       each request into an array, as a collector must, and discard it, answering an empty
 *       response; it counts requests and bytes only.
 * </ul>
 *
 * <p>gRPC calls run on the event loop ({@code directExecutor}), as in Sluice's receiver. The HTTP
 * server (the JDK's) serves {@code GET /counts}, a JSON object of the totals, and in sink mode the
 * OTLP/HTTP paths.
 */
public final class CountingServer implements AutoCloseable {
  /** Where the sink takes Prometheus remote write. */
  public static final String REMOTE_WRITE_PATH = "/api/v1/write";

  /** What the server does with requests. */
  public enum Mode {
    SINK,
    FLOOR
  }

  private final Mode mode;
  private final String host;
  private final int requestedGrpcPort;
  private final int requestedHttpPort;
  private final boolean floorCopies;
  private final Map<Signal, Counter> counters = new EnumMap<>(Signal.class);
  private final LongAdder errors = new LongAdder();
  private final ThreadLocal<OtlpIndexer> indexers = ThreadLocal.withInitial(OtlpIndexer::new);
  private Server grpc;
  private HttpServer http;
  private ExecutorService httpExecutor;

  /** Totals of one signal. */
  static final class Counter {
    final LongAdder requests = new LongAdder();
    final LongAdder items = new LongAdder();
    final LongAdder bytes = new LongAdder();
  }

  /** A snapshot of the totals. */
  public record Counts(long requests, long items, long bytes, long errors) {}

  /**
   * @param floorCopies in floor mode, read each request into an array (true, what a collector must
   *     do) or only skip its bytes (false)
   */
  public CountingServer(Mode mode, String host, int grpcPort, int httpPort, boolean floorCopies) {
    this.mode = mode;
    this.host = host;
    this.requestedGrpcPort = grpcPort;
    this.requestedHttpPort = httpPort;
    this.floorCopies = floorCopies;
    for (Signal signal : Signal.values()) {
      counters.put(signal, new Counter());
    }
  }

  public CountingServer start() throws IOException {
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new InetSocketAddress(host, requestedGrpcPort))
            .directExecutor()
            .withChildOption(ChannelOption.TCP_NODELAY, true)
            .maxInboundMessageSize(256 << 20)
            .decompressorRegistry(
                DecompressorRegistry.getDefaultInstance().with(ZstdCodec.INSTANCE, true));
    for (Signal signal : Signal.values()) {
      builder.addService(service(signal));
    }
    grpc = builder.build().start();

    http = HttpServer.create(new InetSocketAddress(host, requestedHttpPort), 64);
    httpExecutor =
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread thread = new Thread(r, "counting-http");
              thread.setDaemon(true);
              return thread;
            });
    http.setExecutor(httpExecutor);
    http.createContext("/counts", this::serveCounts);
    if (mode == Mode.SINK) {
      for (Signal signal : Signal.values()) {
        http.createContext(HttpTransport.path(signal), exchange -> serveOtlp(signal, exchange));
      }
      http.createContext(REMOTE_WRITE_PATH, this::serveRemoteWrite);
    }
    http.start();
    return this;
  }

  public int grpcPort() {
    return ((InetSocketAddress) grpc.getListenSockets().get(0)).getPort();
  }

  public int httpPort() {
    return http.getAddress().getPort();
  }

  public Mode mode() {
    return mode;
  }

  public Counts counts() {
    long requests = 0;
    long items = 0;
    long bytes = 0;
    for (Counter counter : counters.values()) {
      requests += counter.requests.sum();
      items += counter.items.sum();
      bytes += counter.bytes.sum();
    }
    return new Counts(requests, mode == Mode.SINK ? items : -1, bytes, errors.sum());
  }

  public Counts counts(Signal signal) {
    Counter counter = counters.get(signal);
    return new Counts(
        counter.requests.sum(),
        mode == Mode.SINK ? counter.items.sum() : -1,
        counter.bytes.sum(),
        errors.sum());
  }

  /** The totals as the JSON object {@code /counts} serves. */
  public String countsJson() {
    StringBuilder json = new StringBuilder();
    Counts all = counts();
    json.append("{\"mode\":\"")
        .append(mode.name().toLowerCase(java.util.Locale.ROOT))
        .append("\",\"requests\":")
        .append(all.requests())
        .append(",\"items\":")
        .append(all.items())
        .append(",\"bytes\":")
        .append(all.bytes())
        .append(",\"errors\":")
        .append(all.errors());
    for (Signal signal : Signal.values()) {
      Counts counts = counts(signal);
      json.append(",\"")
          .append(signal.name().toLowerCase(java.util.Locale.ROOT))
          .append("\":{\"requests\":")
          .append(counts.requests())
          .append(",\"items\":")
          .append(counts.items())
          .append(",\"bytes\":")
          .append(counts.bytes())
          .append('}');
    }
    return json.append('}').toString();
  }

  private ServerServiceDefinition service(Signal signal) {
    String service = PassThrough.serviceName(signal);
    MethodDescriptor.Marshaller<byte[]> requests =
        mode == Mode.FLOOR && !floorCopies ? PassThrough.DISCARD : PassThrough.BYTES;
    MethodDescriptor<byte[], byte[]> export =
        PassThrough.exportMethod(signal, requests, PassThrough.BYTES);
    Counter counter = counters.get(signal);
    ServerCalls.UnaryMethod<byte[], byte[]> method =
        mode == Mode.SINK
            ? (body, response) -> sink(signal, counter, body, response)
            : (body, response) -> floor(counter, body, response);
    return ServerServiceDefinition.builder(service)
        .addMethod(export, ServerCalls.asyncUnaryCall(method))
        .build();
  }

  private static final byte[] EMPTY_RESPONSE = new byte[0];

  private void sink(Signal signal, Counter counter, byte[] body, StreamObserver<byte[]> response) {
    try {
      long items = indexers.get().index(signal, body).unitCount();
      counter.requests.increment();
      counter.bytes.add(body.length);
      counter.items.add(items);
      response.onNext(EMPTY_RESPONSE);
      response.onCompleted();
    } catch (MalformedOtlpException e) {
      errors.increment();
      response.onError(
          Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException());
    }
  }

  private static void floor(Counter counter, byte[] body, StreamObserver<byte[]> response) {
    counter.requests.increment();
    counter.bytes.add(body.length); // 0 when the floor only skips
    response.onNext(EMPTY_RESPONSE);
    response.onCompleted();
  }

  private void serveCounts(HttpExchange exchange) throws IOException {
    try (exchange) {
      byte[] body = countsJson().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  private void serveOtlp(Signal signal, HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!exchange.getRequestMethod().equals("POST")) {
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      byte[] raw;
      try (InputStream in = exchange.getRequestBody()) {
        raw = in.readAllBytes();
      }
      String encoding = exchange.getRequestHeaders().getFirst("Content-Encoding");
      byte[] body = decode(raw, encoding == null ? "" : encoding.trim());
      int status;
      try {
        long items = indexers.get().index(signal, body).unitCount();
        Counter counter = counters.get(signal);
        counter.requests.increment();
        counter.bytes.add(body.length);
        counter.items.add(items);
        status = 200;
      } catch (MalformedOtlpException e) {
        errors.increment();
        status = 400;
      }
      exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
      exchange.sendResponseHeaders(status, -1);
    }
  }

  /**
   * Prometheus remote write: a snappy body is read and decompressed, as a receiver must, and
   * answered 204; counted as metrics requests and bytes (the samples are not counted).
   */
  private void serveRemoteWrite(HttpExchange exchange) throws IOException {
    try (exchange) {
      byte[] raw;
      try (InputStream in = exchange.getRequestBody()) {
        raw = in.readAllBytes();
      }
      int status = 204;
      try {
        byte[] body = Snappy.uncompress(raw);
        Counter counter = counters.get(Signal.METRICS);
        counter.requests.increment();
        counter.bytes.add(body.length);
      } catch (IOException e) {
        errors.increment();
        status = 400;
      }
      exchange.sendResponseHeaders(status, -1);
    }
  }

  private static byte[] decode(byte[] raw, String encoding) throws IOException {
    InputStream in =
        switch (encoding) {
          case "", "identity" -> null;
          case "gzip" -> new GZIPInputStream(new ByteArrayInputStream(raw));
          case "deflate" -> new InflaterInputStream(new ByteArrayInputStream(raw));
          case "zstd" -> new ZstdInputStream(new ByteArrayInputStream(raw));
          default -> throw new IOException("unsupported Content-Encoding " + encoding);
        };
    if (in == null) {
      return raw;
    }
    try (in) {
      return in.readAllBytes();
    }
  }

  @Override
  public void close() {
    if (http != null) {
      http.stop(0);
      httpExecutor.shutdownNow();
    }
    if (grpc != null) {
      grpc.shutdown();
      try {
        if (!grpc.awaitTermination(5, TimeUnit.SECONDS)) {
          grpc.shutdownNow();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        grpc.shutdownNow();
      }
    }
  }
}
