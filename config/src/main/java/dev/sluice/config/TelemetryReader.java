package dev.sluice.config;

import dev.sluice.config.ConfigNode.Entry;
import dev.sluice.config.ConfigNode.Mapping;
import dev.sluice.config.ConfigNode.Scalar;
import dev.sluice.config.ConfigNode.Sequence;
import dev.sluice.config.TelemetrySettings.LogEncoding;
import dev.sluice.config.TelemetrySettings.LogLevel;
import dev.sluice.config.TelemetrySettings.MetricsLevel;
import java.util.List;

/**
 * Reads {@code service.telemetry}. Sluice serves its own metrics on one Prometheus endpoint and
 * writes its own logs; the OpenTelemetry Collector's other telemetry settings (resource, traces,
 * log sampling and outputs, metric views, periodic readers, Prometheus options) are accepted with a
 * warning and ignored, so its configuration files load unchanged. Unknown keys are errors.
 */
final class TelemetryReader {
  private static final List<String> KEYS = List.of("logs", "metrics", "traces", "resource");
  private static final List<String> IGNORED = List.of("traces", "resource");
  private static final List<String> LOGS_KEYS =
      List.of(
          "level",
          "encoding",
          "development",
          "disable_caller",
          "disable_stacktrace",
          "sampling",
          "output_paths",
          "error_output_paths",
          "initial_fields",
          "processors");
  private static final List<String> METRICS_KEYS = List.of("level", "address", "readers", "views");
  private static final List<String> READER_KEYS = List.of("pull", "periodic");
  private static final List<String> PULL_KEYS =
      List.of("exporter", "producers", "cardinality_limits");
  private static final List<String> PROMETHEUS_KEYS =
      List.of(
          "host",
          "port",
          "without_units",
          "without_type_suffix",
          "without_scope_info",
          "with_resource_constant_labels",
          "translation_strategy");
  private static final String IGNORED_MESSAGE = "is not supported by Sluice and is ignored";

  private final ConfigBinder binder;
  private final Diagnostics d;

  TelemetryReader(ConfigBinder binder, Diagnostics diagnostics) {
    this.binder = binder;
    this.d = diagnostics;
  }

  TelemetrySettings read(Entry telemetry) {
    TelemetrySettings defaults = TelemetrySettings.DEFAULT;
    Mapping mapping = mapping(telemetry, "service.telemetry");
    if (mapping == null) {
      return defaults;
    }
    checkKeys(mapping, "service.telemetry", KEYS, IGNORED);
    LogLevel logLevel = defaults.logsLevel();
    LogEncoding encoding = defaults.logsEncoding();
    Entry logs = mapping.entry("logs").orElse(null);
    if (logs != null) {
      Mapping m = mapping(logs, "service.telemetry.logs");
      if (m != null) {
        checkKeys(m, "service.telemetry.logs", LOGS_KEYS, LOGS_KEYS.subList(2, LOGS_KEYS.size()));
        logLevel = value(m, "service.telemetry.logs", "level", LogLevel.class, logLevel);
        encoding = value(m, "service.telemetry.logs", "encoding", LogEncoding.class, encoding);
      }
    }
    MetricsLevel metricsLevel = defaults.metricsLevel();
    String host = defaults.metricsHost();
    int port = defaults.metricsPort();
    Entry metrics = mapping.entry("metrics").orElse(null);
    if (metrics != null) {
      String path = "service.telemetry.metrics";
      Mapping m = mapping(metrics, path);
      if (m != null) {
        checkKeys(m, path, METRICS_KEYS, List.of("views"));
        metricsLevel = value(m, path, "level", MetricsLevel.class, metricsLevel);
        Endpoint endpoint = null;
        Entry address = m.entry("address").orElse(null);
        if (address != null) {
          endpoint = address(address, path + ".address");
        }
        Entry readers = m.entry("readers").orElse(null);
        if (readers != null) {
          Endpoint fromReaders = readers(readers, path + ".readers");
          if (fromReaders != null && address != null) {
            d.error(address.keyLocation(), path + ".address", "give address or readers, not both");
          }
          if (fromReaders != null) {
            endpoint = fromReaders;
          }
        }
        if (endpoint != null) {
          host = endpoint.host();
          port = endpoint.port();
        }
      }
    }
    return new TelemetrySettings(metricsLevel, host, port, logLevel, encoding);
  }

  private record Endpoint(String host, int port) {}

  /** {@code host:port}, {@code :port} or {@code [ipv6]:port}. */
  private Endpoint address(Entry entry, String path) {
    String text = binder.scalar(entry.value(), entry.keyLocation(), path, String.class, d);
    if (text == null) {
      return null;
    }
    int colon = text.lastIndexOf(':');
    if (colon >= 0) {
      String host = text.substring(0, colon);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      java.math.BigInteger port = ConfigBinder.parseInteger(text.substring(colon + 1));
      if (port != null
          && port.signum() >= 0
          && port.intValue() <= 65535
          && port.bitLength() < 32
          && !host.contains("[")
          && !host.contains("]")) {
        return new Endpoint(host, port.intValue());
      }
    }
    d.error(
        entry.keyLocation(),
        path,
        "expected host:port such as localhost:8888, found " + entry.value().describe());
    return null;
  }

  /** The endpoint of the one pull reader, or null when there is none. */
  private Endpoint readers(Entry entry, String path) {
    ConfigNode node = entry.value();
    if (node instanceof Scalar s && s.isNull()) {
      return null;
    }
    if (!(node instanceof Sequence sequence)) {
      d.error(entry.keyLocation(), path, "expected a list, found " + node.describe());
      return null;
    }
    Endpoint endpoint = null;
    for (int i = 0; i < sequence.items().size(); i++) {
      ConfigNode item = sequence.items().get(i);
      String itemPath = path + "[" + i + "]";
      if (!(item instanceof Mapping reader)) {
        d.error(item.location(), itemPath, "expected a mapping, found " + item.describe());
        continue;
      }
      checkKeys(reader, itemPath, READER_KEYS, List.of("periodic"));
      Entry pull = reader.entry("pull").orElse(null);
      if (pull == null) {
        continue;
      }
      Endpoint e = pull(pull, itemPath + ".pull");
      if (e != null && endpoint != null) {
        d.error(pull.keyLocation(), itemPath + ".pull", "only one pull reader is supported");
      } else if (e != null) {
        endpoint = e;
      }
    }
    return endpoint;
  }

  private Endpoint pull(Entry pull, String path) {
    Mapping m = mapping(pull, path);
    if (m == null) {
      return null;
    }
    checkKeys(m, path, PULL_KEYS, PULL_KEYS.subList(1, PULL_KEYS.size()));
    Entry exporter = m.entry("exporter").orElse(null);
    if (exporter == null) {
      d.error(
          pull.keyLocation(), path, "a pull reader needs an exporter: {prometheus: {host, port}}");
      return null;
    }
    Mapping exporters = mapping(exporter, path + ".exporter");
    if (exporters == null) {
      return null;
    }
    Entry prometheus = null;
    for (Entry e : exporters.entries()) {
      if (e.key().equals("prometheus")) {
        prometheus = e;
      } else {
        d.error(
            e.keyLocation(),
            path + ".exporter." + e.key(),
            "only the prometheus exporter is supported for pull readers");
      }
    }
    if (prometheus == null) {
      if (exporters.isEmpty()) {
        d.error(exporter.keyLocation(), path + ".exporter", "expected {prometheus: {host, port}}");
      }
      return null;
    }
    String promPath = path + ".exporter.prometheus";
    Mapping p = mapping(prometheus, promPath);
    if (p == null) {
      return null;
    }
    checkKeys(p, promPath, PROMETHEUS_KEYS, PROMETHEUS_KEYS.subList(2, PROMETHEUS_KEYS.size()));
    Entry hostEntry = p.entry("host").orElse(null);
    Entry portEntry = p.entry("port").orElse(null);
    String host = null;
    Integer port = null;
    if (hostEntry == null || isNull(hostEntry.value())) {
      d.error(prometheus.keyLocation(), promPath + ".host", "must be specified");
    } else {
      host =
          binder.scalar(
              hostEntry.value(), hostEntry.keyLocation(), promPath + ".host", String.class, d);
    }
    if (portEntry == null || isNull(portEntry.value())) {
      d.error(prometheus.keyLocation(), promPath + ".port", "must be specified");
    } else {
      port =
          binder.scalar(
              portEntry.value(), portEntry.keyLocation(), promPath + ".port", Integer.class, d);
      if (port != null && (port < 0 || port > 65535)) {
        d.error(
            portEntry.keyLocation(),
            promPath + ".port",
            "expected a port between 0 and 65535, found " + port);
        port = null;
      }
    }
    return host == null || port == null ? null : new Endpoint(host, port);
  }

  private static boolean isNull(ConfigNode node) {
    return node instanceof Scalar s && s.isNull();
  }

  private <T> T value(Mapping m, String path, String key, Class<T> type, T otherwise) {
    Entry e = m.entry(key).orElse(null);
    if (e == null || isNull(e.value())) {
      return otherwise;
    }
    T value = binder.scalar(e.value(), e.keyLocation(), path + "." + key, type, d);
    return value == null ? otherwise : value;
  }

  private void checkKeys(Mapping m, String path, List<String> known, List<String> ignored) {
    for (Entry e : m.entries()) {
      String keyPath = path + "." + e.key();
      if (!known.contains(e.key())) {
        d.error(e.keyLocation(), keyPath, Names.unknownKey("key", e.key(), known));
      } else if (ignored.contains(e.key())) {
        d.warn(e.keyLocation(), keyPath, IGNORED_MESSAGE);
      }
    }
  }

  private Mapping mapping(Entry entry, String path) {
    ConfigNode value = entry.value();
    if (value instanceof Mapping m) {
      return m;
    }
    if (value instanceof Scalar s && s.isNull()) {
      return Mapping.empty(s.location());
    }
    d.error(entry.keyLocation(), path, "expected a mapping, found " + value.describe());
    return null;
  }
}
