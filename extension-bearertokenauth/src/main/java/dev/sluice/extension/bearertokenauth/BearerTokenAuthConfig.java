package dev.sluice.extension.bearertokenauth;

import dev.sluice.component.AuthSide;
import dev.sluice.component.AuthenticatorConfig;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.Secrets;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The {@code bearertokenauth} extension's configuration, with the OpenTelemetry Collector's keys
 * and defaults. Exactly one of {@code token}, {@code tokens} and {@code filename} holds the
 * credential (the Go extension lets {@code filename} silently win over {@code token}; here setting
 * two is an error, so that a stale token left in a file is not mistaken for the one in force).
 *
 * @param header the header that carries the token, {@code Authorization}
 * @param scheme the word before the token, {@code Bearer}; empty for the bare token
 * @param token the token
 * @param tokens tokens any of which a server accepts; a client sends the first
 * @param filename a file holding the token (or one token per line), re-read when it changes
 */
public record BearerTokenAuthConfig(
    String header, String scheme, String token, List<String> tokens, String filename)
    implements AuthenticatorConfig {
  public static final BearerTokenAuthConfig DEFAULT =
      new BearerTokenAuthConfig("Authorization", "Bearer", "", List.of(), "");

  /** An HTTP header name (RFC 9110 token characters). */
  private static final Pattern HEADER_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

  @Override
  public Set<AuthSide> sides() {
    return EnumSet.allOf(AuthSide.class);
  }

  @Override
  public void validate(ConfigProblems problems) {
    if (!HEADER_NAME.matcher(header).matches()) {
      problems.add("header", "must be an HTTP header name, was \"" + header + "\"");
    }
    if (!HEADER_NAME.matcher(scheme).matches() && !scheme.isEmpty()) {
      problems.add("scheme", "must be one word such as Bearer, or empty");
    }
    int sources = (token.isEmpty() ? 0 : 1) + (tokens.isEmpty() ? 0 : 1);
    sources += filename.isEmpty() ? 0 : 1;
    if (sources == 0) {
      problems.add("", "set one of token, tokens or filename");
    } else if (sources > 1) {
      problems.add("", "set only one of token, tokens and filename");
    }
    for (int i = 0; i < tokens.size(); i++) {
      if (!TokenSet.isUsable(tokens.get(i))) {
        problems.add("tokens[" + i + "]", TokenSet.UNUSABLE);
      }
    }
    if (!token.isEmpty() && !TokenSet.isUsable(token)) {
      problems.add("token", TokenSet.UNUSABLE);
    }
    if (!filename.isEmpty()) {
      try {
        TokenSet.read(Path.of(filename));
      } catch (InvalidPathException e) {
        problems.add("filename", "is not a path: " + e.getReason());
      } catch (TokenSet.UnreadableException e) {
        problems.add("filename", e.getMessage());
      }
    }
  }

  /** This configuration with {@code token} set. */
  BearerTokenAuthConfig withToken(String token) {
    return new BearerTokenAuthConfig(header, scheme, token, tokens, filename);
  }

  /** As the record prints itself, with the tokens replaced by {@link Secrets#REDACTED}. */
  @Override
  public String toString() {
    return "BearerTokenAuthConfig[header="
        + header
        + ", scheme="
        + scheme
        + ", token="
        + Secrets.redact(token)
        + ", tokens="
        + tokens.stream().map(Secrets::redact).toList()
        + ", filename="
        + filename
        + "]";
  }
}
