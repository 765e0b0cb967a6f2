package dev.sluice.config;

import dev.sluice.component.AuthReference;
import dev.sluice.component.AuthenticatorConfig;
import dev.sluice.component.ComponentConfig;
import dev.sluice.component.ComponentId;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Checks the {@code auth.authenticator} references of receivers and exporters: the extension is
 * configured, listed in {@code service.extensions}, and an authenticator of the side that names it.
 * The OpenTelemetry Collector finds these only when the component starts; here they are problems of
 * the file, with the reference's position.
 */
final class AuthReferenceCheck {
  private final Map<ComponentId, ComponentConfig> extensions;
  private final Set<ComponentId> listed;
  private final UnaryOperator<ComponentId> canonical;
  private final Diagnostics d;

  /**
   * @param extensions the extensions declared, by canonical id, with their bound configurations
   *     (null where binding failed)
   * @param listed the canonical ids in {@code service.extensions}
   * @param canonical maps an id to its factory's own type
   */
  AuthReferenceCheck(
      Map<ComponentId, ComponentConfig> extensions,
      Set<ComponentId> listed,
      UnaryOperator<ComponentId> canonical,
      Diagnostics d) {
    this.extensions = extensions;
    this.listed = listed;
    this.canonical = canonical;
    this.d = d;
  }

  /** Checks the references of the component bound from {@code node}, declared at {@code path}. */
  void check(ComponentConfig config, ConfigNode node, Location at, String path) {
    if (config == null) {
      return;
    }
    for (AuthReference reference : config.authReferences()) {
      String referencePath = Diagnostics.join(path, reference.path());
      Location where = ConfigBinder.locate(node, at, reference.path());
      ComponentId id;
      try {
        id = canonical.apply(ComponentId.parse(reference.authenticator()));
      } catch (IllegalArgumentException e) {
        d.error(where, referencePath, e.getMessage());
        continue;
      }
      if (!extensions.containsKey(id)) {
        d.error(
            where,
            referencePath,
            "references extension \"" + reference.authenticator() + "\" which is not configured");
        continue;
      }
      if (!listed.contains(id)) {
        d.error(
            where,
            referencePath,
            "references extension \""
                + reference.authenticator()
                + "\" which is not listed in service.extensions, so it would not be started");
        continue;
      }
      ComponentConfig extension = extensions.get(id);
      if (extension == null) {
        continue; // its own section failed to bind, and says so
      }
      if (!(extension instanceof AuthenticatorConfig authenticator)) {
        d.error(
            where,
            referencePath,
            "extension \"" + reference.authenticator() + "\" is not an authenticator");
      } else if (!authenticator.sides().contains(reference.side())) {
        d.error(
            where,
            referencePath,
            "extension \""
                + reference.authenticator()
                + "\" is not configured as a "
                + reference.side().label()
                + " authenticator");
      }
    }
  }
}
