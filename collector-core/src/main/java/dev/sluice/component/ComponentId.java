package dev.sluice.component;

import java.util.regex.Pattern;

/**
 * A component's identity in the configuration: {@code type} or {@code type/name}, as in {@code
 * otlp} or {@code otlp/backup}.
 */
public record ComponentId(String type, String name) {
  private static final Pattern TYPE = Pattern.compile("[a-zA-Z][a-zA-Z0-9_]{0,62}");

  public ComponentId {
    if (!TYPE.matcher(type).matches()) {
      throw new IllegalArgumentException(
          "invalid component type \""
              + type
              + "\": it starts with a letter and holds letters, digits and underscores");
    }
    if (name.indexOf('/') >= 0 || name.chars().anyMatch(Character::isWhitespace)) {
      throw new IllegalArgumentException(
          "invalid component name \"" + name + "\": no slash or whitespace allowed");
    }
  }

  /** Parses {@code type} or {@code type/name}. */
  public static ComponentId parse(String id) {
    int slash = id.indexOf('/');
    if (slash < 0) {
      return new ComponentId(id.trim(), "");
    }
    String name = id.substring(slash + 1).trim();
    if (name.isEmpty()) {
      throw new IllegalArgumentException("invalid component id \"" + id + "\": empty name");
    }
    return new ComponentId(id.substring(0, slash).trim(), name);
  }

  @Override
  public String toString() {
    return name.isEmpty() ? type : type + "/" + name;
  }
}
