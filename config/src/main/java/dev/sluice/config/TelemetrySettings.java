package dev.sluice.config;

/**
 * The collector's own telemetry ({@code service.telemetry}).
 *
 * @param metricsLevel how much the collector says about itself ({@code metrics.level})
 * @param metricsHost the host its Prometheus endpoint listens on; empty for every interface (as
 *     {@code address: ":8888"} says)
 * @param metricsPort that endpoint's port
 * @param logsLevel the lowest level of log records written ({@code logs.level})
 * @param logsEncoding how log records are written ({@code logs.encoding})
 */
public record TelemetrySettings(
    MetricsLevel metricsLevel,
    String metricsHost,
    int metricsPort,
    LogLevel logsLevel,
    LogEncoding logsEncoding) {

  /** {@code service.telemetry.metrics.level}. */
  public enum MetricsLevel {
    NONE,
    BASIC,
    NORMAL,
    DETAILED
  }

  /** {@code service.telemetry.logs.level}. */
  public enum LogLevel {
    DEBUG,
    INFO,
    WARN,
    ERROR
  }

  /** {@code service.telemetry.logs.encoding}. */
  public enum LogEncoding {
    CONSOLE,
    JSON
  }

  /** The OpenTelemetry Collector's defaults: normal metrics on localhost:8888, info logs. */
  public static final TelemetrySettings DEFAULT =
      new TelemetrySettings(
          MetricsLevel.NORMAL, "localhost", 8888, LogLevel.INFO, LogEncoding.CONSOLE);

  /** Whether the metrics endpoint runs at all (the level is not {@code none}). */
  public boolean metricsEnabled() {
    return metricsLevel != MetricsLevel.NONE;
  }

  /**
   * {@code host:port}, with an IPv6 host in brackets: {@code localhost:8888}, {@code [::1]:8888}.
   */
  public String metricsAddress() {
    String host = metricsHost.indexOf(':') >= 0 ? "[" + metricsHost + "]" : metricsHost;
    return host + ":" + metricsPort;
  }
}
