package dev.sluice.component.attributeactions;

import dev.sluice.pdata.edit.AttributeActions;
import dev.sluice.pdata.edit.AttributeActions.Conversion;
import dev.sluice.pdata.edit.AttributeValue;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Builds {@link AttributeActions} from validated {@link ActionConfig}s. */
public final class Actions {
  private Actions() {}

  /**
   * The actions, in order.
   *
   * @throws IllegalArgumentException for a configuration that did not pass {@link
   *     ActionConfig#validate}
   */
  public static AttributeActions compile(List<ActionConfig> configs) {
    AttributeActions.Builder builder = AttributeActions.builder();
    for (ActionConfig c : configs) {
      String key = ActionConfig.set(c.key()) ? c.key() : null;
      switch (c.actionName()) {
        case "insert" -> {
          if (c.value() != null) {
            builder.insert(c.key(), value(c.value()));
          } else {
            builder.insertFrom(c.key(), c.fromAttribute());
          }
        }
        case "update" -> {
          if (c.value() != null) {
            builder.update(c.key(), value(c.value()));
          } else {
            builder.updateFrom(c.key(), c.fromAttribute());
          }
        }
        case "upsert" -> {
          if (c.value() != null) {
            builder.upsert(c.key(), value(c.value()));
          } else {
            builder.upsertFrom(c.key(), c.fromAttribute());
          }
        }
        case "delete" -> builder.delete(key, keyPattern(c));
        case "hash" -> builder.hash(key, keyPattern(c));
        case "extract" -> {
          GoPattern pattern = GoPattern.compile(c.pattern());
          builder.extract(c.key(), pattern.pattern(), pattern.groupNames());
        }
        case "convert" ->
            builder.convert(
                c.key(), Conversion.valueOf(c.convertedType().toUpperCase(Locale.ROOT)));
        default -> throw new IllegalArgumentException("unsupported action " + c.action());
      }
    }
    return builder.build();
  }

  private static java.util.regex.Pattern keyPattern(ActionConfig c) {
    return ActionConfig.set(c.pattern()) ? GoPattern.compile(c.pattern()).pattern() : null;
  }

  /** A configured value as an attribute value, as Go's {@code pcommon.Value.FromRaw} makes it. */
  public static AttributeValue value(Object raw) {
    if (raw instanceof String s) {
      return AttributeValue.string(s);
    }
    if (raw instanceof Boolean b) {
      return AttributeValue.bool(b);
    }
    if (raw instanceof Long || raw instanceof Integer) {
      return AttributeValue.integer(((Number) raw).longValue());
    }
    if (raw instanceof Double d) {
      return AttributeValue.floating(d);
    }
    if (raw instanceof List<?> list) {
      List<AttributeValue> elements = new ArrayList<>(list.size());
      for (Object element : list) {
        elements.add(value(element));
      }
      return AttributeValue.array(elements);
    }
    if (raw instanceof Map<?, ?> map) {
      Map<String, AttributeValue> entries = new LinkedHashMap<>();
      for (Map.Entry<?, ?> e : map.entrySet()) {
        entries.put(String.valueOf(e.getKey()), value(e.getValue()));
      }
      return AttributeValue.kvlist(entries);
    }
    throw new IllegalArgumentException("cannot make an attribute value of " + raw);
  }
}
