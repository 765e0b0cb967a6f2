package dev.sluice.config;

import dev.sluice.component.ConfigProblems;
import dev.sluice.component.OptionalSection;
import dev.sluice.component.Unsupported;
import dev.sluice.component.Validatable;
import dev.sluice.config.TelemetrySettings.LogEncoding;
import dev.sluice.config.TelemetrySettings.LogLevel;
import dev.sluice.config.TelemetrySettings.MetricsLevel;
import java.math.BigInteger;
import java.util.List;

/**
 * {@code service.telemetry} as the file writes it, bound by {@link ConfigBinder} like a component's
 * configuration. Sluice serves its own metrics on one Prometheus endpoint and writes its own logs;
 * the OpenTelemetry Collector's other telemetry settings (resource, traces, log sampling and
 * outputs, metric views, periodic readers, Prometheus options) are {@link Unsupported}: accepted
 * with a warning and ignored, so its configuration files load unchanged. {@link #settings} is what
 * the collector uses.
 */
record TelemetryConfig(Logs logs, Metrics metrics, Unsupported traces, Unsupported resource) {
  static final TelemetryConfig DEFAULT =
      new TelemetryConfig(
          new Logs(
              TelemetrySettings.DEFAULT.logsLevel(),
              TelemetrySettings.DEFAULT.logsEncoding(),
              null,
              null,
              null,
              null,
              null,
              null,
              null,
              null),
          new Metrics(TelemetrySettings.DEFAULT.metricsLevel(), null, List.of(), null),
          null,
          null);

  private static final int MAX_PORT = 65535;

  /** {@code logs}: the level and encoding; the Collector's other log settings are ignored. */
  record Logs(
      LogLevel level,
      LogEncoding encoding,
      Unsupported development,
      Unsupported disableCaller,
      Unsupported disableStacktrace,
      Unsupported sampling,
      Unsupported outputPaths,
      Unsupported errorOutputPaths,
      Unsupported initialFields,
      Unsupported processors) {}

  /**
   * {@code metrics}: the level, and where the Prometheus endpoint listens: the older {@code
   * address} (null when left out) or the newer {@code readers} with one pull reader; neither keeps
   * localhost:8888.
   */
  record Metrics(MetricsLevel level, String address, List<Reader> readers, Unsupported views)
      implements Validatable {
    @Override
    public void validate(ConfigProblems problems) {
      if (address != null && endpoint(address) == null) {
        problems.add(
            "address", "expected host:port such as localhost:8888, found \"" + address + "\"");
      }
      int pulls = 0;
      for (int i = 0; i < readers.size(); i++) {
        if (readers.get(i).pull() != null && ++pulls == 2) {
          problems.under("readers").item(i).add("pull", "only one pull reader is supported");
        }
      }
      if (pulls > 0 && address != null) {
        problems.add("address", "give address or readers, not both");
      }
    }

    /** The pull reader's Prometheus exporter, or null when there is none. */
    Prometheus prometheus() {
      for (Reader reader : readers) {
        if (reader.pull() != null && reader.pull().exporter() != null) {
          return reader.pull().exporter().prometheus();
        }
      }
      return null;
    }
  }

  /** One of {@code metrics.readers}: a pull reader, or a periodic one (ignored). */
  record Reader(@OptionalSection Pull pull, Unsupported periodic) {}

  /** {@code pull}: its exporter, which must be Prometheus. */
  record Pull(
      @OptionalSection PullExporter exporter, Unsupported producers, Unsupported cardinalityLimits)
      implements Validatable {
    @Override
    public void validate(ConfigProblems problems) {
      if (exporter == null || exporter.prometheus() == null) {
        problems.add("exporter", "a pull reader needs an exporter: {prometheus: {host, port}}");
      }
    }
  }

  /** {@code pull.exporter}: only Prometheus. */
  record PullExporter(@OptionalSection Prometheus prometheus) {}

  /** {@code pull.exporter.prometheus}: where to listen; its other options are ignored. */
  record Prometheus(
      String host,
      Integer port,
      Unsupported withoutUnits,
      Unsupported withoutTypeSuffix,
      Unsupported withoutScopeInfo,
      Unsupported withResourceConstantLabels,
      Unsupported translationStrategy)
      implements Validatable {
    @Override
    public void validate(ConfigProblems problems) {
      if (host == null) {
        problems.add("host", "must be specified");
      }
      if (port == null) {
        problems.add("port", "must be specified");
      } else if (port < 0 || port > MAX_PORT) {
        problems.add("port", "expected a port between 0 and " + MAX_PORT + ", found " + port);
      }
    }
  }

  /** What the collector uses; call only on a configuration that validated. */
  TelemetrySettings settings() {
    String host = TelemetrySettings.DEFAULT.metricsHost();
    int port = TelemetrySettings.DEFAULT.metricsPort();
    Prometheus prometheus = metrics.prometheus();
    if (prometheus != null) {
      host = prometheus.host();
      port = prometheus.port();
    } else if (metrics.address() != null) {
      HostPort endpoint = endpoint(metrics.address());
      host = endpoint.host();
      port = endpoint.port();
    }
    return new TelemetrySettings(metrics.level(), host, port, logs.level(), logs.encoding());
  }

  private record HostPort(String host, int port) {}

  /** {@code host:port}, {@code :port} or {@code [ipv6]:port}; null if it is none of them. */
  private static HostPort endpoint(String text) {
    int colon = text.lastIndexOf(':');
    if (colon < 0) {
      return null;
    }
    String host = text.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    BigInteger port = ConfigBinder.parseInteger(text.substring(colon + 1));
    if (port == null
        || port.signum() < 0
        || port.bitLength() >= Integer.SIZE
        || port.intValue() > MAX_PORT
        || host.contains("[")
        || host.contains("]")) {
      return null;
    }
    return new HostPort(host, port.intValue());
  }
}
