package dev.sluice.core.component;

/**
 * An extension that checks the credentials of requests a receiver takes, from their headers alone:
 * receivers ask before reading a request's body, and refuse a request it does not accept (HTTP 401
 * with {@link #challenge()} in {@code WWW-Authenticate}, gRPC {@code UNAUTHENTICATED}). Called on
 * the servers' event loops, from many threads at once: it must not block, and compares secrets in
 * constant time.
 */
public interface ServerAuthenticator extends Extension {
  /** Whether the request with {@code headers} carries valid credentials. */
  boolean authenticate(RequestHeaders headers);

  /** The {@code WWW-Authenticate} value of a refusal, such as {@code Bearer realm="sluice"}. */
  String challenge();

  /** A refusal's message for the client; it never holds a credential. */
  default String refusal() {
    return "missing or invalid credentials";
  }
}
