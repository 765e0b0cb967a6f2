package dev.sluice.processor.resourcedetection;

import java.util.Arrays;
import java.util.List;

/** The attributes the {@code system} detector sets, with the Go detector's defaults. */
enum SystemAttribute {
  HOST_NAME("host.name", true),
  OS_TYPE("os.type", true),
  HOST_ARCH("host.arch", false),
  HOST_ID("host.id", false);

  private final String attributeName;
  private final boolean enabledByDefault;

  SystemAttribute(String attributeName, boolean enabledByDefault) {
    this.attributeName = attributeName;
    this.enabledByDefault = enabledByDefault;
  }

  String attributeName() {
    return attributeName;
  }

  boolean enabledByDefault() {
    return enabledByDefault;
  }

  static SystemAttribute byName(String name) {
    for (SystemAttribute attribute : values()) {
      if (attribute.attributeName.equals(name)) {
        return attribute;
      }
    }
    return null;
  }

  static List<String> names() {
    return Arrays.stream(values()).map(SystemAttribute::attributeName).toList();
  }
}
