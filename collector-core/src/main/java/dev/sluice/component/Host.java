package dev.sluice.component;

import java.util.Map;
import java.util.Optional;

/**
 * What the collector offers its components when they start, as the OpenTelemetry Collector's host
 * does: the running extensions, by id. Extensions start before every other component, so a receiver
 * or an exporter finds its authenticator already running.
 */
public interface Host {
  /** A host without extensions. */
  Host NONE = id -> Optional.empty();

  /** The running extension with {@code id}. */
  Optional<Extension> extension(ComponentId id);

  /** A host over {@code extensions}. */
  static Host of(Map<ComponentId, ? extends Extension> extensions) {
    Map<ComponentId, Extension> copy = Map.copyOf(extensions);
    return id -> Optional.ofNullable(copy.get(id));
  }

  /** The server authenticator named by {@code auth}; see {@link #authenticator}. */
  default ServerAuthenticator serverAuthenticator(AuthConfig auth) {
    return authenticator(auth, AuthSide.SERVER, ServerAuthenticator.class);
  }

  /** The client authenticator named by {@code auth}; see {@link #authenticator}. */
  default ClientAuthenticator clientAuthenticator(AuthConfig auth) {
    return authenticator(auth, AuthSide.CLIENT, ClientAuthenticator.class);
  }

  /**
   * The authenticator of {@code side} named by {@code auth}.
   *
   * @throws IllegalStateException when it is not running or not of that side (the configuration
   *     loader refuses both, so this is a wiring bug)
   */
  private <A extends Extension> A authenticator(AuthConfig auth, AuthSide side, Class<A> type) {
    ComponentId id = ComponentId.parse(auth.authenticator());
    Extension extension =
        extension(id)
            .orElseThrow(
                () -> new IllegalStateException("authenticator \"" + id + "\" is not running"));
    if (!type.isInstance(extension)) {
      throw new IllegalStateException(
          "extension \"" + id + "\" is not a " + side.label() + " authenticator");
    }
    return type.cast(extension);
  }
}
