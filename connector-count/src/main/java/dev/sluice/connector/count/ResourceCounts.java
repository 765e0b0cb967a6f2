package dev.sluice.connector.count;

import dev.sluice.connector.count.CountValue.Entry;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The counts made for one resource in one batch: per count metric, one count per distinct set of
 * attribute values (in the order first seen), or a single count for a metric without attributes.
 * The resource is known by its attributes, so blocks of the batch with the same attributes share
 * one {@code ResourceCounts}.
 */
final class ResourceCounts {
  /** The resource's attributes in the order of the first block seen with them. */
  final List<Entry> attributes;

  /** The first value of each resource attribute key, for count attributes looked up here. */
  private final Map<String, CountValue> byKey = new HashMap<>();

  /** Per metric: counts of items without attributes to count by. */
  private final long[] plain;

  /** Per metric counted by attributes: the count of each set of values; null for the others. */
  private final Map<List<CountValue>, long[]>[] byValues;

  private boolean counted;

  @SuppressWarnings("unchecked")
  ResourceCounts(List<Entry> attributes, List<MetricDef> defs) {
    this.attributes = attributes;
    for (Entry entry : attributes) {
      byKey.putIfAbsent(entry.key(), entry.value());
    }
    this.plain = new long[defs.size()];
    this.byValues = new Map[defs.size()];
    for (int d = 0; d < defs.size(); d++) {
      if (defs.get(d).countsByAttributes()) {
        byValues[d] = new LinkedHashMap<>();
      }
    }
  }

  /** The resource attribute {@code key}'s value, or null. */
  CountValue attribute(String key) {
    return byKey.get(key);
  }

  /** Counts one item for metric {@code def}, which counts by no attribute. */
  void count(int def) {
    plain[def]++;
    counted = true;
  }

  /** Counts one item for metric {@code def} under {@code values} (the caller's list is kept). */
  void count(int def, List<CountValue> values) {
    long[] count = byValues[def].get(values);
    if (count == null) {
      byValues[def].put(values, new long[] {1});
    } else {
      count[0]++;
    }
    counted = true;
  }

  /** Whether any item was counted for this resource. */
  boolean counted() {
    return counted;
  }

  /** Whether any item was counted for metric {@code def}. */
  boolean counted(int def) {
    return byValues[def] == null ? plain[def] > 0 : !byValues[def].isEmpty();
  }

  /** The count of metric {@code def}, which counts by no attribute. */
  long plainCount(int def) {
    return plain[def];
  }

  /** The counts of metric {@code def} by set of attribute values, in the order first seen. */
  Map<List<CountValue>, long[]> countsByValues(int def) {
    return byValues[def];
  }
}
