package dev.sluice.component;

/** Which end of a connection an authenticator serves. */
public enum AuthSide {
  /** Checks the credentials of requests a receiver takes: a {@link ServerAuthenticator}. */
  SERVER("server"),
  /** Adds credentials to the calls an exporter makes: a {@link ClientAuthenticator}. */
  CLIENT("client");

  private final String label;

  AuthSide(String label) {
    this.label = label;
  }

  /** The side as a word in messages: {@code server} or {@code client}. */
  public String label() {
    return label;
  }
}
