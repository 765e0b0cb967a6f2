package dev.sluice.component.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.component.TlsClientConfig;
import dev.sluice.component.TlsServerConfig;
import dev.sluice.testkit.Await;
import dev.sluice.testkit.TestCertificates;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import javax.net.ssl.X509KeyManager;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TlsLoader} and the PEM reading under it: what each kind of bad file is reported as, the
 * key formats read, the version and cipher suite mapping, and a key manager reloaded under a
 * handshake that chose its alias before the reload.
 */
class TlsLoaderTest {
  private static final Logger LOGGER = Logger.getLogger(TlsLoaderTest.class.getName());
  private static TestCertificates certs;

  @TempDir Path dir;

  @BeforeAll
  static void generateCertificates() {
    certs = TestCertificates.shared();
  }

  @Test
  void readsAPkcs1RsaKey() throws Exception {
    Path pkcs1 = pem("client-key.pem", "RSA PRIVATE KEY", pkcs1(certs.clientKey()));

    TlsMaterial tls = TlsLoader.client(client(certs.clientCert(), pkcs1), "", LOGGER);

    X509KeyManager keys = (X509KeyManager) tls.keyManagers().getKeyManagers()[0];
    String alias = keys.chooseClientAlias(new String[] {"RSA"}, null, null);
    assertThat(keys.getCertificateChain(alias)[0].getSubjectX500Principal().getName())
        .isEqualTo("CN=sluice-test-client");
  }

  @Test
  void namesTheConversionForAKeyFormatItDoesNotRead() throws Exception {
    Path sec1 = pem("key.pem", "EC PRIVATE KEY", new byte[] {1, 2, 3});

    assertThatThrownBy(() -> TlsLoader.client(client(certs.clientCert(), sec1), "", LOGGER))
        .isInstanceOf(TlsConfigException.class)
        .hasMessage(
            "key_file "
                + sec1
                + ": holds an EC PRIVATE KEY block, which Sluice does not read: convert it to an"
                + " unencrypted PKCS#8 PRIVATE KEY (openssl pkcs8 -topk8 -nocrypt)");
  }

  @Test
  void saysWhatACertificateFileHoldsInstead() {
    assertThatThrownBy(
            () -> TlsLoader.server(server(certs.serverKey(), certs.serverKey()), "", LOGGER))
        .isInstanceOf(TlsConfigException.class)
        .hasMessage(
            "cert_file " + certs.serverKey() + ": has no CERTIFICATE block, only PRIVATE KEY");
  }

  @Test
  void refusesACaFileThatIsNotPem() throws Exception {
    Path text = Files.writeString(dir.resolve("ca.pem"), "not a certificate\n");

    assertThatThrownBy(
            () ->
                TlsLoader.client(
                    new TlsClientConfig(false, text.toString(), "", "", false, ""), "", LOGGER))
        .isInstanceOf(TlsConfigException.class)
        .hasMessage("ca_file " + text + ": is not PEM: no -----BEGIN CERTIFICATE----- block");
  }

  @Test
  void refusesABlockThatIsNotBase64() throws Exception {
    Path broken =
        Files.writeString(
            dir.resolve("cert.pem"),
            "-----BEGIN CERTIFICATE-----\n%%%%\n-----END CERTIFICATE-----\n");

    assertThatThrownBy(() -> TlsLoader.server(server(broken, certs.serverKey()), "", LOGGER))
        .isInstanceOf(TlsConfigException.class)
        .hasMessage(
            "cert_file " + broken + ": is not valid PEM: its CERTIFICATE block is not base64");
  }

  @Test
  void refusesAKeyOfAnotherAlgorithmThanTheCertificate() {
    assertThatThrownBy(
            () ->
                TlsLoader.server(
                    server(certs.serverCert(), certs.clientKey()), "receivers.otlp.tls", LOGGER))
        .isInstanceOf(TlsConfigException.class)
        .hasMessage(
            "receivers.otlp.tls.key_file "
                + certs.clientKey()
                + " does not match the certificate in receivers.otlp.tls.cert_file "
                + certs.serverCert()
                + " (CN=localhost): the key is RSA, the certificate's EC");
  }

  @Test
  void aHandshakeThatChoseItsAliasBeforeAReloadStillFindsItsChain() throws Exception {
    Path cert = Files.copy(certs.serverCert(), dir.resolve("server.pem"));
    Path key = Files.copy(certs.serverKey(), dir.resolve("server-key.pem"));
    PemSource.KeyPair pair =
        new PemSource.KeyPair("cert_file", cert.toString(), "key_file", key.toString());
    pair.load();
    String before = pair.manager().chooseServerAlias("EC", null, null);

    assertThat(pair.reloadIfChanged()).isFalse();
    Files.copy(certs.strangerCert(), cert, StandardCopyOption.REPLACE_EXISTING);
    Files.copy(certs.strangerKey(), key, StandardCopyOption.REPLACE_EXISTING);
    assertThat(pair.reloadIfChanged()).isTrue();
    String after = pair.manager().chooseServerAlias("EC", null, null);

    assertThat(after).isNotEqualTo(before);
    assertThat(subject(pair.manager().getCertificateChain(before))).isEqualTo("CN=localhost");
    assertThat(pair.manager().getPrivateKey(before)).isNotNull();
    assertThat(subject(pair.manager().getCertificateChain(after)))
        .isEqualTo("CN=sluice-test-stranger");
  }

  @Test
  void aFailedReloadLogsOnceAMinuteAndAGoodOneIsLoggedUntilClosed() throws Exception {
    Path cert = Files.copy(certs.serverCert(), dir.resolve("server.pem"));
    Path key = Files.copy(certs.serverKey(), dir.resolve("server-key.pem"));
    Logger logger = Logger.getLogger("sluice.test.tls-reload");
    logger.setUseParentHandlers(false);
    List<LogRecord> records = new CopyOnWriteArrayList<>();
    Handler recorder =
        new Handler() {
          @Override
          public void publish(LogRecord record) {
            records.add(record);
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    logger.addHandler(recorder);
    TlsMaterial tls =
        TlsLoader.server(
            new TlsServerConfig(
                cert.toString(),
                key.toString(),
                "",
                "1.2",
                "",
                List.of(),
                Duration.ofMillis(20),
                false),
            "",
            logger);
    try {
      Files.writeString(key, "truncated\n");
      Await.until("the failed reload logged", () -> records.size() >= 1);
      // Many more reloads fail in this time (every 20 ms); still one line says so.
      Thread.sleep(500);
      assertThat(records)
          .singleElement()
          .satisfies(
              record -> {
                assertThat(record.getLevel()).isEqualTo(Level.WARNING);
                assertThat(record.getMessage())
                    .isEqualTo(
                        "TLS: reload failed, keeping the last good material: key_file "
                            + key
                            + ": is not PEM: no -----BEGIN PRIVATE KEY----- block");
              });

      // (Restoring the old key would change nothing: what is loaded is what is on disk again.)
      Files.copy(certs.strangerCert(), cert, StandardCopyOption.REPLACE_EXISTING);
      Files.copy(certs.strangerKey(), key, StandardCopyOption.REPLACE_EXISTING);
      Await.until("the reload logged", () -> records.size() >= 2);
      assertThat(records.get(1).getMessage())
          .isEqualTo("TLS: reloaded cert_file " + cert + " and key_file " + key);
    } finally {
      tls.close();
    }
    Files.copy(certs.serverCert(), cert, StandardCopyOption.REPLACE_EXISTING);
    Files.copy(certs.serverKey(), key, StandardCopyOption.REPLACE_EXISTING);
    Thread.sleep(200);
    assertThat(records).hasSize(2);
    logger.removeHandler(recorder);
  }

  @Test
  void mapsVersionsToTheJdksProtocolNamesNewestFirst() {
    assertThat(TlsProtocols.protocols("1.2", "")).containsExactly("TLSv1.3", "TLSv1.2");
    assertThat(TlsProtocols.protocols("", "1.2")).containsExactly("TLSv1.2");
    assertThat(TlsProtocols.protocols("1.0", "1.1")).containsExactly("TLSv1.1", "TLSv1");
  }

  @Test
  void keepsTheTls13SuitesAfterTheConfiguredOnesAndReadsGoAliases() {
    assertThat(TlsProtocols.cipherSuites(List.of())).isNull();
    assertThat(TlsProtocols.cipherSuites(List.of("TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305")))
        .containsExactly(
            "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
            "TLS_AES_128_GCM_SHA256",
            "TLS_AES_256_GCM_SHA384",
            "TLS_CHACHA20_POLY1305_SHA256");
  }

  private static String subject(X509Certificate[] chain) {
    return chain[0].getSubjectX500Principal().getName();
  }

  private static TlsClientConfig client(Path cert, Path key) {
    return new TlsClientConfig(
        false, certs.caCert().toString(), cert.toString(), key.toString(), false, "");
  }

  private static TlsServerConfig server(Path cert, Path key) {
    return new TlsServerConfig(cert.toString(), key.toString(), "");
  }

  private Path pem(String name, String type, byte[] der) throws Exception {
    String base64 = Base64.getMimeEncoder().encodeToString(der);
    return Files.writeString(
        dir.resolve(name),
        "-----BEGIN " + type + "-----\n" + base64 + "\n-----END " + type + "-----\n",
        StandardCharsets.US_ASCII);
  }

  /**
   * The PKCS#1 RSAPrivateKey inside a PKCS#8 PEM file: the contents of the OCTET STRING after the
   * version and the algorithm identifier.
   */
  private static byte[] pkcs1(Path pkcs8Pem) throws Exception {
    String pem = Files.readString(pkcs8Pem);
    String base64 =
        pem.replace("-----BEGIN PRIVATE KEY-----", "").replace("-----END PRIVATE KEY-----", "");
    byte[] der = Base64.getMimeDecoder().decode(base64.strip());
    int[] at = {0};
    header(der, at); // PrivateKeyInfo SEQUENCE
    int version = header(der, at);
    at[0] += version;
    int algorithm = header(der, at);
    at[0] += algorithm;
    int length = header(der, at); // privateKey OCTET STRING
    return Arrays.copyOfRange(der, at[0], at[0] + length);
  }

  /** Reads a DER tag and length at {@code at[0]}, leaving it at the contents; the length. */
  private static int header(byte[] der, int[] at) {
    at[0]++;
    int first = der[at[0]++] & 0xff;
    if (first < 0x80) {
      return first;
    }
    int length = 0;
    for (int i = 0; i < (first & 0x7f); i++) {
      length = (length << 8) | (der[at[0]++] & 0xff);
    }
    return length;
  }
}
