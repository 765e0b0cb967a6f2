package dev.sluice.extension.basicauth;

import dev.sluice.component.AuthSide;
import dev.sluice.component.AuthenticatorConfig;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.OptionalSection;
import dev.sluice.component.Secrets;
import java.util.EnumSet;
import java.util.Set;

/**
 * The {@code basicauth} extension's configuration, with the OpenTelemetry Collector's keys: {@code
 * htpasswd} makes it a server authenticator, {@code client_auth} a client one; one of the two.
 *
 * @param htpasswd the users a server accepts
 * @param clientAuth the username and password a client sends
 */
public record BasicAuthConfig(
    @OptionalSection Htpasswd htpasswd, @OptionalSection ClientAuth clientAuth)
    implements AuthenticatorConfig {
  public static final BasicAuthConfig DEFAULT =
      new BasicAuthConfig(Htpasswd.DEFAULT, ClientAuth.DEFAULT);

  /**
   * Users in htpasswd form ({@code user:hash}, one per line), from a file, inline, or both (the
   * inline lines come after the file's, and a user listed twice is an error).
   */
  public record Htpasswd(String file, String inline) {
    public static final Htpasswd DEFAULT = new Htpasswd("", "");

    /** As the record prints itself, with the inline users (which may be plain) redacted. */
    @Override
    public String toString() {
      return "Htpasswd[file=" + file + ", inline=" + Secrets.redact(inline) + "]";
    }
  }

  /** The credentials a client sends. */
  public record ClientAuth(String username, String password) {
    public static final ClientAuth DEFAULT = new ClientAuth("", "");

    /** As the record prints itself, with the password redacted. */
    @Override
    public String toString() {
      return "ClientAuth[username=" + username + ", password=" + Secrets.redact(password) + "]";
    }
  }

  @Override
  public Set<AuthSide> sides() {
    Set<AuthSide> sides = EnumSet.noneOf(AuthSide.class);
    if (htpasswd != null) {
      sides.add(AuthSide.SERVER);
    }
    if (clientAuth != null) {
      sides.add(AuthSide.CLIENT);
    }
    return sides;
  }

  @Override
  public void validate(ConfigProblems problems) {
    if (htpasswd == null && clientAuth == null) {
      problems.add("", "set htpasswd (to check requests) or client_auth (to send credentials)");
      return;
    }
    if (htpasswd != null && clientAuth != null) {
      problems.add("", "set only one of htpasswd and client_auth");
    }
    if (htpasswd != null) {
      if (htpasswd.file().isEmpty() && htpasswd.inline().isBlank()) {
        problems.add("htpasswd", "set file or inline");
      } else {
        HtpasswdUsers.load(htpasswd, problems.under("htpasswd"));
      }
    }
    if (clientAuth != null) {
      if (clientAuth.username().isEmpty()) {
        problems.add("client_auth.username", "is required");
      } else if (clientAuth.username().indexOf(':') >= 0) {
        problems.add("client_auth.username", "must not contain a colon (RFC 7617)");
      }
      if (hasControlCharacter(clientAuth.username())) {
        problems.add("client_auth.username", "must not contain control characters");
      }
      if (hasControlCharacter(clientAuth.password())) {
        problems.add("client_auth.password", "must not contain control characters");
      }
    }
  }

  private static boolean hasControlCharacter(String text) {
    return text.chars().anyMatch(c -> c < ' ' || c == 0x7f);
  }
}
