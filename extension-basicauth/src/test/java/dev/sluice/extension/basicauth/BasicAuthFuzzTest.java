package dev.sluice.extension.basicauth;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.component.AuthOutcome;
import dev.sluice.component.ConfigProblems;
import dev.sluice.testkit.AllocationBound;
import dev.sluice.testkit.FuzzerHooks;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;

/**
 * Coverage-guided fuzzing of what basicauth parses: the {@code Authorization: Basic} header a
 * client sends and the htpasswd users an operator writes. For every input only the documented
 * outcome escapes (an {@link AuthOutcome}; a user map or reported problems), the allocation stays
 * within {@link AllocationBound}, a header is accepted exactly when it carries a listed user and
 * that user's password, and every hash that parsing accepts is within the check's cost limits
 * (bcrypt cost {@value PasswordHash#MAX_BCRYPT_COST}, SHA-crypt {@value
 * ShaCrypt#MAX_ACCEPTED_ROUNDS} rounds): what is over them is refused, never run.
 *
 * <p>Regression inputs: {@code
 * src/test/resources/dev/sluice/extension/basicauth/BasicAuthFuzzTestInputs/}. Fuzzing: {@code
 * bench/fuzz.sh BasicAuthFuzzTest#header 5m}.
 */
class BasicAuthFuzzTest {
  static final String PASSWORD = "secret";

  /** One user per scheme, each with {@link #PASSWORD}. */
  static final String USERS =
      String.join(
          "\n",
          "alice:$2y$05$abcdefghijklmnopqrstuuOQiyCxlgf/oeuTqixKmWdcYUh4Hjl0a",
          "bob:{SHA}5en6G6MezRroT3XKqkdPOmY/BfQ=",
          "carol:$5$saltsalt$0IyaXrmV7.sGNS6tirgqHLqX/G.FBvgkYA.lpPdS5sA",
          "dave:$apr1$saltsalt$LrttParrLPdxvgutaSXWJ0",
          "erin:{SSHA}+rvziNkZ1S+q3I9Y4L7TlBR47kZOYUNsMTIzNA==",
          "frank:" + PASSWORD,
          "grace:$6$rounds=1200$abc$E4pU6CamqKlsS6x6SRcqV6/ekxjJHVkoK5bBOEqjFhRGJqy1SDRx94ClLwMTwfH"
              + "/TGciYPxfOp2PPzVWJ9.Jv1");

  static final Set<String> NAMES =
      Set.of("alice", "bob", "carol", "dave", "erin", "frank", "grace");

  /** What a kept user may cost beyond the input's bound: its name, hash and map entry. */
  static final long PER_USER_BYTES = 1024;

  /** The longest problem message: a line number and a shortened user name. */
  static final int MAX_PROBLEM_CHARS = 256;

  private static final BasicAuthExtension EXTENSION = extension();
  private static Path file;

  private static BasicAuthExtension extension() {
    try {
      // All of one core for the slow hashes: the fuzzer's checks are never answered TRY_LATER.
      BasicAuthExtension extension =
          new BasicAuthExtension(
              new BasicAuthConfig(new BasicAuthConfig.Htpasswd("", USERS), null),
              new SlowCheckBudget(1.0, TimeUnit.SECONDS.toNanos(10), System::nanoTime));
      extension.start();
      return extension;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @BeforeAll
  static void warmUp() throws Exception {
    file = Files.createTempFile("sluice-htpasswd-fuzz", ".txt");
    file.toFile().deleteOnExit();
    for (String name : NAMES) {
      checkHeader(basic(name + ":" + PASSWORD));
      checkHeader(basic(name + ":wrong"));
    }
    checkHeader("Basic !!");
    checkHtpasswd(false, USERS.getBytes(StandardCharsets.UTF_8));
    checkHtpasswd(true, USERS.getBytes(StandardCharsets.UTF_8));
    checkHtpasswd(false, "bad\nx:$2y$99$\n".getBytes(StandardCharsets.UTF_8));
  }

  static String basic(String credentials) {
    return "Basic "
        + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The first byte picks the form: even, the rest is the header value as it arrives (Latin-1); odd,
   * the rest is the credentials, sent base64-encoded after {@code Basic }.
   */
  @FuzzTest
  void header(byte[] input) throws Exception {
    if (input.length == 0) {
      return;
    }
    byte[] rest = Arrays.copyOfRange(input, 1, input.length);
    String value =
        (input[0] & 1) == 0
            ? new String(rest, StandardCharsets.ISO_8859_1)
            : "Basic " + Base64.getEncoder().encodeToString(rest);
    checkHeader(value);
  }

  /** The first byte picks the source: even, inline; odd, a file. */
  @FuzzTest
  void htpasswd(byte[] input) throws Exception {
    if (input.length == 0) {
      return;
    }
    checkHtpasswd((input[0] & 1) != 0, Arrays.copyOfRange(input, 1, input.length));
  }

  static void checkHeader(String value) throws Exception {
    AuthOutcome[] outcome = new AuthOutcome[1];
    AllocationBound.Outcome measured =
        AllocationBound.measure(() -> outcome[0] = EXTENSION.check(name -> header(name, value)));
    if (measured.allocatedBytes() > AllocationBound.limitFor(value.length())) {
      measured =
          FuzzerHooks.measurePaused(() -> outcome[0] = EXTENSION.check(n -> header(n, value)));
    }
    if (measured.thrown() != null) {
      throw new AssertionError("escaped the check: " + measured.thrown(), measured.thrown());
    }
    FuzzerHooks.assertWithin(measured, "basic auth check", value.length());
    boolean expected = expectedAccepted(value);
    assertThat(outcome[0])
        .as("outcome for a header that %s", expected ? "is valid" : "is not")
        .isIn(expected ? AuthOutcome.ACCEPTED : AuthOutcome.REFUSED, AuthOutcome.TRY_LATER);
  }

  private static String header(String name, String value) {
    return "authorization".equalsIgnoreCase(name) ? value : null;
  }

  /** RFC 7617, written apart from the extension: the scheme, strict base64, UTF-8, user:pass. */
  static boolean expectedAccepted(String value) {
    if (value.length() < 6 || !value.substring(0, 6).equalsIgnoreCase("Basic ")) {
      return false;
    }
    byte[] decoded;
    String credentials;
    try {
      decoded = Base64.getDecoder().decode(value.substring(6).strip());
      credentials = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(decoded)).toString();
    } catch (IllegalArgumentException | CharacterCodingException e) {
      return false;
    }
    int colon = credentials.indexOf(':');
    return colon >= 0
        && NAMES.contains(credentials.substring(0, colon))
        && credentials.substring(colon + 1).equals(PASSWORD);
  }

  static void checkHtpasswd(boolean fromFile, byte[] content) throws Exception {
    BasicAuthConfig.Htpasswd htpasswd;
    if (fromFile) {
      Files.write(file, content);
      htpasswd = new BasicAuthConfig.Htpasswd(file.toString(), "");
    } else {
      htpasswd = new BasicAuthConfig.Htpasswd("", new String(content, StandardCharsets.UTF_8));
    }
    ConfigProblems problems = new ConfigProblems();
    @SuppressWarnings("unchecked")
    Map<String, PasswordHash>[] users = new Map[1];
    AllocationBound.Call load = () -> users[0] = HtpasswdUsers.load(htpasswd, problems);
    AllocationBound.Outcome measured = AllocationBound.measure(load);
    long kept = users[0] == null ? 0 : users[0].size();
    long sizeBytes = content.length + kept * PER_USER_BYTES / AllocationBound.PER_BYTE;
    if (measured.allocatedBytes() > AllocationBound.limitFor(sizeBytes)) {
      // The first pass through a path links its string concatenations and makes its exceptions'
      // classes, once per JVM: measure again, with the fuzzer's hooks paused.
      for (int pass = 0; pass < 2; pass++) {
        ConfigProblems again = new ConfigProblems();
        measured = FuzzerHooks.measurePaused(() -> HtpasswdUsers.load(htpasswd, again));
      }
    }
    if (measured.thrown() != null) {
      throw new AssertionError("escaped the parser: " + measured.thrown(), measured.thrown());
    }
    FuzzerHooks.assertWithin(measured, "htpasswd with " + kept + " users", sizeBytes);
    for (ConfigProblems.Problem problem : problems.all()) {
      assertThat(problem.message()).hasSizeLessThanOrEqualTo(MAX_PROBLEM_CHARS);
    }
    if (users[0] == null) {
      assertThat(problems.all()).isNotEmpty();
      return;
    }
    for (PasswordHash hash : users[0].values()) {
      assertWithinCostLimits(hash);
    }
  }

  /** What a check of {@code hash} costs is within the documented limits. */
  static void assertWithinCostLimits(PasswordHash hash) {
    if (hash instanceof PasswordHash.Bcrypt bcrypt) {
      int cost = Integer.parseInt(bcrypt.hash().substring(4, 6));
      assertThat(cost).as("bcrypt cost").isBetween(4, PasswordHash.MAX_BCRYPT_COST);
    } else if (hash instanceof ShaCrypt sha) {
      assertThat(sha.rounds())
          .as("SHA-crypt rounds")
          .isLessThanOrEqualTo(ShaCrypt.MAX_ACCEPTED_ROUNDS);
    }
  }
}
