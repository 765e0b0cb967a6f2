package dev.sluice.component;

/**
 * A request's headers (HTTP headers or gRPC metadata) as a {@link ServerAuthenticator} reads them.
 */
@FunctionalInterface
public interface RequestHeaders {
  /** The first value of header {@code name} (any case), or null when it is absent. */
  String get(String name);
}
