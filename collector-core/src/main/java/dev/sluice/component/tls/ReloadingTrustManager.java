package dev.sluice.component.tls;

import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * A trust manager over CA certificates that can be replaced while connections are being made: each
 * check uses the JDK's PKIX trust manager for the CAs current at that moment (which also verifies
 * the peer's host name when the engine asks for endpoint identification).
 */
final class ReloadingTrustManager extends X509ExtendedTrustManager {
  private static final X509Certificate[] NO_ISSUERS = new X509Certificate[0];

  private final boolean advertiseIssuers;
  private volatile X509ExtendedTrustManager delegate;

  /**
   * @param advertiseIssuers whether {@link #getAcceptedIssuers} names the CAs. A server's
   *     certificate request lists them, and OpenSSL (which gRPC uses when available) reads that
   *     list once, when the context is built: a list that a reload cannot update would steer
   *     clients away from a certificate signed by a new CA. No list means any certificate may be
   *     offered; verification is the same either way.
   */
  ReloadingTrustManager(boolean advertiseIssuers) {
    this.advertiseIssuers = advertiseIssuers;
  }

  /** Makes {@code authorities} the CAs that new checks trust. */
  void load(List<X509Certificate> authorities) {
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      for (int i = 0; i < authorities.size(); i++) {
        store.setCertificateEntry("ca-" + i, authorities.get(i));
      }
      TrustManagerFactory factory = TrustManagerFactory.getInstance("PKIX");
      factory.init(store);
      delegate = x509(factory.getTrustManagers());
    } catch (GeneralSecurityException | java.io.IOException e) {
      throw new IllegalStateException("the JDK cannot hold a certificate it has read", e);
    }
  }

  private static X509ExtendedTrustManager x509(TrustManager[] managers) {
    for (TrustManager manager : managers) {
      if (manager instanceof X509ExtendedTrustManager x509) {
        return x509;
      }
    }
    throw new IllegalStateException("the JDK's PKIX factory made no X509ExtendedTrustManager");
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    delegate.checkClientTrusted(chain, authType, socket);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    delegate.checkServerTrusted(chain, authType, socket);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    delegate.checkClientTrusted(chain, authType, engine);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    delegate.checkServerTrusted(chain, authType, engine);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType)
      throws CertificateException {
    delegate.checkClientTrusted(chain, authType);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType)
      throws CertificateException {
    delegate.checkServerTrusted(chain, authType);
  }

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return advertiseIssuers ? delegate.getAcceptedIssuers() : NO_ISSUERS;
  }

  /** {@code insecure_skip_verify}: any certificate, for any host name. */
  static final class TrustingEveryone extends X509ExtendedTrustManager {
    private static final X509Certificate[] NONE = new X509Certificate[0];

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return NONE;
    }
  }
}
