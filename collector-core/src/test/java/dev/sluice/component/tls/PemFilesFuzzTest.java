package dev.sluice.component.tls;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.testkit.AllocationBound;
import dev.sluice.testkit.FuzzerHooks;
import dev.sluice.testkit.TestCertificates;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;

/**
 * Coverage-guided fuzzing of the PEM reader: certificate files (chains, garbage between blocks,
 * truncated or broken base64) and private key files (PKCS#8, PKCS#1 RSA, SEC1 EC and encrypted
 * keys, which are refused by name). For every input only {@link TlsConfigException} escapes, its
 * message is bounded and holds no run of the file's base64 (no key material), and reading allocates
 * within {@link AllocationBound}.
 *
 * <p>Regression inputs: {@code
 * src/test/resources/dev/sluice/component/tls/PemFilesFuzzTestInputs/}. Fuzzing: {@code
 * bench/fuzz.sh PemFilesFuzzTest#pem 5m}.
 */
class PemFilesFuzzTest {
  static final String KEY = "key_file";
  static final String FILE = "/etc/sluice/fuzz.pem";

  /** The longest message beyond the key and the file's name. */
  static final int MAX_PROBLEM_CHARS = 512;

  /** A run of base64 this long in a message would be part of a block. */
  private static final Pattern BASE64_RUN = Pattern.compile("[A-Za-z0-9+/]{16,}");

  @BeforeAll
  static void warmUp() throws Exception {
    TestCertificates certs = TestCertificates.shared();
    check(false, Files.readAllBytes(certs.serverCert()));
    check(true, Files.readAllBytes(certs.serverKey()));
    check(true, Files.readAllBytes(certs.clientKey()));
    check(false, "x".getBytes(StandardCharsets.US_ASCII));
    check(true, "x".getBytes(StandardCharsets.US_ASCII));
  }

  /** The first byte picks what the rest is read as: even, certificates; odd, a private key. */
  @FuzzTest
  void pem(byte[] input) throws Exception {
    if (input.length == 0) {
      return;
    }
    check((input[0] & 1) != 0, Arrays.copyOfRange(input, 1, input.length));
  }

  static void check(boolean privateKey, byte[] pem) throws Exception {
    AllocationBound.Call read =
        privateKey
            ? () -> PemFiles.privateKey(KEY, FILE, pem)
            : () -> PemFiles.certificates(KEY, FILE, pem);
    AllocationBound.Outcome measured = AllocationBound.measure(read);
    if (measured.allocatedBytes() > AllocationBound.limitFor(pem.length)) {
      // The first pass through a path loads the JDK's parsers for it, once per JVM.
      for (int pass = 0; pass < 2; pass++) {
        measured = FuzzerHooks.measurePaused(read);
      }
    }
    FuzzerHooks.assertWithin(measured, privateKey ? "private key" : "certificates", pem.length);
    Exception thrown = measured.thrown();
    if (thrown == null) {
      return;
    }
    if (!(thrown instanceof TlsConfigException)) {
      throw new AssertionError("escaped the reader: " + thrown, thrown);
    }
    String message = thrown.getMessage();
    String prefix = KEY + " " + FILE + ": ";
    assertThat(message).startsWith(prefix);
    assertThat(message.length() - prefix.length())
        .as("message length: %s", message)
        .isLessThanOrEqualTo(MAX_PROBLEM_CHARS);
    String text = new String(pem, StandardCharsets.US_ASCII);
    Matcher run = BASE64_RUN.matcher(message);
    while (run.find()) {
      assertThat(text).as("the message echoes the file: %s", message).doesNotContain(run.group());
    }
  }
}
