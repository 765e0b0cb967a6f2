package dev.sluice.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A node of a configuration document, with where it starts in the source: a {@link Mapping}, a
 * {@link Sequence} or a {@link Scalar}. Scalars hold their text after environment expansion.
 *
 * <p>Nodes are immutable. A YAML alias shares the anchored node, so a node can appear at several
 * places of a tree; its location is that of the anchored original.
 */
public sealed interface ConfigNode
    permits ConfigNode.Mapping, ConfigNode.Sequence, ConfigNode.Scalar {
  /** Where the node starts. */
  Location location();

  /**
   * How the node reads in messages: {@code a mapping}, {@code a list}, {@code "text"}, {@code 5}.
   */
  String describe();

  /** One key of a mapping, with where the key is written, and its value. */
  record Entry(String key, Location keyLocation, ConfigNode value) {}

  /** A YAML mapping; its keys are unique and in file order. */
  record Mapping(List<Entry> entries, Location location) implements ConfigNode {
    public Mapping {
      entries = List.copyOf(entries);
    }

    /** An empty mapping at {@code location}, standing for a section left out or given as null. */
    public static Mapping empty(Location location) {
      return new Mapping(List.of(), location);
    }

    public Optional<Entry> entry(String key) {
      for (Entry e : entries) {
        if (e.key().equals(key)) {
          return Optional.of(e);
        }
      }
      return Optional.empty();
    }

    public List<String> keys() {
      List<String> keys = new ArrayList<>(entries.size());
      for (Entry e : entries) {
        keys.add(e.key());
      }
      return keys;
    }

    public boolean isEmpty() {
      return entries.isEmpty();
    }

    @Override
    public String describe() {
      return "a mapping";
    }
  }

  /** A YAML sequence. */
  record Sequence(List<ConfigNode> items, Location location) implements ConfigNode {
    public Sequence {
      items = List.copyOf(items);
    }

    @Override
    public String describe() {
      return "a list";
    }
  }

  /**
   * A YAML scalar. {@code number} is set for {@link Tag#INT} and {@link Tag#FLOAT} (as the YAML
   * parser read it: {@code 0x1F} and {@code 1_000} are numbers); {@code text} is the scalar as
   * written, after environment expansion. A scalar that came out of an expansion is a {@link
   * Tag#STRING}, converted to a number or boolean where the target needs one.
   */
  record Scalar(String text, Tag tag, Number number, Location location) implements ConfigNode {
    /** What the YAML parser made of a scalar. */
    public enum Tag {
      NULL,
      STRING,
      INT,
      FLOAT,
      BOOL
    }

    public Scalar {
      if (text == null) {
        throw new IllegalArgumentException("a scalar's text is never null (NULL has \"\")");
      }
    }

    public boolean isNull() {
      return tag == Tag.NULL;
    }

    @Override
    public String describe() {
      return switch (tag) {
        case NULL -> "an empty value";
        case STRING -> quote(text);
        default -> text;
      };
    }
  }

  /** The most characters of a value that a problem quotes. */
  static final int MAX_QUOTED_CHARS = 200;

  /** {@code text} cut to {@link #MAX_QUOTED_CHARS}, so that no problem grows with a value. */
  static String cut(String text) {
    return text.length() <= MAX_QUOTED_CHARS ? text : text.substring(0, MAX_QUOTED_CHARS) + "...";
  }

  /**
   * {@code text} in double quotes, with quotes, backslashes and control characters escaped, cut
   * after {@link #MAX_QUOTED_CHARS} characters.
   */
  static String quote(String text) {
    int shown = Math.min(text.length(), MAX_QUOTED_CHARS);
    StringBuilder sb = new StringBuilder(shown + 8).append('"');
    for (int i = 0; i < shown; i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\t' -> sb.append("\\t");
        case '\r' -> sb.append("\\r");
        default -> {
          if (c < 0x20) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    if (shown < text.length()) {
      sb.append("...");
    }
    return sb.append('"').toString();
  }
}
