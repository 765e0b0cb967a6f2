package dev.sluice.component.tls;

import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * A key manager whose certificate and key can be replaced while connections are being made: each
 * handshake uses the material current when it chooses its alias. Every load gets a new alias, and
 * the previous load stays readable, so a handshake that chose its alias just before a swap still
 * finds its chain and key.
 */
final class ReloadingKeyManager extends X509ExtendedKeyManager {
  private static final char[] NO_PASSWORD = new char[0];

  /** One load: the JDK's key manager over a key store holding only {@code alias}. */
  private record Generation(X509ExtendedKeyManager manager, String alias) {}

  private final AtomicLong loads = new AtomicLong();
  private volatile Generation current;
  private volatile Generation previous;

  /** Makes {@code chain} (leaf first) and {@code key} what new handshakes present. */
  void load(List<X509Certificate> chain, PrivateKey key) {
    String alias = "sluice-" + loads.incrementAndGet();
    X509ExtendedKeyManager manager;
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setKeyEntry(alias, key, NO_PASSWORD, chain.toArray(new X509Certificate[0]));
      KeyManagerFactory factory = KeyManagerFactory.getInstance("SunX509");
      factory.init(store, NO_PASSWORD);
      manager = x509(factory.getKeyManagers());
    } catch (GeneralSecurityException | java.io.IOException e) {
      throw new IllegalStateException("the JDK cannot hold a key it has read", e);
    }
    Generation next = new Generation(manager, alias);
    previous = current;
    current = next;
  }

  private static X509ExtendedKeyManager x509(KeyManager[] managers) {
    for (KeyManager manager : managers) {
      if (manager instanceof X509ExtendedKeyManager x509) {
        return x509;
      }
    }
    throw new IllegalStateException("the JDK's SunX509 factory made no X509ExtendedKeyManager");
  }

  /** The generation that knows {@code alias}: the current one, or the one before it. */
  private X509ExtendedKeyManager owner(String alias) {
    Generation now = current;
    if (now.alias().equals(alias)) {
      return now.manager();
    }
    Generation before = previous;
    return before != null && before.alias().equals(alias) ? before.manager() : null;
  }

  @Override
  public String[] getClientAliases(String keyType, Principal[] issuers) {
    return current.manager().getClientAliases(keyType, issuers);
  }

  @Override
  public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
    return current.manager().chooseClientAlias(keyType, issuers, socket);
  }

  @Override
  public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
    return current.manager().chooseEngineClientAlias(keyType, issuers, engine);
  }

  @Override
  public String[] getServerAliases(String keyType, Principal[] issuers) {
    return current.manager().getServerAliases(keyType, issuers);
  }

  @Override
  public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
    return current.manager().chooseServerAlias(keyType, issuers, socket);
  }

  @Override
  public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
    return current.manager().chooseEngineServerAlias(keyType, issuers, engine);
  }

  @Override
  public X509Certificate[] getCertificateChain(String alias) {
    X509ExtendedKeyManager owner = owner(alias);
    return owner == null ? null : owner.getCertificateChain(alias);
  }

  @Override
  public PrivateKey getPrivateKey(String alias) {
    X509ExtendedKeyManager owner = owner(alias);
    return owner == null ? null : owner.getPrivateKey(alias);
  }
}
