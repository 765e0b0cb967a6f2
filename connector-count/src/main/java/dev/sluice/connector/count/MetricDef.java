package dev.sluice.connector.count;

import dev.sluice.connector.count.CountConfig.AttributeConfig;
import dev.sluice.connector.count.CountConfig.MetricInfo;
import dev.sluice.connector.count.CountConfig.Section;
import dev.sluice.ottl.OttlCondition;
import dev.sluice.ottl.OttlException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One count metric, compiled from its configuration: its name, its conditions, and the attributes
 * counted by, with their keys as UTF-8 (to find them in items without decoding) and their default
 * values. Immutable and shared by every thread.
 *
 * @param defaults the default value of each attribute, null where it has none
 */
record MetricDef(
    Section section,
    String name,
    String description,
    List<OttlCondition> conditions,
    List<String> keys,
    List<byte[]> utf8Keys,
    List<CountValue> defaults) {

  /** Compiles one metric of a validated configuration. */
  static MetricDef compile(Section section, String name, MetricInfo info) {
    List<OttlCondition> conditions = new ArrayList<>();
    for (String condition : info.conditions()) {
      try {
        conditions.add(OttlCondition.parse(condition, section.context));
      } catch (OttlException e) {
        throw new IllegalArgumentException(
            "count configuration not validated: " + section.key + "." + name + ": " + e, e);
      }
    }
    List<String> keys = new ArrayList<>();
    List<byte[]> utf8Keys = new ArrayList<>();
    List<CountValue> defaults = new ArrayList<>();
    for (AttributeConfig attribute : info.attributes()) {
      keys.add(attribute.key());
      utf8Keys.add(attribute.key().getBytes(StandardCharsets.UTF_8));
      defaults.add(
          attribute.defaultValue() == null
              ? null
              : CountValue.fromConfig(attribute.defaultValue()));
    }
    return new MetricDef(
        section,
        name,
        info.description(),
        List.copyOf(conditions),
        List.copyOf(keys),
        List.copyOf(utf8Keys),
        Collections.unmodifiableList(defaults));
  }

  /** Compiles every metric of {@code section}, in the order of the file. */
  static List<MetricDef> compileAll(CountConfig config, Section section) {
    List<MetricDef> defs = new ArrayList<>();
    config.section(section).forEach((name, info) -> defs.add(compile(section, name, info)));
    return List.copyOf(defs);
  }

  boolean countsByAttributes() {
    return !keys.isEmpty();
  }
}
