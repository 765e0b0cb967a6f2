package dev.sluice.service.telemetry;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.sluice.component.Endpoint;
import dev.sluice.component.telemetry.MetricRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Serves the collector's own metrics in the Prometheus text format on {@code /metrics}, where the
 * OpenTelemetry Collector serves them (default {@code localhost:8888}).
 */
public final class MetricsEndpoint implements AutoCloseable {
  private final HttpServer server;
  private final ExecutorService executor;

  public MetricsEndpoint(Endpoint endpoint, MetricRegistry metrics) throws IOException {
    server = HttpServer.create(endpoint.socketAddress(), 16);
    executor =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread thread = new Thread(r, "sluice-metrics-endpoint");
              thread.setDaemon(true);
              return thread;
            });
    server.setExecutor(executor);
    server.createContext("/metrics", exchange -> answer(exchange, metrics));
    server.start();
  }

  public int port() {
    return ((InetSocketAddress) server.getAddress()).getPort();
  }

  private static void answer(HttpExchange exchange, MetricRegistry metrics) throws IOException {
    try (exchange) {
      StringWriter text = new StringWriter();
      metrics.writePrometheus(text);
      byte[] body = text.toString().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
