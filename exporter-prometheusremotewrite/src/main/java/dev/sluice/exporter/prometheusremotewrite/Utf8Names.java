package dev.sluice.exporter.prometheusremotewrite;

import java.nio.charset.StandardCharsets;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Names as UTF-8, by the identity of the {@code String} the namers hand out: {@code MetricNames}
 * and {@code LabelNames} return one instance per name from their caches, so a name seen before is a
 * lookup, not an encoding. Bounded: cleared when {@link #MAX_ENTRIES} are held (a namer whose cache
 * was cleared hands out new instances). Owned by one thread.
 */
final class Utf8Names {
  static final int MAX_ENTRIES = 4096;
  static final byte[] NONE = new byte[0];

  private final Map<String, byte[]> bytes = new IdentityHashMap<>();

  byte[] of(String name) {
    byte[] utf8 = bytes.get(name);
    if (utf8 == null) {
      if (bytes.size() >= MAX_ENTRIES) {
        bytes.clear();
      }
      utf8 = name.isEmpty() ? NONE : name.getBytes(StandardCharsets.UTF_8);
      bytes.put(name, utf8);
    }
    return utf8;
  }
}
