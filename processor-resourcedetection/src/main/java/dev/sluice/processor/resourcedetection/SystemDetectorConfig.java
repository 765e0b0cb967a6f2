package dev.sluice.processor.resourcedetection;

import dev.sluice.component.ConfigProblems;
import dev.sluice.component.Validatable;
import java.util.List;
import java.util.Map;

/**
 * The {@code system} detector's settings.
 *
 * @param hostnameSources where {@code host.name} comes from, tried in order until one answers:
 *     {@code dns} (the fully qualified name), {@code os} (the name the kernel has) or {@code
 *     lookup} (the name a reverse lookup of the host's addresses gives); empty means the default,
 *     {@code [dns, os]}
 * @param resourceAttributes which attributes to set, by attribute name ({@code host.name: {enabled:
 *     false}}); see {@link SystemAttribute} for the names and their defaults
 */
public record SystemDetectorConfig(
    List<String> hostnameSources, Map<String, ResourceAttributeConfig> resourceAttributes)
    implements Validatable {
  static final String DNS = "dns";
  static final String OS = "os";
  static final String LOOKUP = "lookup";
  static final List<String> SUPPORTED_SOURCES = List.of(DNS, OS, LOOKUP);
  static final List<String> DEFAULT_SOURCES = List.of(DNS, OS);

  /** Hostname sources the Go collector has that this build does not. */
  private static final List<String> UNSUPPORTED_SOURCES = List.of("cname");

  /**
   * Attributes the Go detector can set that this build cannot: accepted only as disabled, which is
   * their default there too.
   */
  static final List<String> DISABLED_ONLY_ATTRIBUTES =
      List.of(
          "os.description",
          "os.name",
          "os.version",
          "os.build.id",
          "host.ip",
          "host.mac",
          "host.interface",
          "host.cpu.vendor.id",
          "host.cpu.family",
          "host.cpu.model.id",
          "host.cpu.model.name",
          "host.cpu.stepping",
          "host.cpu.cache.l2.size");

  public static final SystemDetectorConfig DEFAULT =
      new SystemDetectorConfig(DEFAULT_SOURCES, Map.of());

  @Override
  public void validate(ConfigProblems problems) {
    for (int i = 0; i < hostnameSources.size(); i++) {
      String source = hostnameSources.get(i);
      if (SUPPORTED_SOURCES.contains(source)) {
        continue;
      }
      String message =
          UNSUPPORTED_SOURCES.contains(source)
              ? "hostname source "
                  + ResourceDetectionConfig.quote(source)
                  + " is not supported by this build; use "
                  + String.join(", ", SUPPORTED_SOURCES)
              : "hostname_sources contains invalid value "
                  + ResourceDetectionConfig.quote(source)
                  + "; valid values: "
                  + String.join(", ", SUPPORTED_SOURCES);
      problems.under("hostname_sources").item(i).add("", message);
    }
    ConfigProblems attributes = problems.under("resource_attributes");
    for (Map.Entry<String, ResourceAttributeConfig> e : resourceAttributes.entrySet()) {
      String name = e.getKey();
      if (SystemAttribute.byName(name) != null) {
        continue;
      }
      if (DISABLED_ONLY_ATTRIBUTES.contains(name)) {
        if (Boolean.TRUE.equals(e.getValue().enabled())) {
          attributes.add(
              name + ".enabled",
              name + " is not supported by this build; only enabled: false is accepted");
        }
        continue;
      }
      attributes.add(
          name,
          "unknown resource attribute "
              + ResourceDetectionConfig.quote(name)
              + "; this build sets "
              + String.join(", ", SystemAttribute.names()));
    }
  }

  /** The sources to try: the configured ones, or the default when none are. */
  List<String> sources() {
    return hostnameSources.isEmpty() ? DEFAULT_SOURCES : hostnameSources;
  }

  boolean enabled(SystemAttribute attribute) {
    ResourceAttributeConfig config = resourceAttributes.get(attribute.attributeName());
    return config == null || config.enabled() == null
        ? attribute.enabledByDefault()
        : config.enabled();
  }
}
