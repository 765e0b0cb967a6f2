package dev.sluice.kafka;

import dev.sluice.component.ConfigProblems;

/** How a record's value holds its data ({@code encoding}), with the Collector's names. */
public enum KafkaEncoding {
  /** An {@code Export*ServiceRequest} in protobuf: the Collector's default. */
  OTLP_PROTO("otlp_proto"),
  /** An {@code Export*ServiceRequest} in OTLP/JSON. */
  OTLP_JSON("otlp_json");

  private final String configName;

  KafkaEncoding(String configName) {
    this.configName = configName;
  }

  /** The name configurations use. */
  public String configName() {
    return configName;
  }

  /** The encoding named {@code name}, or null when Sluice has none of that name. */
  public static KafkaEncoding named(String name) {
    for (KafkaEncoding encoding : values()) {
      if (encoding.configName.equals(name)) {
        return encoding;
      }
    }
    return null;
  }

  /** Reports {@code key} when {@code name} names no encoding Sluice has. */
  public static void validate(String name, String key, ConfigProblems problems) {
    if (named(name) == null) {
      problems.add(
          key,
          "\""
              + name
              + "\" is not supported by Sluice; use otlp_proto or otlp_json (the Collector's"
              + " jaeger, zipkin and raw encodings are not in this build)");
    }
  }
}
