package dev.sluice.extension.basicauth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Vectors made with libxcrypt's crypt(3) (bcrypt, MD5-crypt, SHA-crypt), {@code openssl passwd
 * -apr1}, and SHA-1 over the password (and salt) for {@code {SHA}} and {@code {SSHA}}.
 */
class PasswordHashTest {
  private static final String LONG = "a much longer password than sixteen bytes";
  private static final String VERY_LONG =
      "a much longer password than sixteen bytes, and even longer than sixty-four bytes in total"
          + " length";

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
        "secret|$5$saltsalt$0IyaXrmV7.sGNS6tirgqHLqX/G.FBvgkYA.lpPdS5sA",
        "secret|$5$rounds=1000$saltsaltsaltsalt$wYd0WDLeF2azwHAX40d1O2vcn89WFSxXFzmX1Ppv5U0",
        "secret|$5$toolongsaltstrin$37tCxOq5xshRncIKBOJ8buhNCuZ0PBFBUwb3XaEPn08",
        "|$5$saltsalt$09agN5RZ2meWdEdnEusqsq5G7RwwghB8jCKoWWADxW/",
        VERY_LONG + "|$5$saltsalt$Y28y4rdrcymvnBCE9xHckwjQg/uUUa1dKtr.SD6IxR4",
        VERY_LONG + "|$5$rounds=1000$saltsaltsaltsalt$jn5UHQTTqV2SZBeh2DnhzDva9yP66RamPTETn39Rtd1",
        "secret|$6$saltsalt$TVLlQcbpFVof5W3Yz4DTP6gRstiNuHwwTt6GLc1E5n0U0aDehy0S5knV8wiOQSpT0Y77vwPZN.Pq.H91p5hVO1",
        "secret|$6$rounds=1200$abc$E4pU6CamqKlsS6x6SRcqV6/ekxjJHVkoK5bBOEqjFhRGJqy1SDRx94ClLwMTwfH/TGciYPxfOp2PPzVWJ9.Jv1",
        "|$6$saltsalt$qkTgsCrWMTAS9gBGcf9W60sFfH.hU0oTCAOJjhbz5tSp/sU3/xXZK4OFwCtq8lIIdpJ6CatVdOTSHKp97TPkt/",
        VERY_LONG
            + "|$6$saltsalt$GR4yYSUVpGxy7b9Nwoj01LXvCiL9AIRDU5I08j1jboMhUYy/VxyYCRxIvo7NLnvAy3bksQMTVwjv9cKUQbIcX.",
        VERY_LONG
            + "|$6$rounds=1200$abc$usEnlx6D/qBltagATuEue2ve4zVHkPcSbEiBIAFPv1IMSyLJ60/.TpVOyzB.Pl.kSvkYFJGeqi6TFXjeFe4oG1",
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
        "$y$j9T$saltsaltsalt$TVLlQcbpFVof5W3Yz4DTP6gRstiNuHwwTt6GLc1E5n0",
        "$6$saltsalt$TVLlQcbpFVof5W3Yz4DTP6gRstiNuHwwTt6GLc1E5n0U0aDehy0S5knV8wiOQSpT0Y77v",
        "$5$saltsaltsaltsaltsalt$0IyaXrmV7.sGNS6tirgqHLqX/G.FBvgkYA.lpPdS5sA",
        "{MD5}Xr4ilOzQ4PCOq3aQ0qbuaQ==",
        "$2b$05$tooShort",
        "$2b$99$abcdefghijklmnopqrstuuOQiyCxlgf/oeuTqixKmWdcYUh4Hjl0a",
        "$2b$13$abcdefghijklmnopqrstuuOQiyCxlgf/oeuTqixKmWdcYUh4Hjl0a",
        "$2b$31$abcdefghijklmnopqrstuuOQiyCxlgf/oeuTqixKmWdcYUh4Hjl0a",
        "$6$rounds=200001$abc$E4pU6CamqKlsS6x6SRcqV6/ekxjJHVkoK5bBOEqjFhRGJqy1SDRx94ClLwMTwfH/TGciYPxfOp2PPzVWJ9.Jv1",
        "$5$rounds=999999999$saltsaltsaltsalt$wYd0WDLeF2azwHAX40d1O2vcn89WFSxXFzmX1Ppv5U0",
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
  @ValueSource(strings = {"$y$", "$7$", "{MD5}"})
  void namesTheSchemeItDoesNotSupport(String scheme) {
    assertThatThrownBy(() -> PasswordHash.parse(scheme + "abc$def"))
        .hasMessageContaining(scheme)
        .hasMessageContaining("bcrypt");
  }

  @org.junit.jupiter.api.Test
  void doesNotQuoteACryptSchemeNameLongerThanASchemeName() {
    // Found by BasicAuthFuzzTest#htpasswd (crash-08c70ec4...): the name was quoted whole.
    String hash = "$5" + "J".repeat(100) + "$abc";

    assertThatThrownBy(() -> PasswordHash.parse(hash))
        .hasMessage("uses the hash scheme $...$, which is not supported: use bcrypt (htpasswd -B)");
  }

  @org.junit.jupiter.api.Test
  void aShaCryptPasswordOverTheLimitDoesNotMatchAndIsNotHashed() throws Exception {
    String longest = "p".repeat(ShaCrypt.MAX_PASSWORD_BYTES);
    String over = longest + "p";
    PasswordHash atLimit = shaCrypt(longest);
    PasswordHash overLimit = shaCrypt(over);

    assertThat(atLimit.matches(longest)).isTrue();
    // Its own hash, yet refused: a header's password must not set the cost of a check.
    assertThat(overLimit.matches(over)).isFalse();
  }

  private static PasswordHash shaCrypt(String password) throws Exception {
    byte[] encoded =
        ShaCrypt.encode(
            ShaCrypt.Variant.SHA_256,
            password.getBytes(java.nio.charset.StandardCharsets.UTF_8),
            "saltsalt",
            5000);
    return PasswordHash.parse(
        "$5$saltsalt$" + new String(encoded, java.nio.charset.StandardCharsets.US_ASCII));
  }
}
