package dev.sluice.extension.healthcheck;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.sluice.component.CollectorStatus;
import dev.sluice.component.Endpoint;
import dev.sluice.component.Extension;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;

/**
 * Answers 200 while the collector runs and 503 while it starts or stops, with a small JSON body as
 * the OpenTelemetry Collector's health check does. A JDK HTTP server on one thread: the endpoint
 * sees a probe every few seconds, nothing that needs more.
 */
public final class HealthCheckExtension implements Extension {
  private final HealthCheckConfig config;
  private final CollectorStatus status;
  private final Instant startedAt = Instant.now();
  private HttpServer server;

  HealthCheckExtension(HealthCheckConfig config, CollectorStatus status) {
    this.config = config;
    this.status = status;
  }

  @Override
  public void start() throws IOException {
    server = HttpServer.create(Endpoint.parse(config.endpoint()).socketAddress(), 16);
    server.setExecutor(
        Executors.newSingleThreadExecutor(
            r -> {
              Thread thread = new Thread(r, "sluice-health-check");
              thread.setDaemon(true);
              return thread;
            }));
    server.createContext(config.path(), this::answer);
    server.start();
  }

  /** The port bound (for an endpoint with port 0). */
  public int port() {
    return ((InetSocketAddress) server.getAddress()).getPort();
  }

  private void answer(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!exchange.getRequestURI().getPath().equals(config.path())) {
        exchange.sendResponseHeaders(404, -1);
        return;
      }
      boolean running = status.state() == CollectorStatus.State.RUNNING;
      String body =
          running
              ? "{\"status\":\"Server available\",\"upSince\":\""
                  + startedAt
                  + "\",\"uptime\":\""
                  + Duration.between(startedAt, Instant.now()).toMillis() / 1000.0
                  + "s\"}"
              : "{\"status\":\"Server not available\",\"state\":\"" + status.state() + "\"}";
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      boolean head = "HEAD".equals(exchange.getRequestMethod());
      exchange.sendResponseHeaders(running ? 200 : 503, head ? -1 : bytes.length);
      if (!head) {
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(bytes);
        }
      }
    }
  }

  @Override
  public void shutdown(long deadlineNanos) {
    if (server != null) {
      server.stop(0);
      ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
  }
}
