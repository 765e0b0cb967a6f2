package dev.sluice.component;

import java.util.Set;

/**
 * The configuration of an authenticator extension. Which sides it serves can depend on its keys (a
 * {@code basicauth} with {@code htpasswd} checks servers' requests, one with {@code client_auth}
 * signs clients' calls), so the configuration says, and the loader refuses a reference from the
 * wrong side before anything starts.
 */
public interface AuthenticatorConfig extends ComponentConfig {
  /** The sides this configuration can authenticate. */
  Set<AuthSide> sides();
}
