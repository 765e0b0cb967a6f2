package dev.sluice.extension.basicauth;

import dev.sluice.component.AuthOutcome;
import dev.sluice.component.ClientAuthenticator;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.RequestHeaders;
import dev.sluice.component.Secrets;
import dev.sluice.component.ServerAuthenticator;
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
 *
 * <p>Wrong passwords and unknown users cannot be remembered that way, so two more bounds keep a
 * client sending them from stalling the event loops: credentials that recently failed a slow hash
 * are remembered ({@link FailureMemory}) and refused again for a SHA-256, and the slow hashes of
 * one instance take at most a fraction of a core ({@link SlowCheckBudget}). When that budget is
 * spent, a request that would need a slow hash is answered {@link AuthOutcome#TRY_LATER} unchecked:
 * clients that are already remembered go on unaffected, and a new one gets in once the attack
 * stops.
 */
final class BasicAuthExtension implements ServerAuthenticator, ClientAuthenticator {
  private static final String SCHEME = "Basic";
  private static final String CHALLENGE = "Basic realm=\"sluice\", charset=\"UTF-8\"";

  private final BasicAuthConfig config;
  private final Map<String, String> clientHeaders;
  private final Map<String, byte[]> verified = new ConcurrentHashMap<>();
  private final SlowCheckBudget budget;
  private final FailureMemory failures = new FailureMemory();
  private volatile Map<String, PasswordHash> users = Map.of();

  /**
   * A hash checked for names that are not users, so that an unknown name costs what a wrong
   * password does and the answer's time does not tell which names exist.
   */
  private volatile PasswordHash decoy = new PasswordHash.Plain(Secrets.digest(""));

  BasicAuthExtension(BasicAuthConfig config) {
    this(config, SlowCheckBudget.standard());
  }

  BasicAuthExtension(BasicAuthConfig config, SlowCheckBudget budget) {
    this.config = config;
    this.budget = budget;
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
    return check(headers) == AuthOutcome.ACCEPTED;
  }

  @Override
  public AuthOutcome check(RequestHeaders headers) {
    String value = headers.get("Authorization");
    if (value == null
        || value.length() <= SCHEME.length()
        || value.charAt(SCHEME.length()) != ' '
        || !value.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
      return AuthOutcome.REFUSED;
    }
    String credentials;
    try {
      byte[] decoded = Base64.getDecoder().decode(value.substring(SCHEME.length() + 1).strip());
      credentials =
          StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(decoded)).toString();
    } catch (IllegalArgumentException | CharacterCodingException e) {
      return AuthOutcome.REFUSED;
    }
    int colon = credentials.indexOf(':');
    if (colon < 0) {
      return AuthOutcome.REFUSED;
    }
    String user = credentials.substring(0, colon);
    String password = credentials.substring(colon + 1);
    PasswordHash hash = users.get(user);
    byte[] digest = Secrets.digest(password);
    byte[] remembered = hash == null ? null : verified.get(user);
    if (remembered != null && MessageDigest.isEqual(digest, remembered)) {
      return AuthOutcome.ACCEPTED;
    }
    // An unknown name is checked against the decoy, so that it costs what a wrong password does
    // and the answer's time does not tell which names exist.
    PasswordHash checked = hash == null ? decoy : hash;
    if (!checked.slow()) {
      return checked.matches(password) && hash != null ? AuthOutcome.ACCEPTED : AuthOutcome.REFUSED;
    }
    byte[] failure =
        failures.digest(
            user.getBytes(StandardCharsets.UTF_8), password.getBytes(StandardCharsets.UTF_8));
    if (failures.failed(failure)) {
      return AuthOutcome.REFUSED;
    }
    long started = budget.tryStart();
    if (started == SlowCheckBudget.SPENT) {
      return AuthOutcome.TRY_LATER;
    }
    boolean matches;
    try {
      matches = checked.matches(password);
    } finally {
      budget.finish(started);
    }
    if (!matches || hash == null) {
      failures.remember(failure);
      return AuthOutcome.REFUSED;
    }
    verified.put(user, digest);
    return AuthOutcome.ACCEPTED;
  }

  @Override
  public String tryLater() {
    return "too many slow password checks, retry later";
  }

  /** The accounting of the slow hashes, for tests. */
  SlowCheckBudget budget() {
    return budget;
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
