package dev.sluice.config;

/**
 * Where a node is in the document, as a link to its parent: one small object per node, and the
 * dotted path ({@code exporters.otlp.headers[2]}) is built only when a problem names it, cut to
 * {@link #MAX_CHARS}. Building every node's path as a string cost the length of its ancestors' keys
 * per node, which long keys or long sequences made quadratic in the document.
 */
final class KeyPath {
  static final KeyPath ROOT = new KeyPath(null, null, -1);

  /** The longest path a problem shows. */
  static final int MAX_CHARS = 256;

  private final KeyPath parent;
  private final String key;
  private final int index;

  private KeyPath(KeyPath parent, String key, int index) {
    this.parent = parent;
    this.key = key;
    this.index = index;
  }

  KeyPath key(String name) {
    return new KeyPath(this, name, -1);
  }

  KeyPath index(int position) {
    return new KeyPath(this, null, position);
  }

  @Override
  public String toString() {
    if (parent == null) {
      return "";
    }
    StringBuilder out = new StringBuilder();
    append(out);
    return out.length() <= MAX_CHARS ? out.toString() : out.substring(0, MAX_CHARS) + "...";
  }

  /** Appends this path, stopping once it is longer than {@link #MAX_CHARS}. */
  private void append(StringBuilder out) {
    if (parent == null) {
      return;
    }
    parent.append(out);
    if (out.length() > MAX_CHARS) {
      return;
    }
    if (key == null) {
      out.append('[').append(index).append(']');
    } else {
      if (out.length() > 0) {
        out.append('.');
      }
      out.append(key, 0, Math.min(key.length(), MAX_CHARS + 1));
    }
  }
}
