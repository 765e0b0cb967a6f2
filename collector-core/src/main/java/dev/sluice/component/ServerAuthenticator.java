package dev.sluice.component;

/**
 * An extension that checks the credentials of requests a receiver takes, from their headers alone:
 * receivers ask before reading a request's body, and refuse a request it does not accept (HTTP 401
 * with {@link #challenge()} in {@code WWW-Authenticate}, gRPC {@code UNAUTHENTICATED}), or ask the
 * client to come back later ({@link AuthOutcome#TRY_LATER}). Called on the servers' event loops,
 * from many threads at once: it must not block, must bound what a request costs it, and compares
 * secrets in constant time.
 *
 * <p>Receivers call {@link #check}; an authenticator that only ever accepts or refuses implements
 * {@link #authenticate} alone.
 */
public interface ServerAuthenticator extends Extension {
  /** Whether the request with {@code headers} carries valid credentials. */
  boolean authenticate(RequestHeaders headers);

  /**
   * What to do with the request with {@code headers}: accept it, refuse it, or have the client try
   * again later without its credentials being checked now.
   */
  default AuthOutcome check(RequestHeaders headers) {
    return authenticate(headers) ? AuthOutcome.ACCEPTED : AuthOutcome.REFUSED;
  }

  /** The {@code WWW-Authenticate} value of a refusal, such as {@code Bearer realm="sluice"}. */
  String challenge();

  /** A refusal's message for the client; it never holds a credential. */
  default String refusal() {
    return "missing or invalid credentials";
  }

  /** The message of a {@link AuthOutcome#TRY_LATER}; it never holds a credential. */
  default String tryLater() {
    return "too many credential checks, retry later";
  }
}
