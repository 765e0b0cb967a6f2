package dev.sluice.extension.basicauth;

import dev.sluice.core.component.ClientAuthenticator;
import dev.sluice.core.component.ConfigProblems;
import dev.sluice.core.component.RequestHeaders;
import dev.sluice.core.component.Secrets;
import dev.sluice.core.component.ServerAuthenticator;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * HTTP Basic authentication (RFC 7617): a server checks {@code Authorization: Basic ...} against
 * its htpasswd users; a client sends its username and password.
 *
 * <p>bcrypt costs milliseconds to a second a check by design (SHA-crypt and MD5-crypt less, by
 * their rounds), and requests are checked on the servers' event loops. So once a user's password
 * has passed such a hash, a SHA-256 of it is remembered (one per user, bounded by the htpasswd
 * file) and the user's later requests are compared with that, in constant time; a password that
 * does not match it goes through the full hash again.
 */
final class BasicAuthExtension implements ServerAuthenticator, ClientAuthenticator {
  private static final String SCHEME = "Basic";
  private static final String CHALLENGE = "Basic realm=\"sluice\", charset=\"UTF-8\"";

  private final BasicAuthConfig config;
  private final Map<String, String> clientHeaders;
  private final Map<String, byte[]> verified = new ConcurrentHashMap<>();
  private volatile Map<String, PasswordHash> users = Map.of();

  /**
   * A hash checked for names that are not users, so that an unknown name costs what a wrong
   * password does and the answer's time does not tell which names exist.
   */
  private volatile PasswordHash decoy = new PasswordHash.Plain(Secrets.digest(""));

  BasicAuthExtension(BasicAuthConfig config) {
    this.config = config;
    BasicAuthConfig.ClientAuth client = config.clientAuth();
    this.clientHeaders =
        client == null
            ? Map.of()
            : Map.of(
                "authorization",
                SCHEME
                    + " "
                    + Base64.getEncoder()
                        .encodeToString(
                            (client.username() + ":" + client.password())
                                .getBytes(StandardCharsets.UTF_8)));
  }

  @Override
  public void start() throws IOException {
    if (config.htpasswd() == null) {
      return;
    }
    ConfigProblems problems = new ConfigProblems();
    Map<String, PasswordHash> loaded = HtpasswdUsers.load(config.htpasswd(), problems);
    if (loaded == null) {
      throw new IOException(
          "basicauth: htpasswd: "
              + problems.all().stream()
                  .map(p -> p.path() + ": " + p.message())
                  .collect(Collectors.joining("; ")));
    }
    users = loaded;
    decoy =
        loaded.values().stream()
            .filter(PasswordHash::slow)
            .findFirst()
            .orElse(loaded.values().iterator().next());
  }

  @Override
  public boolean authenticate(RequestHeaders headers) {
    String value = headers.get("Authorization");
    if (value == null
        || value.length() <= SCHEME.length()
        || value.charAt(SCHEME.length()) != ' '
        || !value.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
      return false;
    }
    String credentials;
    try {
      byte[] decoded = Base64.getDecoder().decode(value.substring(SCHEME.length() + 1).strip());
      credentials =
          StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(decoded)).toString();
    } catch (IllegalArgumentException | CharacterCodingException e) {
      return false;
    }
    int colon = credentials.indexOf(':');
    if (colon < 0) {
      return false;
    }
    String user = credentials.substring(0, colon);
    String password = credentials.substring(colon + 1);
    PasswordHash hash = users.get(user);
    if (hash == null) {
      decoy.matches(password);
      return false;
    }
    byte[] digest = Secrets.digest(password);
    byte[] remembered = verified.get(user);
    if (remembered != null && MessageDigest.isEqual(digest, remembered)) {
      return true;
    }
    if (!hash.matches(password)) {
      return false;
    }
    if (hash.slow()) {
      verified.put(user, digest);
    }
    return true;
  }

  @Override
  public String challenge() {
    return CHALLENGE;
  }

  @Override
  public Map<String, String> requestHeaders() {
    return clientHeaders;
  }
}
