package dev.sluice.component.tls;

import dev.sluice.component.telemetry.RateLimitedLog;
import java.security.Provider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.KeyManagerFactorySpi;
import javax.net.ssl.ManagerFactoryParameters;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.TrustManagerFactorySpi;

/**
 * What {@link TlsLoader} made of a {@code tls} section, in the JDK's terms that both Netty copies
 * (Netty's and grpc-netty-shaded's) take: key and trust manager factories, the protocols and the
 * cipher suites. The managers read their material from disk again every {@code reload_interval}
 * when a file changed, until {@link #close}.
 */
public final class TlsMaterial implements AutoCloseable {
  /** Between two failed reloads' log lines. */
  private static final long RELOAD_FAILURE_LOG_MILLIS = 60_000;

  private static final Provider PROVIDER = new SluiceProvider();

  private final KeyManagerFactory keyManagers;
  private final TrustManagerFactory trustManagers;
  private final String[] protocols;
  private final List<String> cipherSuites;
  private final boolean clientCertificateRequired;
  private final String sectionPath;
  private final ScheduledFuture<?> reloading;

  TlsMaterial(
      KeyManager keyManager,
      TrustManager trustManager,
      String[] protocols,
      List<String> cipherSuites,
      boolean clientCertificateRequired,
      List<PemSource> sources,
      Duration reloadInterval,
      String sectionPath,
      Logger logger) {
    this.keyManagers = keyManager == null ? null : new Keys(keyManager);
    this.trustManagers = trustManager == null ? null : new Trust(trustManager);
    this.protocols = protocols;
    this.cipherSuites = cipherSuites;
    this.clientCertificateRequired = clientCertificateRequired;
    this.sectionPath = sectionPath;
    this.reloading =
        reloadInterval.isZero() || sources.isEmpty()
            ? null
            : Reloads.schedule(new Reload(sources, logger), reloadInterval);
  }

  /** The certificate and key presented, or null when there is none (a client without one). */
  public KeyManagerFactory keyManagers() {
    return keyManagers;
  }

  /**
   * What verifies the peer's certificate, or null for the TLS provider's default (a client without
   * {@code ca_file}: the JDK's trust store; a server without {@code client_ca_file}: no client
   * certificates asked for).
   */
  public TrustManagerFactory trustManagers() {
    return trustManagers;
  }

  /** The enabled protocols' JDK names ({@code TLSv1.3}, {@code TLSv1.2}), newest first. */
  public String[] protocols() {
    return protocols.clone();
  }

  /**
   * The enabled cipher suites' JDK names (configured, then the TLS 1.3 suites), or null for the
   * transport's defaults.
   */
  public List<String> cipherSuites() {
    return cipherSuites;
  }

  /**
   * Builds a transport's TLS context over this material, in its Netty copy's types, the same way
   * for every server and client: {@code factory} passes the managers and settings to its {@code
   * SslContextBuilder}; a failure stops the reloads and becomes a {@link TlsConfigException} naming
   * the section and what the TLS provider said (never the files' contents); and the context must
   * keep every configured cipher suite (see {@link #requireCipherSuites}).
   *
   * @param factory builds the context from this material
   * @param enabledSuites the suites a built context enables
   * @throws TlsConfigException when the context cannot be built or drops a configured suite
   */
  public <C> C context(ContextFactory<C> factory, Function<C, List<String>> enabledSuites)
      throws TlsConfigException {
    try {
      C context = factory.build(this);
      requireCipherSuites(enabledSuites.apply(context));
      return context;
    } catch (TlsConfigException e) {
      close();
      throw e;
    } catch (Exception e) {
      close();
      String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      throw new TlsConfigException(
          (sectionPath.isEmpty() ? "tls" : sectionPath) + ": cannot set up TLS: " + why);
    }
  }

  /** Builds one Netty copy's TLS context from the material: {@code SslContextBuilder}'s work. */
  @FunctionalInterface
  public interface ContextFactory<C> {
    C build(TlsMaterial material) throws Exception;
  }

  /** Whether the files are still read again every reload interval (not after {@link #close}). */
  boolean reloading() {
    return reloading != null && !reloading.isCancelled();
  }

  /**
   * Checks that a transport's TLS context kept every configured suite: a provider filters out the
   * suites it does not implement (OpenSSL, which gRPC uses when available, has no DHE suites, for
   * one), and a handshake would then fail without a word.
   *
   * @param enabled the suites the built context enables
   * @throws TlsConfigException naming the configured suites that were dropped
   */
  public void requireCipherSuites(List<String> enabled) throws TlsConfigException {
    if (cipherSuites == null) {
      return;
    }
    List<String> dropped = new ArrayList<>();
    for (String suite : cipherSuites) {
      if (!TlsProtocols.TLS13_SUITES.contains(suite) && !enabled.contains(suite)) {
        dropped.add(suite);
      }
    }
    if (!dropped.isEmpty()) {
      throw new TlsConfigException(
          (sectionPath.isEmpty() ? "" : sectionPath + ".")
              + "cipher_suites: "
              + String.join(", ", dropped)
              + (dropped.size() == 1 ? " is" : " are")
              + " not supported by this transport's TLS provider; it enables "
              + String.join(", ", enabled));
    }
  }

  /** Whether a server requires and verifies client certificates ({@code client_ca_file}). */
  public boolean clientCertificateRequired() {
    return clientCertificateRequired;
  }

  /** Stops reloading; the managers keep what they hold. */
  @Override
  public void close() {
    if (reloading != null) {
      reloading.cancel(false);
    }
  }

  /** Reads each source again and logs what changed or failed; runs on the reload thread. */
  private static final class Reload implements Runnable {
    private final List<PemSource> sources;
    private final Logger logger;
    private final RateLimitedLog failures;

    Reload(List<PemSource> sources, Logger logger) {
      this.sources = sources;
      this.logger = logger;
      this.failures = new RateLimitedLog(logger, Level.WARNING, RELOAD_FAILURE_LOG_MILLIS);
    }

    @Override
    public void run() {
      for (PemSource source : sources) {
        try {
          if (source.reloadIfChanged()) {
            logger.info("TLS: reloaded " + source.describe());
          }
        } catch (TlsConfigException | RuntimeException e) {
          // Thrown out of a periodic task, it would end the reloads for good.
          failures.log("TLS: reload failed, keeping the last good material: " + e.getMessage());
        }
      }
    }
  }

  /** One daemon thread for every reload in the process: they are a few file reads each. */
  private static final class Reloads {
    private static final ScheduledThreadPoolExecutor EXECUTOR = executor();

    static ScheduledFuture<?> schedule(Runnable reload, Duration interval) {
      long nanos = interval.toNanos();
      return EXECUTOR.scheduleWithFixedDelay(reload, nanos, nanos, TimeUnit.NANOSECONDS);
    }

    private static ScheduledThreadPoolExecutor executor() {
      ScheduledThreadPoolExecutor executor =
          new ScheduledThreadPoolExecutor(
              1,
              task -> {
                Thread thread = new Thread(task, "sluice-tls-reload");
                thread.setDaemon(true);
                return thread;
              });
      executor.setRemoveOnCancelPolicy(true);
      return executor;
    }
  }

  /** A key manager factory that hands out one key manager, already loaded. */
  private static final class Keys extends KeyManagerFactory {
    Keys(KeyManager manager) {
      super(
          new KeyManagerFactorySpi() {
            @Override
            protected void engineInit(java.security.KeyStore store, char[] password) {}

            @Override
            protected void engineInit(ManagerFactoryParameters parameters) {}

            @Override
            protected KeyManager[] engineGetKeyManagers() {
              return new KeyManager[] {manager};
            }
          },
          PROVIDER,
          "sluice");
    }
  }

  /** A trust manager factory that hands out one trust manager, already loaded. */
  private static final class Trust extends TrustManagerFactory {
    Trust(TrustManager manager) {
      super(
          new TrustManagerFactorySpi() {
            @Override
            protected void engineInit(java.security.KeyStore store) {}

            @Override
            protected void engineInit(ManagerFactoryParameters parameters) {}

            @Override
            protected TrustManager[] engineGetTrustManagers() {
              return new TrustManager[] {manager};
            }
          },
          PROVIDER,
          "sluice");
    }
  }

  /** The factories' provider, which only names where they come from. */
  private static final class SluiceProvider extends Provider {
    private static final long serialVersionUID = 1L;

    SluiceProvider() {
      super("Sluice", "1.0", "Sluice's TLS key and trust managers, reloaded from PEM files");
    }
  }
}
