package dev.sluice.exporter.otlp;

import dev.sluice.component.Endpoint;

/**
 * An exporter endpoint: {@code host:port}, optionally prefixed with {@code https://} or {@code
 * http://} (which asks for plaintext, as in the OpenTelemetry Collector).
 */
record Target(Endpoint endpoint, boolean plaintextScheme) {
  static Target parse(String text) {
    String value = text.trim();
    boolean plaintext = false;
    if (value.startsWith("http://")) {
      plaintext = true;
      value = value.substring("http://".length());
    } else if (value.startsWith("https://")) {
      value = value.substring("https://".length());
    }
    if (value.endsWith("/")) {
      value = value.substring(0, value.length() - 1);
    }
    return new Target(Endpoint.parse(value), plaintext);
  }
}
