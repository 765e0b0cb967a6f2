package dev.sluice.extension.bearertokenauth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.RequestHeaders;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.testkit.Await;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BearerTokenAuthExtensionTest {
  private static final String TOKEN = "s3cr3t-token-value";
  private static final long POLL_MILLIS = 20;

  @TempDir Path dir;

  private static ComponentSettings settings() {
    return new ComponentSettings(
        new ComponentId("bearertokenauth", ""), ComponentKind.EXTENSION, new MetricRegistry());
  }

  private static BearerTokenAuthConfig config(String header, String scheme, String token) {
    return new BearerTokenAuthConfig(header, scheme, token, List.of(), "");
  }

  private static RequestHeaders header(String name, String value) {
    return n -> n.equalsIgnoreCase(name) ? value : null;
  }

  private static BearerTokenAuthExtension started(BearerTokenAuthConfig config) throws Exception {
    BearerTokenAuthExtension extension =
        new BearerTokenAuthExtension(settings(), config, POLL_MILLIS);
    extension.start();
    return extension;
  }

  @Test
  void acceptsTheTokenAfterTheSchemeInAnyCase() throws Exception {
    BearerTokenAuthExtension auth = started(BearerTokenAuthConfig.DEFAULT.withToken(TOKEN));

    assertThat(auth.authenticate(header("Authorization", "Bearer " + TOKEN))).isTrue();
    assertThat(auth.authenticate(header("authorization", "bearer " + TOKEN))).isTrue();
    assertThat(auth.challenge()).isEqualTo("Bearer realm=\"sluice\"");
  }

  @Test
  void refusesMissingWrongTruncatedOrSchemelessTokens() throws Exception {
    BearerTokenAuthExtension auth = started(BearerTokenAuthConfig.DEFAULT.withToken(TOKEN));

    assertThat(auth.authenticate(n -> null)).isFalse();
    assertThat(auth.authenticate(header("Authorization", "Bearer wrong"))).isFalse();
    assertThat(auth.authenticate(header("Authorization", "Bearer " + TOKEN + "x"))).isFalse();
    assertThat(auth.authenticate(header("Authorization", "Bearer " + TOKEN.substring(1))))
        .isFalse();
    assertThat(auth.authenticate(header("Authorization", TOKEN))).isFalse();
    assertThat(auth.authenticate(header("Authorization", "Basic " + TOKEN))).isFalse();
    assertThat(auth.authenticate(header("Authorization", "Bearer"))).isFalse();
    assertThat(auth.authenticate(header("X-Token", "Bearer " + TOKEN))).isFalse();
  }

  @Test
  void readsACustomHeaderWithoutScheme() throws Exception {
    BearerTokenAuthExtension auth = started(config("X-Api-Key", "", TOKEN));

    assertThat(auth.authenticate(header("x-api-key", TOKEN))).isTrue();
    assertThat(auth.authenticate(header("x-api-key", "Bearer " + TOKEN))).isFalse();
    assertThat(auth.authenticate(header("Authorization", TOKEN))).isFalse();
    assertThat(auth.requestHeaders()).isEqualTo(Map.of("x-api-key", TOKEN));
  }

  @Test
  void acceptsAnyOfTheTokensAndSendsTheFirst() throws Exception {
    BearerTokenAuthExtension auth =
        started(new BearerTokenAuthConfig("Authorization", "Bearer", "", List.of("a1", "b2"), ""));

    assertThat(auth.authenticate(header("Authorization", "Bearer a1"))).isTrue();
    assertThat(auth.authenticate(header("Authorization", "Bearer b2"))).isTrue();
    assertThat(auth.authenticate(header("Authorization", "Bearer c3"))).isFalse();
    assertThat(auth.requestHeaders()).isEqualTo(Map.of("authorization", "Bearer a1"));
  }

  @Test
  void picksUpAChangedTokenFileAndRefusesTheOldToken() throws Exception {
    Path file = dir.resolve("token");
    Files.writeString(file, "first-token\n");
    BearerTokenAuthExtension auth = started(fileConfig(file));
    try {
      assertThat(auth.authenticate(header("Authorization", "Bearer first-token"))).isTrue();
      assertThat(auth.requestHeaders()).containsEntry("authorization", "Bearer first-token");

      rewrite(file, "second-token\n");

      Await.until(
          "the second token accepted",
          () -> auth.authenticate(header("Authorization", "Bearer second-token")));
      assertThat(auth.authenticate(header("Authorization", "Bearer first-token"))).isFalse();
      assertThat(auth.requestHeaders()).containsEntry("authorization", "Bearer second-token");
    } finally {
      auth.shutdown(0);
    }
  }

  @Test
  void keepsTheLastGoodTokenWhenTheFileGoesAwayOrEmpty() throws Exception {
    Path file = dir.resolve("token");
    Files.writeString(file, "good-token");
    BearerTokenAuthExtension auth = started(fileConfig(file));
    try {
      rewrite(file, "  \n");
      Thread.sleep(POLL_MILLIS * 10);
      assertThat(auth.authenticate(header("Authorization", "Bearer good-token"))).isTrue();

      Files.delete(file);
      Thread.sleep(POLL_MILLIS * 10);
      assertThat(auth.authenticate(header("Authorization", "Bearer good-token"))).isTrue();

      // And it recovers once the file is back.
      rewrite(file, "next-token");
      Await.until(
          "the next token accepted",
          () -> auth.authenticate(header("Authorization", "Bearer next-token")));
    } finally {
      auth.shutdown(0);
    }
  }

  @Test
  void failsToStartWithoutItsTokenFileAndSaysWhichFile() {
    Path missing = dir.resolve("missing-token");
    BearerTokenAuthExtension auth =
        new BearerTokenAuthExtension(settings(), fileConfig(missing), POLL_MILLIS);

    assertThatThrownBy(auth::start)
        .isInstanceOf(IOException.class)
        .hasMessageContaining(missing.toString());
  }

  @Test
  void validationNamesTheProblemWithoutTheToken() throws IOException {
    Path file = dir.resolve("bad-token");
    Files.writeString(file, "has " + TOKEN + " a space\n");
    ConfigProblems problems = new ConfigProblems();
    new BearerTokenAuthConfig("Authorization", "Bearer", "two " + TOKEN, List.of(), file.toString())
        .validate(problems);

    assertThat(problems.all())
        .extracting(ConfigProblems.Problem::path)
        .containsExactlyInAnyOrder("", "token", "filename");
    assertThat(problems.all().toString()).doesNotContain(TOKEN);
  }

  @Test
  void aMissingTokenFileIsAConfigurationProblem() {
    Path missing = dir.resolve("missing-token");
    ConfigProblems problems = new ConfigProblems();
    fileConfig(missing).validate(problems);

    assertThat(problems.all())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.path()).isEqualTo("filename");
              assertThat(p.message()).isEqualTo(missing + ": no such file");
            });
  }

  @Test
  void aTokenFileOverTheLimitIsRefusedUnread() throws IOException {
    Path big = dir.resolve("big-token");
    Files.write(big, new byte[TokenSet.MAX_FILE_BYTES + 1]);
    Path limit = dir.resolve("limit-token");
    Files.writeString(limit, "x".repeat(TokenSet.MAX_FILE_BYTES));
    ConfigProblems problems = new ConfigProblems();
    fileConfig(big).validate(problems);
    ConfigProblems atLimit = new ConfigProblems();
    fileConfig(limit).validate(atLimit);

    assertThat(problems.all())
        .singleElement()
        .satisfies(p -> assertThat(p.message()).contains("larger than 65536 bytes"));
    assertThat(atLimit.all()).isEmpty();
  }

  @Test
  void needsExactlyOneSourceOfTokens() {
    ConfigProblems none = new ConfigProblems();
    BearerTokenAuthConfig.DEFAULT.validate(none);
    ConfigProblems two = new ConfigProblems();
    new BearerTokenAuthConfig("Authorization", "Bearer", TOKEN, List.of("other"), "").validate(two);

    assertThat(none.all()).singleElement().satisfies(p -> assertThat(p.message()).contains("one"));
    assertThat(two.all()).singleElement().satisfies(p -> assertThat(p.message()).contains("only"));
  }

  @Test
  void printsItsConfigurationWithTheTokensRedacted() {
    BearerTokenAuthConfig config =
        new BearerTokenAuthConfig("Authorization", "Bearer", TOKEN, List.of(TOKEN + "2"), "");

    assertThat(config.toString()).doesNotContain(TOKEN).contains("[REDACTED]");
  }

  private static BearerTokenAuthConfig fileConfig(Path file) {
    return new BearerTokenAuthConfig("Authorization", "Bearer", "", List.of(), file.toString());
  }

  /** Writes the file and moves its time on, so that the change shows even on a coarse clock. */
  private static void rewrite(Path file, String content) throws IOException {
    FileTime before =
        Files.exists(file) ? Files.getLastModifiedTime(file) : FileTime.from(Instant.EPOCH);
    Files.write(file, content.getBytes(StandardCharsets.UTF_8));
    Files.setLastModifiedTime(file, FileTime.from(before.toInstant().plusSeconds(2)));
  }
}
