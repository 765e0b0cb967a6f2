package dev.sluice.component;

import java.util.Map;

/**
 * An extension that adds credentials to the calls an exporter makes: headers (HTTP) or metadata
 * (gRPC) put on every request. Called for each request, from the exporters' sending threads: it
 * returns a map it already holds, changed only when the credentials change.
 */
public interface ClientAuthenticator extends Extension {
  /** The headers to set on the next request, names in lower case; immutable. */
  Map<String, String> requestHeaders();
}
