package dev.sluice.component;

/** What a {@link ServerAuthenticator} makes of a request's credentials. */
public enum AuthOutcome {
  /** The credentials are valid: the request goes on. */
  ACCEPTED,
  /**
   * The credentials are missing or wrong: HTTP 401 with the challenge, gRPC {@code
   * UNAUTHENTICATED}. Sending the request again as it is will not help.
   */
  REFUSED,
  /**
   * The credentials were not checked, because the authenticator cannot afford the check now (its
   * budget for slow checks is spent): HTTP 503 with {@code Retry-After}, gRPC {@code UNAVAILABLE}
   * with a {@code RetryInfo}, so that a client retries the same request a little later.
   */
  TRY_LATER
}
