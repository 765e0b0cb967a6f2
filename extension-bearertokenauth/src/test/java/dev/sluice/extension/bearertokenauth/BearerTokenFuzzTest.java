package dev.sluice.extension.bearertokenauth;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.testkit.AllocationBound;
import dev.sluice.testkit.FuzzerHooks;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;

/**
 * Coverage-guided fuzzing of what bearertokenauth parses: the header a client sends and the token
 * file an operator writes. For every input only the documented outcome escapes (a yes or no; the
 * tokens or {@link TokenSet.UnreadableException}), the allocation stays within {@link
 * AllocationBound} (a kept token may cost {@link #PER_TOKEN_BYTES} more), a header is accepted
 * exactly when it is the scheme in any case, a space and a token (surrounding whitespace ignored),
 * and a file's tokens are its non-blank lines, stripped, each usable in a header; a refusal's
 * message names the file and never holds its content.
 *
 * <p>Regression inputs: {@code
 * src/test/resources/dev/sluice/extension/bearertokenauth/BearerTokenFuzzTestInputs/}. Fuzzing:
 * {@code bench/fuzz.sh BearerTokenFuzzTest#header 5m}.
 */
class BearerTokenFuzzTest {
  static final List<String> TOKENS = List.of("s3cr3t-t0ken", "eyJhbGciOiJIUzI1NiJ9.e30.abc");
  static final TokenSet SET = TokenSet.of(TOKENS, "Authorization", "Bearer");

  /** What a kept token may cost beyond the input's bound: its string and list slot. */
  static final long PER_TOKEN_BYTES = 256;

  /** What a refusal may say after the file's name. */
  static final java.util.regex.Pattern REFUSALS =
      java.util.regex.Pattern.compile(
          " is larger than [0-9]+ bytes: not a token file|: no such file| cannot be read: \\w+"
              + "| is not valid UTF-8| holds no token| line [0-9]+: the token "
              + java.util.regex.Pattern.quote(TokenSet.UNUSABLE));

  private static Path file;

  @BeforeAll
  static void warmUp() throws Exception {
    file = Files.createTempFile("sluice-token-fuzz", ".txt");
    file.toFile().deleteOnExit();
    checkHeader("Bearer " + TOKENS.get(0));
    checkHeader("Basic abc");
    checkFile("a\nb\n".getBytes(StandardCharsets.UTF_8));
    checkFile("a b\n".getBytes(StandardCharsets.UTF_8));
    checkFile(new byte[] {(byte) 0xff});
  }

  /** The input is the header value as it arrives (Latin-1). */
  @FuzzTest
  void header(byte[] input) throws Exception {
    checkHeader(new String(input, StandardCharsets.ISO_8859_1));
  }

  /** The input is the token file's content. */
  @FuzzTest
  void tokenFile(byte[] input) throws Exception {
    checkFile(input);
  }

  static void checkHeader(String value) {
    boolean[] accepted = new boolean[1];
    AllocationBound.Outcome measured =
        AllocationBound.measure(() -> accepted[0] = SET.accepts(value));
    if (measured.allocatedBytes() > AllocationBound.limitFor(value.length())) {
      measured = FuzzerHooks.measurePaused(() -> accepted[0] = SET.accepts(value));
    }
    if (measured.thrown() != null) {
      throw new AssertionError("escaped the check: " + measured.thrown(), measured.thrown());
    }
    FuzzerHooks.assertWithin(measured, "bearer token check", value.length());
    boolean expected =
        value.length() > 7
            && value.substring(0, 7).equalsIgnoreCase("Bearer ")
            && TOKENS.contains(value.substring(7).strip());
    assertThat(accepted[0]).as("accepted").isEqualTo(expected);
  }

  static void checkFile(byte[] content) throws Exception {
    Files.write(file, content);
    @SuppressWarnings("unchecked")
    List<String>[] tokens = new List[1];
    AllocationBound.Outcome measured =
        AllocationBound.measure(() -> tokens[0] = TokenSet.read(file));
    long kept = tokens[0] == null ? 0 : tokens[0].size();
    long sizeBytes = content.length + kept * PER_TOKEN_BYTES / AllocationBound.PER_BYTE;
    if (measured.allocatedBytes() > AllocationBound.limitFor(sizeBytes)) {
      measured = FuzzerHooks.measurePaused(() -> TokenSet.read(file));
    }
    FuzzerHooks.assertWithin(measured, "token file with " + kept + " tokens", sizeBytes);
    if (measured.thrown() != null) {
      if (!(measured.thrown() instanceof TokenSet.UnreadableException)) {
        throw new AssertionError("escaped the reader: " + measured.thrown(), measured.thrown());
      }
      String message = measured.thrown().getMessage();
      assertThat(message).startsWith(file.toString());
      // One of the reader's own sentences after the file's name: nothing of the content.
      assertThat(message.substring(file.toString().length())).matches(REFUSALS);
      return;
    }
    assertThat(tokens[0]).isEqualTo(reference(content));
    assertThat(tokens[0]).allMatch(TokenSet::isUsable);
  }

  /** The file's non-blank lines, stripped: written apart from the reader. */
  static List<String> reference(byte[] content) {
    List<String> lines = new ArrayList<>();
    for (String line : new String(content, StandardCharsets.UTF_8).lines().toList()) {
      if (!line.strip().isEmpty()) {
        lines.add(line.strip());
      }
    }
    return lines;
  }
}
