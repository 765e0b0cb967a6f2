package dev.sluice.extension.basicauth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Vectors made with libxcrypt's crypt(3) (bcrypt, MD5-crypt), {@code openssl passwd -apr1}, and
 * SHA-1 over the password (and salt) for {@code {SHA}} and {@code {SSHA}}.
 */
class PasswordHashTest {
  private static final String LONG = "a much longer password than sixteen bytes";

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "secret|$2b$05$abcdefghijklmnopqrstuuOQiyCxlgf/oeuTqixKmWdcYUh4Hjl0a",
        "secret|$2y$05$abcdefghijklmnopqrstuuOQiyCxlgf/oeuTqixKmWdcYUh4Hjl0a",
        "secret|$2a$05$abcdefghijklmnopqrstuuOQiyCxlgf/oeuTqixKmWdcYUh4Hjl0a",
        LONG + "|$2b$05$abcdefghijklmnopqrstuuZ9jsKomYa0kVjaP/n39sx.30cJzA68G",
        "|$2y$05$abcdefghijklmnopqrstuu0oImNDIy4flhldV9YqunRgBAePKmw7m",
        "secret|$apr1$saltsalt$LrttParrLPdxvgutaSXWJ0",
        "secret|$apr1$ab$jiiV6N7hIIuIoJbc1hxOE/",
        LONG + "|$apr1$saltsalt$4YdsMdvaQmZ0TvJbACAEe0",
        LONG + "|$apr1$ab$ZgbyBttfAvWjwKDroS41O1",
        "secret|$1$saltsalt$9xy1btjgzLYfb7hivXtC//",
        LONG + "|$1$saltsalt$kL1Bms5vqNqrS8fEEnfCW1",
        "|$1$saltsalt$5Jhcit4zN9UlGiA0txPkO0",
        "secret|{SHA}5en6G6MezRroT3XKqkdPOmY/BfQ=",
        LONG + "|{SHA}xRT7U+CwCDvHZkLItnadw/0ss/k=",
        "secret|{SSHA}+rvziNkZ1S+q3I9Y4L7TlBR47kZOYUNsMTIzNA==",
        LONG + "|{SSHA}nt7rLhjGt+u4tuYTmoELeIc2iqpOYUNsMTIzNA==",
        "secret|secret",
      })
  void matchesThePasswordItWasMadeFromAndNoOther(String password, String hash) throws Exception {
    String plain = password == null ? "" : password;
    PasswordHash parsed = PasswordHash.parse(hash);

    assertThat(parsed.matches(plain)).as(hash).isTrue();
    assertThat(parsed.matches(plain + "x")).as(hash).isFalse();
    assertThat(parsed.matches("Secret")).as(hash).isFalse();
    assertThat(parsed.toString()).doesNotContain(hash);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "$5$saltsalt$0IyaXrmV7.sGNS6tirgqHLqX/G.FBvgkYA.lpPdS5sA",
        "$6$saltsalt$TVLlQcbpFVof5W3Yz4DTP6gRstiNuHwwTt6GLc1E5n0U0aDehy0S5knV8wiOQSpT0Y77v",
        "{MD5}Xr4ilOzQ4PCOq3aQ0qbuaQ==",
        "$2b$05$tooShort",
        "$2b$99$abcdefghijklmnopqrstuuOQiyCxlgf/oeuTqixKmWdcYUh4Hjl0a",
        "$apr1$saltsalt$short",
        "$apr1$muchtoolongsalt$LrttParrLPdxvgutaSXWJ0",
        "{SHA}not base64!",
        "{SHA}c2hvcnQ=",
        "{SSHA}5en6G6MezRroT3XKqkdPOmY/BfQ=",
      })
  void refusesSchemesItCannotCheckWithoutEchoingTheHash(String hash) {
    assertThatThrownBy(() -> PasswordHash.parse(hash))
        .isInstanceOf(PasswordHash.UnsupportedException.class)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(hash));
  }

  @ParameterizedTest
  @ValueSource(strings = {"$5$", "$6$", "{MD5}"})
  void namesTheSchemeItDoesNotSupport(String scheme) {
    assertThatThrownBy(() -> PasswordHash.parse(scheme + "abc$def"))
        .hasMessageContaining(scheme)
        .hasMessageContaining("bcrypt");
  }
}
