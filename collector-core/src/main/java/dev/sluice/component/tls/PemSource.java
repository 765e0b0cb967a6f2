package dev.sluice.component.tls;

import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.List;

/**
 * Files of a {@code tls} section that are loaded together (a certificate and its key, or a CA
 * file), with the bytes last loaded, so that a reload only rebuilds what changed on disk.
 */
abstract class PemSource {
  private final String[] keys;
  private final String[] files;
  private byte[][] loaded;

  PemSource(String[] keys, String[] files) {
    this.keys = keys;
    this.files = files;
  }

  /** Reads and applies the files: at start, where an error stops the component. */
  final void load() throws TlsConfigException {
    byte[][] contents = read();
    apply(contents);
    loaded = contents;
  }

  /**
   * Reads the files again and applies them if any changed; an error leaves what was applied before.
   *
   * @return whether new material was applied
   */
  final boolean reloadIfChanged() throws TlsConfigException {
    byte[][] contents = read();
    if (Arrays.deepEquals(contents, loaded)) {
      return false;
    }
    apply(contents);
    loaded = contents;
    return true;
  }

  /** The files, for log lines. */
  final String describe() {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < keys.length; i++) {
      text.append(i == 0 ? "" : " and ").append(keys[i]).append(' ').append(files[i]);
    }
    return text.toString();
  }

  private byte[][] read() throws TlsConfigException {
    byte[][] contents = new byte[files.length][];
    for (int i = 0; i < files.length; i++) {
      contents[i] = PemFiles.read(keys[i], files[i]);
    }
    return contents;
  }

  /** Parses the files' contents (in constructor order) and makes them current. */
  abstract void apply(byte[][] contents) throws TlsConfigException;

  /** A certificate chain file and its private key file. */
  static final class KeyPair extends PemSource {
    private final ReloadingKeyManager manager;

    KeyPair(String certKey, String certFile, String keyKey, String keyFile) {
      super(new String[] {certKey, keyKey}, new String[] {certFile, keyFile});
      this.manager = new ReloadingKeyManager();
    }

    ReloadingKeyManager manager() {
      return manager;
    }

    @Override
    void apply(byte[][] contents) throws TlsConfigException {
      String certKey = super.keys[0];
      String certFile = super.files[0];
      List<X509Certificate> chain = PemFiles.certificates(certKey, certFile, contents[0]);
      PrivateKey key = PemFiles.privateKey(super.keys[1], super.files[1], contents[1]);
      PemFiles.checkMatch(certKey, certFile, chain.get(0), super.keys[1], super.files[1], key);
      manager.load(chain, key);
    }
  }

  /** A file of CA certificates. */
  static final class Authorities extends PemSource {
    private final ReloadingTrustManager manager;

    /** See {@link ReloadingTrustManager#ReloadingTrustManager(boolean)}. */
    Authorities(String key, String file, boolean advertiseIssuers) {
      super(new String[] {key}, new String[] {file});
      this.manager = new ReloadingTrustManager(advertiseIssuers);
    }

    ReloadingTrustManager manager() {
      return manager;
    }

    @Override
    void apply(byte[][] contents) throws TlsConfigException {
      manager.load(PemFiles.certificates(super.keys[0], super.files[0], contents[0]));
    }
  }
}
