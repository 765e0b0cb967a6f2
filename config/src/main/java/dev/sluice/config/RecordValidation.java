package dev.sluice.config;

import dev.sluice.component.ConfigProblems;
import dev.sluice.component.Validatable;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.List;
import java.util.Map;

/**
 * Validates a bound configuration record and every record nested in it, each once: a {@link
 * Validatable} record is asked about its own keys, with its problems under its key path (its record
 * component's snake_case name, {@code [i]} for a list item, {@code .key} for a map value), and then
 * its components are walked. Records that are not {@link Validatable} are walked through, so that a
 * section inside a plain grouping record ({@code protocols.grpc.tls}) is still checked.
 */
final class RecordValidation {
  private RecordValidation() {}

  /** Validates {@code value} and what it holds into {@code problems}. */
  static void validate(Object value, ConfigProblems problems) {
    if (value instanceof Record record) {
      validateRecord(record, problems);
    } else if (value instanceof List<?> list) {
      for (int i = 0; i < list.size(); i++) {
        validate(list.get(i), problems.item(i));
      }
    } else if (value instanceof Map<?, ?> map) {
      for (Map.Entry<?, ?> e : map.entrySet()) {
        validate(e.getValue(), problems.under(String.valueOf(e.getKey())));
      }
    }
  }

  private static void validateRecord(Record record, ConfigProblems problems) {
    if (record instanceof Validatable validatable) {
      try {
        validatable.validate(problems);
      } catch (RuntimeException e) {
        problems.add("", "validation failed: " + e);
      }
    }
    for (RecordComponent component : record.getClass().getRecordComponents()) {
      Class<?> type = component.getType();
      if (!type.isRecord() && type != List.class && type != Map.class) {
        continue;
      }
      Object value;
      try {
        var accessor = component.getAccessor();
        accessor.setAccessible(true);
        value = accessor.invoke(record);
      } catch (IllegalAccessException e) {
        throw new IllegalStateException(e);
      } catch (InvocationTargetException e) {
        throw new IllegalStateException("reading " + component.getName() + " failed", e.getCause());
      }
      if (value != null) {
        validate(value, problems.under(Names.snakeCase(component.getName())));
      }
    }
  }
}
