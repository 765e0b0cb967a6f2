package dev.sluice.component.tls;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** What the PEM reader says about files it cannot use, found by {@link PemFilesFuzzTest}. */
class PemFilesTest {
  private static final String FILE = "/etc/sluice/key.pem";

  @Test
  void namesALegacyEncryptedRsaKeyAsEncrypted() {
    byte[] pem =
        ("-----BEGIN RSA PRIVATE KEY-----\n"
                + "Proc-Type: 4,ENCRYPTED\n"
                + "DEK-Info: AES-128-CBC,60E79C80E3F30FB14C64432318816B51\n\n"
                + "MIICXAIBAAKBgQC7\n"
                + "-----END RSA PRIVATE KEY-----\n")
            .getBytes(StandardCharsets.US_ASCII);

    assertThatThrownBy(() -> PemFiles.privateKey("key_file", FILE, pem))
        .isInstanceOf(TlsConfigException.class)
        .hasMessage(
            "key_file "
                + FILE
                + ": its RSA PRIVATE KEY block is encrypted, which Sluice does not read: decrypt it"
                + " to an unencrypted PKCS#8 PRIVATE KEY (openssl pkcs8 -topk8 -nocrypt)");
  }

  @Test
  void listsAFewOtherBlockTypesEachShortened() {
    String longType = "A".repeat(100);
    StringBuilder text = new StringBuilder();
    for (String type : new String[] {longType, "B", "C", "D", "E", "B"}) {
      text.append("-----BEGIN ")
          .append(type)
          .append("-----\n-----END ")
          .append(type)
          .append("-----\n");
    }
    byte[] pem = text.toString().getBytes(StandardCharsets.US_ASCII);

    assertThatThrownBy(() -> PemFiles.certificates("cert_file", FILE, pem))
        .isInstanceOf(TlsConfigException.class)
        .hasMessage(
            "cert_file "
                + FILE
                + ": has no CERTIFICATE block, only "
                + "A".repeat(40)
                + "..., B, C, D, ...");
  }
}
