package dev.sluice.component;

import dev.sluice.component.tls.TlsProtocols;
import java.time.Duration;
import java.util.List;

/**
 * TLS for a server endpoint ({@code tls}), with the OpenTelemetry Collector's keys and defaults
 * ({@code configtls}): the server's certificate and key in PEM files; optionally a CA file to
 * require and verify client certificates; the TLS versions and cipher suites allowed (see {@link
 * TlsProtocols}); and how often the files are read again.
 *
 * @param certFile the certificate chain, leaf first (PEM)
 * @param keyFile the certificate's private key (PEM: PKCS#8, or PKCS#1 for RSA)
 * @param clientCaFile CAs that client certificates must chain to; empty asks for none
 * @param minVersion the oldest TLS version accepted, {@code "1.2"} by default
 * @param maxVersion the newest TLS version accepted; empty (the default) is the newest, 1.3
 * @param cipherSuites the TLS 1.2 cipher suites allowed; empty keeps the transport's defaults
 * @param reloadInterval how often the files are checked and, when changed, read again for new
 *     connections; 0 (the default) reads them only at start
 * @param clientCaFileReload the Go collector's switch for reloading {@code client_ca_file} alone:
 *     with {@code reload_interval} 0, the client CA file is checked every {@link
 *     #CLIENT_CA_CHECK_INTERVAL} (Go watches it for changes); with {@code reload_interval} set, it
 *     changes nothing, since that reloads every file
 */
public record TlsServerConfig(
    String certFile,
    String keyFile,
    String clientCaFile,
    String minVersion,
    String maxVersion,
    List<String> cipherSuites,
    Duration reloadInterval,
    boolean clientCaFileReload)
    implements Validatable {
  public static final TlsServerConfig DEFAULT = new TlsServerConfig("", "", "");

  /** How often {@code client_ca_file_reload} checks the client CA file without reload_interval. */
  public static final Duration CLIENT_CA_CHECK_INTERVAL = Duration.ofSeconds(5);

  /** The files only, with the default versions, cipher suites and no reloading. */
  public TlsServerConfig(String certFile, String keyFile, String clientCaFile) {
    this(
        certFile,
        keyFile,
        clientCaFile,
        TlsProtocols.DEFAULT_MIN_VERSION,
        "",
        List.of(),
        Duration.ZERO,
        false);
  }

  @Override
  public void validate(ConfigProblems problems) {
    if (certFile.isEmpty()) {
      problems.add("cert_file", "a TLS server needs cert_file");
    }
    if (keyFile.isEmpty()) {
      problems.add("key_file", "a TLS server needs key_file");
    }
    TlsProtocols.validate(minVersion, maxVersion, cipherSuites, reloadInterval, problems);
  }
}
