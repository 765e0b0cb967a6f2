package dev.sluice.component.tls;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the PEM files a {@code tls} section names, with errors that name the key, the file and what
 * is wrong: unreadable, not PEM, a block that does not decode, or a private key that does not
 * belong to the certificate.
 *
 * <p>Certificates are {@code CERTIFICATE} blocks; private keys are unencrypted PKCS#8 ({@code
 * PRIVATE KEY}: RSA, EC or EdDSA) or PKCS#1 ({@code RSA PRIVATE KEY}), as {@code openssl} writes
 * them.
 */
final class PemFiles {
  private static final Pattern BLOCK =
      Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----(.*?)-----END \\1-----", Pattern.DOTALL);

  private static final Pattern WHITESPACE = Pattern.compile("\\s+");

  /** The block types an error lists, and the characters of each: a message stays short. */
  private static final int MAX_LISTED_TYPES = 4;

  private static final int MAX_TYPE_CHARS = 40;

  /** The header by which OpenSSL's legacy encryption marks a PEM block (RFC 1421). */
  private static final String ENCRYPTED_HEADER = "Proc-Type: 4,ENCRYPTED";

  private static final List<String> KEY_ALGORITHMS = List.of("RSA", "EC", "EdDSA");

  /** The DER AlgorithmIdentifier of rsaEncryption (OID 1.2.840.113549.1.1.1, NULL parameters). */
  private static final byte[] RSA_ALGORITHM = {
    0x30,
    0x0d,
    0x06,
    0x09,
    0x2a,
    (byte) 0x86,
    0x48,
    (byte) 0x86,
    (byte) 0xf7,
    0x0d,
    0x01,
    0x01,
    0x01,
    0x05,
    0x00
  };

  private static final int DER_SEQUENCE = 0x30;
  private static final int DER_OCTET_STRING = 0x04;
  private static final byte[] DER_VERSION_0 = {0x02, 0x01, 0x00};

  private static final byte[] PROBE = "sluice key check".getBytes(StandardCharsets.US_ASCII);

  private PemFiles() {}

  /** A file's bytes, or an error naming the key and the file. */
  static byte[] read(String key, String file) throws TlsConfigException {
    try {
      return Files.readAllBytes(Path.of(file));
    } catch (NoSuchFileException e) {
      throw new TlsConfigException(key, file, "cannot read it: no such file");
    } catch (AccessDeniedException e) {
      throw new TlsConfigException(key, file, "cannot read it: permission denied");
    } catch (IOException e) {
      throw new TlsConfigException(key, file, "cannot read it: " + e);
    }
  }

  /** The certificates of a PEM file's {@code CERTIFICATE} blocks, in file order. */
  static List<X509Certificate> certificates(String key, String file, byte[] pem)
      throws TlsConfigException {
    List<X509Certificate> certificates = new ArrayList<>();
    List<String> others = new ArrayList<>();
    Matcher block = BLOCK.matcher(new String(pem, StandardCharsets.US_ASCII));
    CertificateFactory factory;
    try {
      factory = CertificateFactory.getInstance("X.509");
    } catch (CertificateException e) {
      throw new IllegalStateException("the JDK has no X.509 support", e);
    }
    while (block.find()) {
      if (!"CERTIFICATE".equals(block.group(1))) {
        others.add(block.group(1));
        continue;
      }
      byte[] der = decode(key, file, block);
      try {
        certificates.add(
            (X509Certificate) factory.generateCertificate(new ByteArrayInputStream(der)));
      } catch (CertificateException e) {
        throw new TlsConfigException(
            key,
            file,
            "certificate " + (certificates.size() + 1) + " is not a valid X.509 certificate: " + e);
      }
    }
    if (certificates.isEmpty()) {
      throw new TlsConfigException(key, file, notPem("CERTIFICATE", others));
    }
    return certificates;
  }

  /** The private key of a PEM file's first private key block. */
  static PrivateKey privateKey(String key, String file, byte[] pem) throws TlsConfigException {
    Matcher block = BLOCK.matcher(new String(pem, StandardCharsets.US_ASCII));
    List<String> others = new ArrayList<>();
    while (block.find()) {
      String type = block.group(1);
      switch (type) {
        case "PRIVATE KEY":
          return pkcs8(key, file, decode(key, file, block));
        case "RSA PRIVATE KEY":
          return pkcs8(key, file, rsaPkcs1ToPkcs8(decode(key, file, block)));
        case "EC PRIVATE KEY":
        case "ENCRYPTED PRIVATE KEY":
          throw new TlsConfigException(
              key,
              file,
              "holds an "
                  + type
                  + " block, which Sluice does not read: convert it to an unencrypted PKCS#8 "
                  + "PRIVATE KEY (openssl pkcs8 -topk8 -nocrypt)");
        default:
          others.add(type);
      }
    }
    throw new TlsConfigException(key, file, notPem("PRIVATE KEY", others));
  }

  private static String notPem(String expected, List<String> others) {
    if (others.isEmpty()) {
      return "is not PEM: no -----BEGIN " + expected + "----- block";
    }
    // Types as the file has them, so a file of many or long ones is listed in part.
    List<String> listed =
        others.stream()
            .distinct()
            .limit(MAX_LISTED_TYPES)
            .map(t -> t.length() > MAX_TYPE_CHARS ? t.substring(0, MAX_TYPE_CHARS) + "..." : t)
            .toList();
    boolean more = others.stream().distinct().count() > MAX_LISTED_TYPES;
    return "has no "
        + expected
        + " block, only "
        + String.join(", ", listed)
        + (more ? ", ..." : "");
  }

  private static byte[] decode(String key, String file, Matcher block) throws TlsConfigException {
    if (block.group(2).contains(ENCRYPTED_HEADER)) {
      throw new TlsConfigException(
          key,
          file,
          "its "
              + block.group(1)
              + " block is encrypted, which Sluice does not read: decrypt it to an unencrypted"
              + " PKCS#8 PRIVATE KEY (openssl pkcs8 -topk8 -nocrypt)");
    }
    try {
      // Strict: the MIME decoder would skip characters that are not base64 rather than refuse.
      return Base64.getDecoder().decode(WHITESPACE.matcher(block.group(2)).replaceAll(""));
    } catch (IllegalArgumentException e) {
      throw new TlsConfigException(
          key, file, "is not valid PEM: its " + block.group(1) + " block is not base64");
    }
  }

  private static PrivateKey pkcs8(String key, String file, byte[] der) throws TlsConfigException {
    PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
    for (String algorithm : KEY_ALGORITHMS) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(spec);
      } catch (GeneralSecurityException e) {
        // Not this algorithm (or not a key at all): try the next.
      }
    }
    throw new TlsConfigException(
        key, file, "its private key is not an RSA, EC or EdDSA key the JDK can read");
  }

  /** Wraps a PKCS#1 RSAPrivateKey in a PKCS#8 PrivateKeyInfo, which the JDK reads. */
  private static byte[] rsaPkcs1ToPkcs8(byte[] pkcs1) {
    ByteArrayOutputStream body = new ByteArrayOutputStream(pkcs1.length + 32);
    body.writeBytes(DER_VERSION_0);
    body.writeBytes(RSA_ALGORITHM);
    body.write(DER_OCTET_STRING);
    writeLength(body, pkcs1.length);
    body.writeBytes(pkcs1);
    ByteArrayOutputStream info = new ByteArrayOutputStream(body.size() + 8);
    info.write(DER_SEQUENCE);
    writeLength(info, body.size());
    info.writeBytes(body.toByteArray());
    return info.toByteArray();
  }

  private static void writeLength(ByteArrayOutputStream out, int length) {
    if (length < 0x80) {
      out.write(length);
      return;
    }
    int bytes = (Integer.SIZE - Integer.numberOfLeadingZeros(length) + 7) / 8;
    out.write(0x80 | bytes);
    for (int i = bytes - 1; i >= 0; i--) {
      out.write(length >>> (i * 8));
    }
  }

  /**
   * Checks that {@code privateKey} belongs to {@code certificate}: it signs a probe that the
   * certificate's public key must verify.
   */
  static void checkMatch(
      String certKey,
      String certFile,
      X509Certificate certificate,
      String keyKey,
      String keyFile,
      PrivateKey privateKey)
      throws TlsConfigException {
    String mismatch =
        keyKey
            + " "
            + keyFile
            + " does not match the certificate in "
            + certKey
            + " "
            + certFile
            + " ("
            + certificate.getSubjectX500Principal().getName()
            + ")";
    String algorithm = privateKey.getAlgorithm();
    if (!algorithm.equals(certificate.getPublicKey().getAlgorithm())) {
      throw new TlsConfigException(
          mismatch
              + ": the key is "
              + algorithm
              + ", the certificate's "
              + certificate.getPublicKey().getAlgorithm());
    }
    try {
      Signature signer = Signature.getInstance(signatureAlgorithm(algorithm));
      signer.initSign(privateKey);
      signer.update(PROBE);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(signatureAlgorithm(algorithm));
      verifier.initVerify(certificate.getPublicKey());
      verifier.update(PROBE);
      if (!verifier.verify(signature)) {
        throw new TlsConfigException(mismatch);
      }
    } catch (GeneralSecurityException e) {
      throw new TlsConfigException(mismatch + ": " + e);
    }
  }

  private static String signatureAlgorithm(String keyAlgorithm) {
    switch (keyAlgorithm) {
      case "RSA":
        return "SHA256withRSA";
      case "EC":
        return "SHA256withECDSA";
      default:
        return keyAlgorithm; // EdDSA signs with its own name.
    }
  }
}
