package dev.sluice.exporter.otlp;

import dev.sluice.core.component.TlsClientConfig;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/**
 * A JDK {@link SSLContext} from the PEM files of a {@code tls} section: {@code ca_file} for the
 * trusted roots (else the JDK's), {@code cert_file} and {@code key_file} (PKCS#8, RSA or EC) for a
 * client certificate, {@code insecure_skip_verify} to trust any server certificate.
 */
final class PemTls {
  private PemTls() {}

  static SSLContext context(TlsClientConfig tls) throws IOException, GeneralSecurityException {
    TrustManager[] trust = null;
    if (tls.insecureSkipVerify()) {
      trust = new TrustManager[] {new TrustAll()};
    } else if (!tls.caFile().isEmpty()) {
      KeyStore roots = KeyStore.getInstance(KeyStore.getDefaultType());
      roots.load(null, null);
      int i = 0;
      for (Certificate certificate : certificates(Path.of(tls.caFile()))) {
        roots.setCertificateEntry("ca-" + i++, certificate);
      }
      TrustManagerFactory factory =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(roots);
      trust = factory.getTrustManagers();
    }
    KeyManagerFactory keys = null;
    if (!tls.certFile().isEmpty()) {
      KeyStore identity = KeyStore.getInstance(KeyStore.getDefaultType());
      identity.load(null, null);
      char[] password = new char[0];
      identity.setKeyEntry(
          "client",
          privateKey(Path.of(tls.keyFile())),
          password,
          certificates(Path.of(tls.certFile())).toArray(new Certificate[0]));
      keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(identity, password);
    }
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keys == null ? null : keys.getKeyManagers(), trust, new SecureRandom());
    return context;
  }

  private static List<Certificate> certificates(Path file)
      throws IOException, GeneralSecurityException {
    CertificateFactory factory = CertificateFactory.getInstance("X.509");
    List<Certificate> certificates =
        new ArrayList<>(
            factory.generateCertificates(new ByteArrayInputStream(Files.readAllBytes(file))));
    if (certificates.isEmpty()) {
      throw new GeneralSecurityException("no certificate in " + file);
    }
    return certificates;
  }

  private static PrivateKey privateKey(Path file) throws IOException, GeneralSecurityException {
    String pem = Files.readString(file, StandardCharsets.US_ASCII);
    int begin = pem.indexOf("-----BEGIN PRIVATE KEY-----");
    int end = pem.indexOf("-----END PRIVATE KEY-----");
    if (begin < 0 || end < 0) {
      throw new GeneralSecurityException(file + ": expected a PKCS#8 key (BEGIN PRIVATE KEY)");
    }
    String base64 =
        pem.substring(begin + "-----BEGIN PRIVATE KEY-----".length(), end).replaceAll("\\s", "");
    PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64));
    for (String algorithm : List.of("RSA", "EC")) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(spec);
      } catch (GeneralSecurityException tryNext) {
        // Not this algorithm.
      }
    }
    throw new GeneralSecurityException(file + ": not an RSA or EC key");
  }

  /** {@code insecure_skip_verify}: accepts any server certificate. */
  private static final class TrustAll implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
