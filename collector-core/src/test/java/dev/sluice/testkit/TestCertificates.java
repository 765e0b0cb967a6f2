package dev.sluice.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A small PKI for TLS tests, made with nothing but the JDK: its own {@code keytool} creates a CA, a
 * server certificate for {@code localhost} and {@code 127.0.0.1} (subject alternative names) and a
 * client certificate, both signed by the CA, and a self-signed client certificate that no CA
 * vouches for; this class writes them as the PEM files a {@code tls} section names (certificates as
 * {@code CERTIFICATE}, private keys unencrypted PKCS#8 as {@code PRIVATE KEY}).
 *
 * <p>The client key is RSA (2048 bits) and the others EC (P-256), so both key types go through the
 * PEM readers. Generating takes a few seconds (eight {@code keytool} runs, in three parallel
 * rounds): test classes share one set through {@link #shared()}.
 *
 * @param caCert the CA's certificate: a {@code ca_file} or {@code client_ca_file}
 * @param serverCert the server's certificate followed by the CA's
 * @param serverKey the server's private key
 * @param clientCert the client's certificate, signed by the CA
 * @param clientKey the client's private key
 * @param strangerCert a self-signed client certificate, which the CA did not sign
 * @param strangerKey its private key
 */
public record TestCertificates(
    Path caCert,
    Path serverCert,
    Path serverKey,
    Path clientCert,
    Path clientKey,
    Path strangerCert,
    Path strangerKey) {
  private static final String PASSWORD = "changeit";
  private static final String VALIDITY_DAYS = "2";
  private static TestCertificates shared;

  /**
   * One set for the whole test JVM, made on first use in a temporary directory that is deleted when
   * the JVM exits: what test classes should use, since making a set costs seconds of CPU.
   */
  public static synchronized TestCertificates shared() {
    if (shared == null) {
      try {
        Path dir = Files.createTempDirectory("sluice-test-pki");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteQuietly(dir)));
        shared = generate(dir);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return shared;
  }

  private static void deleteQuietly(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
    } catch (IOException e) {
      // A temporary directory: the system cleans it eventually.
    }
  }

  /** Creates the CA and the certificates in {@code dir} (which should be empty). */
  public static TestCertificates generate(Path dir) {
    try {
      return create(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static TestCertificates create(Path dir)
      throws IOException, GeneralSecurityException, InterruptedException {
    Path ca = dir.resolve("ca.p12");
    Path server = dir.resolve("server.p12");
    Path client = dir.resolve("client.p12");
    Path stranger = dir.resolve("stranger.p12");
    run(
        dir,
        List.of(
            genKeyPair(ca, "EC", "CN=Sluice Test CA", "-ext", "bc:c", "-ext", "ku:c=keyCertSign"),
            genKeyPair(server, "EC", "CN=localhost"),
            genKeyPair(client, "RSA", "CN=sluice-test-client"),
            genKeyPair(stranger, "EC", "CN=sluice-test-stranger")));
    run(
        dir,
        List.of(
            keytool(server, "-certreq", "-file", dir.resolve("server.csr").toString()),
            keytool(client, "-certreq", "-file", dir.resolve("client.csr").toString())));
    run(
        dir,
        List.of(
            keytool(
                ca,
                "-gencert",
                "-infile",
                dir.resolve("server.csr").toString(),
                "-outfile",
                dir.resolve("server.der").toString(),
                "-validity",
                VALIDITY_DAYS,
                "-ext",
                "SAN=dns:localhost,ip:127.0.0.1",
                "-ext",
                "eku=serverAuth"),
            keytool(
                ca,
                "-gencert",
                "-infile",
                dir.resolve("client.csr").toString(),
                "-outfile",
                dir.resolve("client.der").toString(),
                "-validity",
                VALIDITY_DAYS,
                "-ext",
                "eku=clientAuth")));

    Certificate caCertificate = load(ca).getCertificate("key");
    Certificate serverCertificate = certificate(dir.resolve("server.der"));
    Certificate clientCertificate = certificate(dir.resolve("client.der"));
    KeyStore strangerStore = load(stranger);
    return new TestCertificates(
        writePem(dir.resolve("ca.pem"), List.of(caCertificate)),
        writePem(dir.resolve("server.pem"), List.of(serverCertificate, caCertificate)),
        writePem(dir.resolve("server-key.pem"), privateKey(load(server))),
        writePem(dir.resolve("client.pem"), List.of(clientCertificate, caCertificate)),
        writePem(dir.resolve("client-key.pem"), privateKey(load(client))),
        writePem(dir.resolve("stranger.pem"), List.of(strangerStore.getCertificate("key"))),
        writePem(dir.resolve("stranger-key.pem"), privateKey(strangerStore)));
  }

  private static List<String> genKeyPair(
      Path keystore, String algorithm, String subject, String... extensions) {
    List<String> command =
        keytool(
            keystore,
            "-genkeypair",
            "-keyalg",
            algorithm,
            "EC".equals(algorithm) ? "-groupname" : "-keysize",
            "EC".equals(algorithm) ? "secp256r1" : "2048",
            "-dname",
            subject,
            "-validity",
            VALIDITY_DAYS);
    command.addAll(List.of(extensions));
    return command;
  }

  private static List<String> keytool(Path keystore, String... arguments) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    // keytool is a short-lived JVM: start it fast.
    command.addAll(List.of("-J-XX:+UseSerialGC", "-J-XX:TieredStopAtLevel=1", "-J-Xshare:auto"));
    command.add(arguments[0]);
    command.addAll(
        List.of(
            "-keystore",
            keystore.toString(),
            "-storetype",
            "PKCS12",
            "-storepass",
            PASSWORD,
            "-keypass",
            PASSWORD,
            "-alias",
            "key",
            "-noprompt"));
    command.addAll(List.of(arguments).subList(1, arguments.length));
    return command;
  }

  /** Runs the commands side by side and waits for all of them. */
  private static void run(Path dir, List<List<String>> commands)
      throws IOException, InterruptedException {
    List<Process> processes = new ArrayList<>();
    for (List<String> command : commands) {
      processes.add(
          new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start());
    }
    for (int i = 0; i < processes.size(); i++) {
      Process process = processes.get(i);
      String output;
      try (InputStream in = process.getInputStream()) {
        output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IOException("keytool did not finish: " + commands.get(i));
      }
      if (process.exitValue() != 0) {
        throw new IOException(
            "keytool failed with " + process.exitValue() + ": " + commands.get(i) + "\n" + output);
      }
    }
  }

  private static KeyStore load(Path file) throws IOException, GeneralSecurityException {
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(file)) {
      store.load(in, PASSWORD.toCharArray());
    }
    return store;
  }

  private static Certificate certificate(Path der) throws IOException, GeneralSecurityException {
    try (InputStream in = Files.newInputStream(der)) {
      return CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  private static Key privateKey(KeyStore store) throws GeneralSecurityException {
    return store.getKey("key", PASSWORD.toCharArray());
  }

  private static Path writePem(Path file, List<Certificate> certificates)
      throws IOException, GeneralSecurityException {
    StringBuilder pem = new StringBuilder();
    for (Certificate certificate : certificates) {
      pem.append(pem("CERTIFICATE", certificate.getEncoded()));
    }
    return Files.writeString(file, pem, StandardCharsets.US_ASCII);
  }

  private static Path writePem(Path file, Key privateKey) throws IOException {
    if (!"PKCS#8".equals(privateKey.getFormat())) {
      throw new IllegalStateException("expected a PKCS#8 key, got " + privateKey.getFormat());
    }
    return Files.writeString(
        file, pem("PRIVATE KEY", privateKey.getEncoded()), StandardCharsets.US_ASCII);
  }

  private static String pem(String type, byte[] der) {
    Base64.Encoder base64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII));
    return "-----BEGIN "
        + type
        + "-----\n"
        + base64.encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }
}
