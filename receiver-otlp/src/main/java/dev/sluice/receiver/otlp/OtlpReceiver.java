package dev.sluice.receiver.otlp;

import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Endpoint;
import dev.sluice.component.Host;
import dev.sluice.component.Receiver;
import dev.sluice.component.RequestConsumer;
import dev.sluice.component.telemetry.ReceiverTelemetry;
import dev.sluice.pdata.Signal;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * The {@code otlp} receiver: the OTLP gRPC server and the OTLP/HTTP server, each when configured.
 */
public final class OtlpReceiver implements Receiver {
  /**
   * How long stopping waits for requests in progress. The collector stops its receivers after its
   * pipelines have begun refusing data, so this wait only gives those clients a clear, retryable
   * answer instead of a cut connection; it must not use up the time the exporters need to drain
   * what was accepted, whatever a slow client does.
   */
  static final long DRAIN_GRACE_NANOS = TimeUnit.SECONDS.toNanos(2);

  private static final String GRPC = "grpc";
  private static final String HTTP = "http";

  private final OtlpReceiverConfig config;
  private final ComponentSettings settings;
  private final Logger logger;

  /** The receiver's key path in the configuration, {@code receivers.otlp}, for errors. */
  private final String configPath;

  private final GrpcServer grpc;
  private final HttpServer http;

  OtlpReceiver(
      ComponentSettings settings,
      OtlpReceiverConfig config,
      Map<Signal, RequestConsumer> consumers) {
    this.config = config;
    this.settings = settings;
    this.logger = settings.logger();
    this.configPath = "receivers." + settings.id();
    GrpcServerConfig grpcConfig = config.protocols().grpc();
    this.grpc = grpcConfig == null ? null : grpcServer(settings, grpcConfig, consumers);
    HttpServerConfig httpConfig = config.protocols().http();
    this.http = httpConfig == null ? null : httpServer(settings, httpConfig, consumers);
  }

  private static GrpcServer grpcServer(
      ComponentSettings settings, GrpcServerConfig config, Map<Signal, RequestConsumer> consumers) {
    RequestHandler handler =
        new RequestHandler(
            consumers, new ReceiverTelemetry(settings.metrics(), settings.id(), GRPC));
    return new GrpcServer(
        config,
        handler,
        new EdgeAdmission(
            handler, InFlightBytes.ofMib(config.maxInFlightBytesMib()), settings, GRPC),
        new ConnectionLimit(config.maxConnections(), settings, GRPC));
  }

  private static HttpServer httpServer(
      ComponentSettings settings, HttpServerConfig config, Map<Signal, RequestConsumer> consumers) {
    RequestHandler handler =
        new RequestHandler(
            consumers, new ReceiverTelemetry(settings.metrics(), settings.id(), HTTP));
    return new HttpServer(
        config,
        handler,
        new EdgeAdmission(
            handler, InFlightBytes.ofMib(config.maxInFlightBytesMib()), settings, HTTP),
        new ConnectionLimit(config.maxConnections(), settings, HTTP));
  }

  @Override
  public void start() throws Exception {
    start(Host.NONE);
  }

  @Override
  public void start(Host host) throws Exception {
    ReceiverAuth.install(settings, config, host, grpc, http);
    if (grpc != null) {
      grpc.start(logger, configPath + ".protocols.grpc");
      logger.info(
          "OTLP gRPC receiver listening on "
              + bound(config.protocols().grpc().endpoint(), grpc.port()));
    }
    if (http != null) {
      http.start(logger, configPath + ".protocols.http");
      logger.info(
          "OTLP/HTTP receiver listening on "
              + bound(config.protocols().http().endpoint(), http.port()));
    }
  }

  /** The configured endpoint with the port actually bound (which differs for port 0). */
  private static String bound(String endpoint, int port) {
    Endpoint configured = Endpoint.parse(endpoint);
    return new Endpoint(configured.host(), port).toString();
  }

  /** The port the HTTP server listens on (useful when configured with port 0), or -1. */
  public int httpPort() {
    return http == null ? -1 : http.port();
  }

  /** The port the gRPC server listens on (useful when configured with port 0), or -1. */
  public int grpcPort() {
    return grpc == null ? -1 : grpc.port();
  }

  @Override
  public void shutdown(long deadlineNanos) throws InterruptedException {
    long graceEnd = System.nanoTime() + DRAIN_GRACE_NANOS;
    long drainDeadline = graceEnd - deadlineNanos < 0 ? graceEnd : deadlineNanos;
    if (http != null) {
      http.shutdown(drainDeadline);
    }
    if (grpc != null) {
      grpc.shutdown(drainDeadline);
    }
  }
}
