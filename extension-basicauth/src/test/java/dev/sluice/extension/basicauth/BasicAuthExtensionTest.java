package dev.sluice.extension.basicauth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.component.AuthOutcome;
import dev.sluice.component.AuthSide;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.RequestHeaders;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.security.crypto.bcrypt.BCrypt;

class BasicAuthExtensionTest {
  private static final String BCRYPT_SECRET =
      "$2y$05$abcdefghijklmnopqrstuuOQiyCxlgf/oeuTqixKmWdcYUh4Hjl0a";
  private static final String PLAIN_PASSWORD = "pl41n-pa55word";

  @TempDir Path dir;

  private static RequestHeaders authorization(String value) {
    return name -> name.equalsIgnoreCase("authorization") ? value : null;
  }

  private static RequestHeaders basic(String user, String password) {
    return authorization(
        "Basic "
            + Base64.getEncoder()
                .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8)));
  }

  private static BasicAuthExtension server(String file, String inline) throws IOException {
    BasicAuthExtension auth =
        new BasicAuthExtension(
            new BasicAuthConfig(new BasicAuthConfig.Htpasswd(file, inline), null));
    auth.start();
    return auth;
  }

  @Test
  void acceptsUsersFromTheFileAndInline() throws IOException {
    Path file = dir.resolve("htpasswd");
    Files.writeString(
        file, "# agents\nalice:" + BCRYPT_SECRET + "\n\nbob:{SHA}5en6G6MezRroT3XKqkdPOmY/BfQ=\n");
    BasicAuthExtension auth = server(file.toString(), "carol:" + PLAIN_PASSWORD + "\n");

    assertThat(auth.authenticate(basic("alice", "secret"))).isTrue();
    assertThat(auth.authenticate(basic("bob", "secret"))).isTrue();
    assertThat(auth.authenticate(basic("carol", PLAIN_PASSWORD))).isTrue();
    assertThat(auth.challenge()).startsWith("Basic realm=");
  }

  @Test
  void refusesWrongPasswordsUnknownUsersAndMalformedHeaders() throws IOException {
    BasicAuthExtension auth = server("", "alice:" + BCRYPT_SECRET);

    assertThat(auth.authenticate(basic("alice", "wrong"))).isFalse();
    assertThat(auth.authenticate(basic("mallory", "secret"))).isFalse();
    assertThat(auth.authenticate(basic("alice", ""))).isFalse();
    assertThat(auth.authenticate(name -> null)).isFalse();
    assertThat(auth.authenticate(authorization("Basic"))).isFalse();
    assertThat(auth.authenticate(authorization("Basic !!notbase64!!"))).isFalse();
    assertThat(
            auth.authenticate(
                authorization(
                    "Basic " + Base64.getEncoder().encodeToString("no-colon".getBytes()))))
        .isFalse();
    assertThat(auth.authenticate(authorization("Bearer secret"))).isFalse();
  }

  @Test
  void acceptsTheSchemeInAnyCase() throws IOException {
    BasicAuthExtension auth = server("", "alice:secret");
    String encoded = Base64.getEncoder().encodeToString("alice:secret".getBytes());

    assertThat(auth.authenticate(authorization("basic " + encoded))).isTrue();
    assertThat(auth.authenticate(authorization("BASIC " + encoded))).isTrue();
  }

  @Test
  void aRememberedBcryptSuccessStillRefusesAnotherPassword() throws IOException {
    BasicAuthExtension auth = server("", "alice:" + BCRYPT_SECRET);

    assertThat(auth.authenticate(basic("alice", "secret"))).isTrue();
    assertThat(auth.authenticate(basic("alice", "secret"))).isTrue();
    assertThat(auth.authenticate(basic("alice", "secret2"))).isFalse();
    assertThat(auth.authenticate(basic("alice", "secret"))).isTrue();
  }

  @Test
  void aRepeatedWrongPasswordOrUnknownUserIsRefusedWithoutASecondSlowCheck() throws IOException {
    BasicAuthExtension auth = server("", "alice:" + BCRYPT_SECRET);

    assertThat(auth.check(basic("alice", "wrong"))).isEqualTo(AuthOutcome.REFUSED);
    assertThat(auth.check(basic("mallory", "secret"))).isEqualTo(AuthOutcome.REFUSED);
    assertThat(auth.budget().checks()).isEqualTo(2);

    for (int i = 0; i < 3; i++) {
      assertThat(auth.check(basic("alice", "wrong"))).isEqualTo(AuthOutcome.REFUSED);
      assertThat(auth.check(basic("mallory", "secret"))).isEqualTo(AuthOutcome.REFUSED);
    }
    assertThat(auth.budget().checks()).isEqualTo(2);

    // The memory is of user and password together: the right one is not refused by it.
    assertThat(auth.check(basic("alice", "secret"))).isEqualTo(AuthOutcome.ACCEPTED);
    assertThat(auth.check(basic("mallory", "wrong"))).isEqualTo(AuthOutcome.REFUSED);
    assertThat(auth.budget().checks()).isEqualTo(4);
  }

  @Test
  void aSpentBudgetDefersNewCredentialsButNotRememberedOnes() throws IOException {
    long stepNanos = TimeUnit.MILLISECONDS.toNanos(50);
    AtomicLong now = new AtomicLong();
    AtomicLong step = new AtomicLong(stepNanos);
    // Each reading of the clock is 50 ms later: every slow check costs 50 ms of a 100 ms budget.
    SlowCheckBudget budget =
        new SlowCheckBudget(0.10, TimeUnit.SECONDS.toNanos(1), () -> now.addAndGet(step.get()));
    String bob = BCrypt.hashpw("bobs-secret", BCrypt.gensalt(4));
    BasicAuthExtension auth =
        new BasicAuthExtension(
            new BasicAuthConfig(
                new BasicAuthConfig.Htpasswd("", "alice:" + BCRYPT_SECRET + "\nbob:" + bob), null),
            budget);
    auth.start();
    assertThat(auth.check(basic("alice", "secret"))).isEqualTo(AuthOutcome.ACCEPTED);
    assertThat(auth.check(basic("alice", "wrong-0"))).isEqualTo(AuthOutcome.REFUSED);

    int wrong = 1;
    AuthOutcome outcome;
    do {
      outcome = auth.check(basic("alice", "wrong-" + wrong++));
    } while (outcome == AuthOutcome.REFUSED && wrong < 100);

    assertThat(outcome).isEqualTo(AuthOutcome.TRY_LATER);
    assertThat(budget.checks()).isLessThanOrEqualTo(4);
    assertThat(auth.check(basic("bob", "bobs-secret"))).isEqualTo(AuthOutcome.TRY_LATER);
    assertThat(auth.check(basic("nobody", "x"))).isEqualTo(AuthOutcome.TRY_LATER);
    assertThat(auth.check(basic("alice", "secret"))).isEqualTo(AuthOutcome.ACCEPTED);
    assertThat(auth.check(basic("alice", "wrong-0"))).isEqualTo(AuthOutcome.REFUSED);
    assertThat(auth.authenticate(basic("bob", "bobs-secret"))).isFalse();

    step.set(0);
    now.addAndGet(TimeUnit.SECONDS.toNanos(2));
    step.set(stepNanos);
    assertThat(auth.check(basic("bob", "bobs-secret"))).isEqualTo(AuthOutcome.ACCEPTED);
  }

  @Test
  void aClientSendsItsCredentialsAsBasic() {
    BasicAuthExtension auth =
        new BasicAuthExtension(
            new BasicAuthConfig(null, new BasicAuthConfig.ClientAuth("agent", "p@ss:word")));

    assertThat(auth.requestHeaders())
        .isEqualTo(
            Map.of(
                "authorization",
                "Basic " + Base64.getEncoder().encodeToString("agent:p@ss:word".getBytes())));
  }

  @Test
  void theSideFollowsTheSections() {
    assertThat(new BasicAuthConfig(BasicAuthConfig.Htpasswd.DEFAULT, null).sides())
        .containsExactly(AuthSide.SERVER);
    assertThat(new BasicAuthConfig(null, BasicAuthConfig.ClientAuth.DEFAULT).sides())
        .containsExactly(AuthSide.CLIENT);
  }

  @Test
  void validationLocatesBadLinesWithoutTheirContent() throws IOException {
    Path file = dir.resolve("htpasswd");
    Files.writeString(
        file,
        "alice:$y$j9T$saltsaltsalt$TVLlQcbpFVof5W3Yz4DTP6gRstiNuHwwTt6GLc1E5n0U0aDehy0S5knV8\n"
            + "no colon here "
            + PLAIN_PASSWORD
            + "\n");
    ConfigProblems problems = new ConfigProblems();
    new BasicAuthConfig(
            new BasicAuthConfig.Htpasswd(
                file.toString(), "bob:" + PLAIN_PASSWORD + "\nbob:" + PLAIN_PASSWORD + "2"),
            null)
        .validate(problems);

    assertThat(problems.all())
        .extracting(p -> p.path() + " " + p.message())
        .containsExactly(
            "htpasswd.file line 1: the hash of user \"alice\" uses the hash scheme $y$, which is"
                + " not supported: use bcrypt (htpasswd -B)",
            "htpasswd.file line 2: expected user:hash",
            "htpasswd.inline line 2: user \"bob\" is listed twice");
    assertThat(problems.all().toString()).doesNotContain(PLAIN_PASSWORD).doesNotContain("TVLl");
  }

  @Test
  void anHtpasswdFileOverTheLimitIsRefusedUnread() throws IOException {
    Path big = dir.resolve("htpasswd");
    Files.write(big, new byte[(int) HtpasswdUsers.MAX_FILE_BYTES + 1]);
    ConfigProblems problems = new ConfigProblems();
    new BasicAuthConfig(new BasicAuthConfig.Htpasswd(big.toString(), ""), null).validate(problems);

    assertThat(problems.all())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.path()).isEqualTo("htpasswd.file");
              assertThat(p.message()).contains("larger than " + HtpasswdUsers.MAX_FILE_BYTES);
            });
  }

  @Test
  void validationWantsOneSideAndAUsername() {
    ConfigProblems neither = new ConfigProblems();
    new BasicAuthConfig(null, null).validate(neither);
    ConfigProblems both = new ConfigProblems();
    new BasicAuthConfig(
            new BasicAuthConfig.Htpasswd("", "a:b"), new BasicAuthConfig.ClientAuth("", "x"))
        .validate(both);

    assertThat(neither.all()).hasSize(1);
    assertThat(both.all())
        .extracting(ConfigProblems.Problem::path)
        .containsExactlyInAnyOrder("", "client_auth.username");
  }

  @Test
  void failsToStartWhenItsFileIsGone() throws IOException {
    Path file = dir.resolve("htpasswd");
    BasicAuthExtension auth =
        new BasicAuthExtension(
            new BasicAuthConfig(new BasicAuthConfig.Htpasswd(file.toString(), ""), null));

    assertThatThrownBy(auth::start)
        .isInstanceOf(IOException.class)
        .hasMessageContaining("no such file");
  }

  @Test
  void printsItsConfigurationWithSecretsRedacted() {
    BasicAuthConfig config =
        new BasicAuthConfig(
            new BasicAuthConfig.Htpasswd("", "bob:" + PLAIN_PASSWORD),
            new BasicAuthConfig.ClientAuth("agent", PLAIN_PASSWORD));

    assertThat(config.toString()).doesNotContain(PLAIN_PASSWORD).contains("agent");
  }
}
