package dev.sluice.core.component;

/**
 * TLS for a client connection ({@code tls}), with the OpenTelemetry Collector's keys and defaults:
 * TLS is on unless {@code insecure} is true; {@code ca_file} replaces the system's trust store;
 * {@code cert_file} and {@code key_file} present a client certificate; {@code insecure_skip_verify}
 * accepts any server certificate.
 */
public record TlsClientConfig(
    boolean insecure,
    String caFile,
    String certFile,
    String keyFile,
    boolean insecureSkipVerify,
    String serverNameOverride) {
  public static final TlsClientConfig DEFAULT = new TlsClientConfig(false, "", "", "", false, "");

  public void validate(ConfigProblems problems) {
    if (certFile.isEmpty() != keyFile.isEmpty()) {
      problems.add(
          certFile.isEmpty() ? "cert_file" : "key_file",
          "set both cert_file and key_file, or neither");
    }
  }
}
