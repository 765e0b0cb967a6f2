package dev.sluice.component;

import java.util.List;

/**
 * The {@code auth} section of a server or client, with the OpenTelemetry Collector's key: the id of
 * the authenticator extension ({@code bearertokenauth}, {@code basicauth/agents}) that checks the
 * requests a server takes, or adds credentials to the calls a client makes. The extension must be
 * configured, listed in {@code service.extensions} and able to authenticate that side; the
 * configuration loader checks all three.
 */
public record AuthConfig(String authenticator) implements Validatable {
  public static final AuthConfig DEFAULT = new AuthConfig("");

  @Override
  public void validate(ConfigProblems problems) {
    if (authenticator.isBlank()) {
      problems.add("authenticator", "is required: the id of an authenticator extension");
    }
  }

  /**
   * The reference to check, when {@code auth} is present: {@code path} is where {@code auth} is
   * written below the component's section, such as {@code protocols.grpc.auth}.
   */
  public static void reference(
      AuthConfig auth, String path, AuthSide side, List<AuthReference> into) {
    if (auth != null && !auth.authenticator().isBlank()) {
      into.add(new AuthReference(path + ".authenticator", auth.authenticator(), side));
    }
  }
}
