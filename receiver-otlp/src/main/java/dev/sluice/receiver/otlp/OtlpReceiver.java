package dev.sluice.receiver.otlp;

import dev.sluice.core.component.ComponentSettings;
import dev.sluice.core.component.Receiver;
import dev.sluice.core.component.RequestConsumer;
import dev.sluice.core.otlp.Signal;
import dev.sluice.core.pipeline.ReceiverTelemetry;
import java.util.Map;
import java.util.logging.Logger;

/** The {@code otlp} receiver: the OTLP gRPC server and, when configured, the OTLP/HTTP server. */
public final class OtlpReceiver implements Receiver {
  private final OtlpReceiverConfig config;
  private final Logger logger;
  private final GrpcServer grpc;

  OtlpReceiver(
      ComponentSettings settings,
      OtlpReceiverConfig config,
      Map<Signal, RequestConsumer> consumers) {
    this.config = config;
    this.logger = settings.logger();
    GrpcServerConfig grpcConfig = config.protocols().grpc();
    this.grpc =
        grpcConfig == null
            ? null
            : new GrpcServer(
                grpcConfig,
                new RequestHandler(
                    consumers, new ReceiverTelemetry(settings.metrics(), settings.id(), "grpc")));
  }

  @Override
  public void start() throws Exception {
    if (grpc != null) {
      grpc.start();
      logger.info("OTLP gRPC receiver listening on " + config.protocols().grpc().endpoint());
    }
  }

  /** The port the gRPC server listens on (useful when configured with port 0), or -1. */
  public int grpcPort() {
    return grpc == null ? -1 : grpc.port();
  }

  @Override
  public void shutdown(long deadlineNanos) throws InterruptedException {
    if (grpc != null) {
      grpc.shutdown(deadlineNanos);
    }
  }
}
