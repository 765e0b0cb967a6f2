package dev.sluice.component;

import dev.sluice.component.tls.TlsProtocols;
import java.time.Duration;
import java.util.List;

/**
 * TLS for a client connection ({@code tls}), with the OpenTelemetry Collector's keys and defaults
 * ({@code configtls}): TLS is on unless {@code insecure} is true; {@code ca_file} replaces the
 * system's trust store; {@code cert_file} and {@code key_file} present a client certificate; {@code
 * insecure_skip_verify} accepts any server certificate; the TLS versions and cipher suites allowed
 * (see {@link TlsProtocols}); and how often the files are read again.
 *
 * @param minVersion the oldest TLS version offered, {@code "1.2"} by default
 * @param maxVersion the newest TLS version offered; empty (the default) is the newest, 1.3
 * @param cipherSuites the TLS 1.2 cipher suites offered; empty keeps the transport's defaults
 * @param reloadInterval how often {@code ca_file}, {@code cert_file} and {@code key_file} are
 *     checked and, when changed, read again for new connections; 0 (the default) reads them only at
 *     start
 */
public record TlsClientConfig(
    boolean insecure,
    String caFile,
    String certFile,
    String keyFile,
    boolean insecureSkipVerify,
    String serverNameOverride,
    String minVersion,
    String maxVersion,
    List<String> cipherSuites,
    Duration reloadInterval)
    implements Validatable {
  public static final TlsClientConfig DEFAULT = new TlsClientConfig(false, "", "", "", false, "");

  /** The files and checks only, with the default versions, cipher suites and no reloading. */
  public TlsClientConfig(
      boolean insecure,
      String caFile,
      String certFile,
      String keyFile,
      boolean insecureSkipVerify,
      String serverNameOverride) {
    this(
        insecure,
        caFile,
        certFile,
        keyFile,
        insecureSkipVerify,
        serverNameOverride,
        TlsProtocols.DEFAULT_MIN_VERSION,
        "",
        List.of(),
        Duration.ZERO);
  }

  @Override
  public void validate(ConfigProblems problems) {
    if (certFile.isEmpty() != keyFile.isEmpty()) {
      problems.add(
          certFile.isEmpty() ? "cert_file" : "key_file",
          "set both cert_file and key_file, or neither");
    }
    TlsProtocols.validate(minVersion, maxVersion, cipherSuites, reloadInterval, problems);
  }
}
