package dev.sluice.core.component;

/**
 * TLS for a server endpoint ({@code tls}), with the OpenTelemetry Collector's keys: the server's
 * certificate and key in PEM files, and optionally a CA file to require and verify client
 * certificates.
 */
public record TlsServerConfig(String certFile, String keyFile, String clientCaFile) {
  public static final TlsServerConfig DEFAULT = new TlsServerConfig("", "", "");

  public void validate(ConfigProblems problems) {
    if (certFile.isEmpty()) {
      problems.add("cert_file", "a TLS server needs cert_file");
    }
    if (keyFile.isEmpty()) {
      problems.add("key_file", "a TLS server needs key_file");
    }
  }
}
