package dev.sluice.component.tls;

import dev.sluice.component.TlsClientConfig;
import dev.sluice.component.TlsServerConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;
import javax.net.ssl.KeyManager;
import javax.net.ssl.TrustManager;

/**
 * The one place a {@code tls} section becomes TLS material, for servers (receivers) and clients
 * (exporters) alike, whichever Netty copy then uses it. Files are read and checked here, so a
 * component fails to start with a {@link TlsConfigException} naming the key, the file and what is
 * wrong (each key under the {@code path} of the section, such as {@code
 * receivers.otlp.protocols.grpc.tls}); with {@code reload_interval} they are read again while
 * running (see {@link TlsMaterial}).
 */
public final class TlsLoader {
  private TlsLoader() {}

  /**
   * A server's material: its certificate and key, and with {@code client_ca_file} the CAs that
   * client certificates must chain to (which are then required). When the client CA file is
   * reloaded ({@code reload_interval} or {@code client_ca_file_reload}) the certificate request
   * names no CAs, since a reload could not update the list everywhere (see {@link
   * ReloadingTrustManager#ReloadingTrustManager(boolean)}).
   */
  public static TlsMaterial server(TlsServerConfig tls, String path, Logger logger)
      throws TlsConfigException {
    List<PemSource> sources = new ArrayList<>();
    PemSource.KeyPair keys =
        new PemSource.KeyPair(
            key(path, "cert_file"), tls.certFile(), key(path, "key_file"), tls.keyFile());
    keys.load();
    sources.add(keys);
    boolean reloading = !tls.reloadInterval().isZero() || tls.clientCaFileReload();
    PemSource.Authorities clientCas = null;
    if (!tls.clientCaFile().isEmpty()) {
      clientCas =
          new PemSource.Authorities(key(path, "client_ca_file"), tls.clientCaFile(), !reloading);
      clientCas.load();
      sources.add(clientCas);
    }
    Duration interval = tls.reloadInterval();
    if (interval.isZero() && tls.clientCaFileReload() && clientCas != null) {
      interval = TlsServerConfig.CLIENT_CA_CHECK_INTERVAL;
      sources = List.of(clientCas);
    }
    return new TlsMaterial(
        keys.manager(),
        clientCas == null ? null : clientCas.manager(),
        TlsProtocols.protocols(tls.minVersion(), tls.maxVersion()),
        TlsProtocols.cipherSuites(tls.cipherSuites()),
        clientCas != null,
        sources,
        interval,
        path,
        logger);
  }

  /**
   * A client's material: {@code ca_file}'s CAs (else the trust manager is left to the provider's
   * default, the JDK's trust store), or with {@code insecure_skip_verify} a trust manager that
   * accepts any certificate for any name; and {@code cert_file} with {@code key_file} when set.
   */
  public static TlsMaterial client(TlsClientConfig tls, String path, Logger logger)
      throws TlsConfigException {
    List<PemSource> sources = new ArrayList<>();
    TrustManager trust = null;
    if (tls.insecureSkipVerify()) {
      trust = new ReloadingTrustManager.TrustingEveryone();
    } else if (!tls.caFile().isEmpty()) {
      PemSource.Authorities cas =
          new PemSource.Authorities(key(path, "ca_file"), tls.caFile(), true);
      cas.load();
      sources.add(cas);
      trust = cas.manager();
    }
    KeyManager keyManager = null;
    if (!tls.certFile().isEmpty()) {
      PemSource.KeyPair keys =
          new PemSource.KeyPair(
              key(path, "cert_file"), tls.certFile(), key(path, "key_file"), tls.keyFile());
      keys.load();
      sources.add(keys);
      keyManager = keys.manager();
    }
    return new TlsMaterial(
        keyManager,
        trust,
        TlsProtocols.protocols(tls.minVersion(), tls.maxVersion()),
        TlsProtocols.cipherSuites(tls.cipherSuites()),
        false,
        sources,
        tls.reloadInterval(),
        path,
        logger);
  }

  /** A key's path under the section's, as errors name it. */
  private static String key(String path, String key) {
    return path.isEmpty() ? key : path + "." + key;
  }
}
