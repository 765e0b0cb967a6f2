package dev.sluice.config;

import dev.sluice.component.ConfigProblems;
import dev.sluice.component.GoDuration;
import dev.sluice.component.OptionalSection;
import dev.sluice.component.Unsupported;
import dev.sluice.component.Validatable;
import dev.sluice.config.ConfigNode.Entry;
import dev.sluice.config.ConfigNode.Mapping;
import dev.sluice.config.ConfigNode.Scalar;
import dev.sluice.config.ConfigNode.Scalar.Tag;
import dev.sluice.config.ConfigNode.Sequence;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Binds a {@link ConfigNode} to a configuration record by reflection over its components.
 *
 * <h2>Keys</h2>
 *
 * A component's key is the snake_case form of its name ({@code sendBatchMaxSize} is {@code
 * send_batch_max_size}). Keys the record does not have are errors that list the valid keys.
 *
 * <h2>Defaults</h2>
 *
 * Every record is bound against a base: the factory's default config at the top, and below it the
 * base's value for the same component. A key left out takes the base's value. A key given as null
 * (or empty: {@code timeout:}) is the same as left out, except for sections (see below). Where the
 * base has no value for a nested record (null) or there is no base (a record in a list or a map, a
 * section the default config leaves null), the record type's own default is used: its {@code static
 * final DEFAULT} field of the record's own type if it has one, otherwise zero values (0, false,
 * null, empty lists and maps) for the keys left out, as Go does for a new struct.
 *
 * <h2>Sections</h2>
 *
 * A nested record is a section. A section left out keeps the base's value, bound again as an empty
 * mapping, so that {@link OptionalSection}s inside it are off. A section given as null or empty
 * ({@code tls:}) is bound as an empty mapping against the base, or against the type's own default
 * when the base is null.
 *
 * <p>A component marked {@link OptionalSection} is switched on by its presence: left out, it is
 * null whatever the default config holds; present, even null or empty, it is bound as above
 * (against the default config's section, or the type's own default when that is null).
 *
 * <h2>Types</h2>
 *
 * {@code String} (any scalar, as written); {@code int}, {@code long}, {@code short}, {@code byte},
 * {@code double}, {@code float}, {@code boolean} and their boxes; {@link Duration} in Go's syntax
 * ({@code 5s}, {@code 1m30s}, {@code 0}); enums by constant name, ignoring case ({@code requests});
 * {@code Object} (whatever the file holds: {@code Long}, {@code Double}, {@code Boolean}, {@code
 * String}, {@code List<Object>}, {@code Map<String, Object>}); {@code List<T>}, {@code Map<String,
 * T>} (file order kept; a list or map in the file replaces the base's whole list or map); nested
 * records. Scalars given as strings, as environment expansion yields them, convert to numbers and
 * booleans ({@code "4317"}, {@code "true"}); integers are range-checked for their Java type; a
 * float with a fraction is not an integer. Lists and maps are immutable. A key of type {@link
 * Unsupported} takes any value and is warned about as ignored.
 *
 * <h2>Validation</h2>
 *
 * After binding without errors, every {@link Validatable} record is validated once, the bound
 * record and each record nested in it (sections, records in lists and maps), with its problems
 * under its key path; a record checks only its own keys. Each problem's key path is mapped back to
 * the location of its key in the file, or of the nearest enclosing key that is there.
 */
public final class ConfigBinder {
  private static final ClassValue<Shape> SHAPES =
      new ClassValue<>() {
        @Override
        protected Shape computeValue(Class<?> type) {
          return new Shape(type);
        }
      };

  /**
   * Binds {@code node} (a mapping, or a null scalar for an empty section) to a record of {@code
   * type}, with {@code defaults} for the keys left out, and validates it and every record in it
   * (see {@link Validatable}). {@code path} prefixes the key paths of problems.
   *
   * @throws ConfigException with every problem found
   */
  public <R extends Record> R bind(ConfigNode node, String path, Class<R> type, R defaults)
      throws ConfigException {
    Diagnostics diagnostics = new Diagnostics();
    R result = bindSection(node, node.location(), path, type, defaults, diagnostics);
    diagnostics.throwIfErrors();
    return result;
  }

  /**
   * Binds the YAML mapping {@code yamlText} (named {@code sourceName} in problems) to a record of
   * {@code type} as {@link #bind(ConfigNode, String, Class, Record)} does, as if no environment
   * variable were set: for tests of configuration records.
   *
   * @throws ConfigException with every problem found
   */
  public <R extends Record> R bind(String yamlText, String sourceName, Class<R> type, R defaults)
      throws ConfigException {
    Diagnostics diagnostics = new Diagnostics();
    ConfigNode node =
        new YamlReader(sourceName, new EnvExpander(name -> null), diagnostics).read(yamlText);
    R result = bindSection(node, node.location(), "", type, defaults, diagnostics);
    diagnostics.throwIfErrors();
    return result;
  }

  /**
   * Binds and validates a section; null if binding failed. {@code at} is where the section's key is
   * written.
   */
  <R> R bindSection(
      ConfigNode node, Location at, String path, Class<R> type, R defaults, Diagnostics d) {
    Mapping mapping;
    if (node instanceof Mapping m) {
      mapping = m;
    } else if (node instanceof Scalar s && s.isNull()) {
      mapping = Mapping.empty(s.location());
    } else {
      d.error(at, path, "expected a mapping, found " + node.describe());
      return null;
    }
    int before = d.errorCount();
    Object bound = bindRecord(mapping, at, path, type, defaults, d);
    if (bound == null || d.errorCount() > before) {
      return null;
    }
    validate(bound, mapping, at, path, d);
    return type.cast(bound);
  }

  private static void validate(
      Object bound, Mapping mapping, Location at, String path, Diagnostics d) {
    ConfigProblems problems = new ConfigProblems();
    RecordValidation.validate(bound, problems);
    for (ConfigProblems.Problem problem : problems.all()) {
      d.error(
          locate(mapping, at, problem.path()),
          Diagnostics.join(path, problem.path()),
          problem.message());
    }
  }

  /**
   * Where the key at {@code relativePath} (dotted, with list indexes as {@code [1]} or {@code .1})
   * below {@code node} is written, or the nearest enclosing key that is there; {@code at} is where
   * {@code node}'s own key is. Keys holding dots are matched whole, longest first.
   */
  static Location locate(ConfigNode node, Location at, String relativePath) {
    String rest = relativePath;
    ConfigNode current = node;
    Location where = at;
    while (!rest.isEmpty()) {
      if (current instanceof Mapping m) {
        Entry match = null;
        for (Entry e : m.entries()) {
          String k = e.key();
          boolean matches =
              rest.equals(k)
                  || (rest.startsWith(k)
                      && (rest.charAt(k.length()) == '.' || rest.charAt(k.length()) == '['));
          if (matches && (match == null || k.length() > match.key().length())) {
            match = e;
          }
        }
        if (match == null) {
          return where;
        }
        where = match.keyLocation();
        current = match.value();
        rest = rest.substring(match.key().length());
      } else if (current instanceof Sequence s) {
        boolean bracket = rest.startsWith("[");
        int start = bracket ? 1 : 0;
        int end = start;
        while (end < rest.length() && Character.isDigit(rest.charAt(end))) {
          end++;
        }
        if (end == start || (bracket && (end >= rest.length() || rest.charAt(end) != ']'))) {
          return where;
        }
        int index;
        try {
          index = Integer.parseInt(rest.substring(start, end));
        } catch (NumberFormatException e) {
          return where;
        }
        if (index >= s.items().size()) {
          return where;
        }
        current = s.items().get(index);
        where = current.location();
        rest = rest.substring(bracket ? end + 1 : end);
      } else {
        return where;
      }
      if (rest.startsWith(".")) {
        rest = rest.substring(1);
      }
    }
    return where;
  }

  /** Binds a present scalar (or list or map) to {@code type}; null after reporting an error. */
  <T> T scalar(ConfigNode node, Location at, String path, Class<T> type, Diagnostics d) {
    Object value = bindValue(node, at, path, type, null, d);
    return value == null ? null : type.cast(value);
  }

  /** Binds a mapping to a record; null if any error was reported. {@code base} may be null. */
  private Object bindRecord(
      Mapping mapping, Location at, String path, Class<?> type, Object base, Diagnostics d) {
    Shape shape = SHAPES.get(type);
    int before = d.errorCount();
    for (Entry e : mapping.entries()) {
      if (!shape.keys.contains(e.key())) {
        d.error(
            e.keyLocation(),
            Diagnostics.join(path, e.key()),
            Names.unknownKey("key", e.key(), shape.keys));
      }
    }
    Object[] args = new Object[shape.components.length];
    for (int i = 0; i < args.length; i++) {
      RecordComponent component = shape.components[i];
      Object baseValue = base == null ? zero(component.getType()) : shape.get(i, base);
      Entry entry = mapping.entry(shape.keys.get(i)).orElse(null);
      args[i] =
          bindComponent(
              entry,
              at,
              Diagnostics.join(path, shape.keys.get(i)),
              component,
              baseValue,
              mapping.location(),
              d);
    }
    if (d.errorCount() > before) {
      return null;
    }
    try {
      return shape.constructor.newInstance(args);
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      d.error(
          at, path, cause.getMessage() != null ? cause.getMessage() : "invalid section: " + cause);
      return null;
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot construct " + type.getName(), e);
    }
  }

  private Object bindComponent(
      Entry entry,
      Location parentAt,
      String path,
      RecordComponent component,
      Object baseValue,
      Location parentLocation,
      Diagnostics d) {
    Class<?> raw = component.getType();
    boolean optional = component.isAnnotationPresent(OptionalSection.class);
    if (entry == null) {
      if (optional) {
        return null;
      }
      if (raw.isRecord() && baseValue != null) {
        return bindRecord(Mapping.empty(parentLocation), parentAt, path, raw, baseValue, d);
      }
      return baseValue;
    }
    ConfigNode node = entry.value();
    Location at = entry.keyLocation();
    if (raw == Unsupported.class) {
      return unsupportedKey(at, path, d);
    }
    if (node instanceof Scalar s && s.isNull()) {
      if (raw.isRecord()) {
        Object base = baseValue != null ? baseValue : sectionDefault(raw);
        return bindRecord(Mapping.empty(s.location()), at, path, raw, base, d);
      }
      return baseValue;
    }
    return bindValue(node, at, path, component.getGenericType(), baseValue, d);
  }

  /** Binds a node that is present and, unless an element of a list or map, not null. */
  private Object bindValue(
      ConfigNode node, Location at, String path, Type type, Object baseValue, Diagnostics d) {
    Class<?> raw = rawClass(type);
    if (raw.isRecord()) {
      if (node instanceof Scalar s && s.isNull()) {
        return bindRecord(Mapping.empty(s.location()), at, path, raw, sectionDefault(raw), d);
      }
      if (!(node instanceof Mapping m)) {
        return mismatch(node, at, path, "a mapping", d);
      }
      Object base = baseValue != null ? baseValue : sectionDefault(raw);
      return bindRecord(m, at, path, raw, base, d);
    }
    if (raw == Unsupported.class) {
      return unsupportedKey(at, path, d);
    }
    if (raw == Object.class) {
      return untyped(node, at, path, d);
    }
    if (raw == List.class) {
      return bindList(node, at, path, typeArgument(type, 0), d);
    }
    if (raw == Map.class) {
      return bindMap(node, at, path, type, baseValue, d);
    }
    if (!(node instanceof Scalar scalar) || scalar.isNull()) {
      String expected = expected(raw);
      if (expected == null) {
        return unsupported(type, at, path, d);
      }
      return mismatch(node, at, path, expected, d);
    }
    if (raw == String.class) {
      return scalar.text();
    }
    if (raw == int.class || raw == Integer.class) {
      BigInteger v = integer(scalar, at, path, Integer.MIN_VALUE, Integer.MAX_VALUE, d);
      return v == null ? null : v.intValue();
    }
    if (raw == long.class || raw == Long.class) {
      BigInteger v = integer(scalar, at, path, Long.MIN_VALUE, Long.MAX_VALUE, d);
      return v == null ? null : v.longValue();
    }
    if (raw == short.class || raw == Short.class) {
      BigInteger v = integer(scalar, at, path, Short.MIN_VALUE, Short.MAX_VALUE, d);
      return v == null ? null : v.shortValue();
    }
    if (raw == byte.class || raw == Byte.class) {
      BigInteger v = integer(scalar, at, path, Byte.MIN_VALUE, Byte.MAX_VALUE, d);
      return v == null ? null : v.byteValue();
    }
    if (raw == double.class || raw == Double.class) {
      return decimal(scalar, at, path, Double.MAX_VALUE, d);
    }
    if (raw == float.class || raw == Float.class) {
      Double v = decimal(scalar, at, path, Float.MAX_VALUE, d);
      return v == null ? null : v.floatValue();
    }
    if (raw == boolean.class || raw == Boolean.class) {
      return bool(scalar, at, path, d);
    }
    if (raw == Duration.class) {
      return duration(scalar, at, path, d);
    }
    if (raw.isEnum()) {
      return enumValue(scalar, at, path, raw, d);
    }
    return unsupported(type, at, path, d);
  }

  /**
   * A value whose type the file decides, as Go's {@code any}: a {@code Long}, {@code Double},
   * {@code Boolean} or {@code String} as the YAML scalar reads, a {@code List<Object>} or a {@code
   * Map<String, Object>}.
   */
  private Object untyped(ConfigNode node, Location at, String path, Diagnostics d) {
    if (node instanceof Sequence) {
      return bindList(node, at, path, Object.class, d);
    }
    if (node instanceof Mapping) {
      return bindMap(node, at, path, MAP_OF_OBJECTS, null, d);
    }
    Scalar scalar = (Scalar) node;
    return switch (scalar.tag()) {
      case INT -> {
        BigInteger v = integer(scalar, at, path, Long.MIN_VALUE, Long.MAX_VALUE, d);
        yield v == null ? null : v.longValue();
      }
      case FLOAT -> decimal(scalar, at, path, Double.MAX_VALUE, d);
      case BOOL -> bool(scalar, at, path, d);
      case NULL -> mismatch(scalar, at, path, "a value", d);
      case STRING -> scalar.text();
    };
  }

  /** {@code Map<String, Object>}, for {@link #untyped}. */
  private static final Type MAP_OF_OBJECTS =
      new ParameterizedType() {
        @Override
        public Type[] getActualTypeArguments() {
          return new Type[] {String.class, Object.class};
        }

        @Override
        public Type getRawType() {
          return Map.class;
        }

        @Override
        public Type getOwnerType() {
          return null;
        }
      };

  /** A key accepted for compatibility: any value, and a warning that it is ignored. */
  private static Unsupported unsupportedKey(Location at, String path, Diagnostics d) {
    d.warn(at, path, Unsupported.MESSAGE);
    return Unsupported.PRESENT;
  }

  private List<Object> bindList(
      ConfigNode node, Location at, String path, Type elementType, Diagnostics d) {
    if (!(node instanceof Sequence sequence)) {
      return mismatch(node, at, path, "a list", d);
    }
    Class<?> raw = rawClass(elementType);
    List<Object> values = new ArrayList<>(sequence.items().size());
    boolean failed = false;
    for (int i = 0; i < sequence.items().size(); i++) {
      ConfigNode item = sequence.items().get(i);
      Object value =
          bindElement(item, item.location(), path + "[" + i + "]", elementType, raw, null, d);
      failed |= value == null;
      values.add(value);
    }
    return failed ? null : List.copyOf(values);
  }

  private Map<String, Object> bindMap(
      ConfigNode node, Location at, String path, Type type, Object baseValue, Diagnostics d) {
    Type keyType = typeArgument(type, 0);
    if (keyType != String.class) {
      return unsupported(type, at, path, d);
    }
    if (!(node instanceof Mapping mapping)) {
      return mismatch(node, at, path, "a mapping", d);
    }
    Type valueType = typeArgument(type, 1);
    Class<?> raw = rawClass(valueType);
    Map<?, ?> baseMap = baseValue instanceof Map<?, ?> m ? m : Map.of();
    Map<String, Object> values = new LinkedHashMap<>();
    boolean failed = false;
    for (Entry e : mapping.entries()) {
      Object value =
          bindElement(
              e.value(),
              e.keyLocation(),
              Diagnostics.join(path, e.key()),
              valueType,
              raw,
              baseMap.get(e.key()),
              d);
      failed |= value == null;
      values.put(e.key(), value);
    }
    return failed ? null : Collections.unmodifiableMap(values);
  }

  private Object bindElement(
      ConfigNode node,
      Location at,
      String path,
      Type type,
      Class<?> raw,
      Object baseValue,
      Diagnostics d) {
    if (node instanceof Scalar s && s.isNull() && !raw.isRecord()) {
      String expected = expected(raw);
      return mismatch(node, at, path, expected == null ? raw.getSimpleName() : expected, d);
    }
    return bindValue(node, at, path, type, baseValue, d);
  }

  private static BigInteger integer(
      Scalar scalar, Location at, String path, long min, long max, Diagnostics d) {
    BigInteger value =
        switch (scalar.tag()) {
          case INT ->
              scalar.number() instanceof BigInteger b
                  ? b
                  : BigInteger.valueOf(scalar.number().longValue());
          case FLOAT -> integral(new BigDecimal(scalar.number().toString()));
          case STRING -> parseInteger(scalar.text().trim());
          default -> null;
        };
    if (value == null) {
      mismatch(scalar, at, path, "an integer", d);
      return null;
    }
    if (value.compareTo(BigInteger.valueOf(min)) < 0
        || value.compareTo(BigInteger.valueOf(max)) > 0) {
      d.error(
          at,
          path,
          "expected an integer between " + min + " and " + max + ", found " + scalar.describe());
      return null;
    }
    return value;
  }

  private static BigInteger integral(BigDecimal value) {
    try {
      return value.toBigIntegerExact();
    } catch (ArithmeticException e) {
      return null;
    }
  }

  /** Decimal, 0x, 0o and 0b integers with an optional sign and underscores, or null. */
  static BigInteger parseInteger(String text) {
    String s = text.replace("_", "");
    boolean negative = false;
    if (s.startsWith("-") || s.startsWith("+")) {
      negative = s.startsWith("-");
      s = s.substring(1);
    }
    int radix = 10;
    if (s.length() > 2 && s.charAt(0) == '0') {
      switch (Character.toLowerCase(s.charAt(1))) {
        case 'x' -> radix = 16;
        case 'o' -> radix = 8;
        case 'b' -> radix = 2;
        default -> {}
      }
      if (radix != 10) {
        s = s.substring(2);
      }
    }
    if (s.isEmpty() || !s.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
      return null;
    }
    try {
      BigInteger v = new BigInteger(s, radix);
      return negative ? v.negate() : v;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static Double decimal(
      Scalar scalar, Location at, String path, double max, Diagnostics d) {
    BigDecimal value = null;
    if (scalar.tag() == Tag.INT || scalar.tag() == Tag.FLOAT) {
      value = new BigDecimal(scalar.number().toString());
    } else if (scalar.tag() == Tag.STRING) {
      try {
        value = new BigDecimal(scalar.text().trim().replace("_", ""));
      } catch (NumberFormatException e) {
        value = null;
      }
    }
    if (value == null) {
      return mismatch(scalar, at, path, "a number", d);
    }
    double v = value.doubleValue();
    if (Math.abs(v) > max) {
      d.error(
          at,
          path,
          "expected a number of magnitude at most " + max + ", found " + scalar.describe());
      return null;
    }
    return v;
  }

  private static Boolean bool(Scalar scalar, Location at, String path, Diagnostics d) {
    if (scalar.tag() == Tag.BOOL || scalar.tag() == Tag.STRING) {
      String text = scalar.text().trim();
      if (text.equalsIgnoreCase("true")) {
        return Boolean.TRUE;
      }
      if (text.equalsIgnoreCase("false")) {
        return Boolean.FALSE;
      }
    }
    return mismatch(scalar, at, path, "true or false", d);
  }

  private static Duration duration(Scalar scalar, Location at, String path, Diagnostics d) {
    if (scalar.tag() == Tag.STRING) {
      try {
        return GoDuration.parse(scalar.text());
      } catch (IllegalArgumentException e) {
        if (e.getMessage().contains("out of range")) {
          d.error(at, path, e.getMessage());
          return null;
        }
      }
    } else if (scalar.tag() == Tag.INT && BigInteger.ZERO.equals(integer0(scalar))) {
      return Duration.ZERO;
    }
    return mismatch(scalar, at, path, "a duration such as 5s or 200ms", d);
  }

  private static BigInteger integer0(Scalar scalar) {
    return scalar.number() instanceof BigInteger b
        ? b
        : BigInteger.valueOf(scalar.number().longValue());
  }

  private static Object enumValue(
      Scalar scalar, Location at, String path, Class<?> type, Diagnostics d) {
    String text = scalar.text().trim();
    for (Object constant : type.getEnumConstants()) {
      if (((Enum<?>) constant).name().equalsIgnoreCase(text)) {
        return constant;
      }
    }
    return mismatch(scalar, at, path, enumChoices(type), d);
  }

  private static String enumChoices(Class<?> type) {
    return "one of "
        + Arrays.stream(type.getEnumConstants())
            .map(c -> ((Enum<?>) c).name().toLowerCase(Locale.ROOT))
            .collect(Collectors.joining(", "));
  }

  /** What a scalar target type expects, for messages; null for a type the binder cannot fill. */
  private static String expected(Class<?> raw) {
    if (raw == String.class) {
      return "a string";
    }
    if (raw == int.class
        || raw == Integer.class
        || raw == long.class
        || raw == Long.class
        || raw == short.class
        || raw == Short.class
        || raw == byte.class
        || raw == Byte.class) {
      return "an integer";
    }
    if (raw == double.class || raw == Double.class || raw == float.class || raw == Float.class) {
      return "a number";
    }
    if (raw == boolean.class || raw == Boolean.class) {
      return "true or false";
    }
    if (raw == Duration.class) {
      return "a duration such as 5s or 200ms";
    }
    if (raw.isEnum()) {
      return enumChoices(raw);
    }
    if (raw == List.class) {
      return "a list";
    }
    if (raw == Map.class || raw.isRecord()) {
      return "a mapping";
    }
    return null;
  }

  private static <T> T mismatch(
      ConfigNode node, Location at, String path, String expected, Diagnostics d) {
    d.error(at, path, "expected " + expected + ", found " + node.describe());
    return null;
  }

  private static <T> T unsupported(Type type, Location at, String path, Diagnostics d) {
    d.error(
        at,
        path,
        "cannot bind a value of type "
            + type.getTypeName()
            + " (a bug in the component's configuration record)");
    return null;
  }

  private static Class<?> rawClass(Type type) {
    if (type instanceof Class<?> c) {
      return c;
    }
    if (type instanceof ParameterizedType p && p.getRawType() instanceof Class<?> c) {
      return c;
    }
    return Object.class;
  }

  private static Type typeArgument(Type type, int index) {
    if (type instanceof ParameterizedType p && p.getActualTypeArguments().length > index) {
      Type argument = p.getActualTypeArguments()[index];
      if (argument instanceof java.lang.reflect.WildcardType w && w.getUpperBounds().length == 1) {
        return w.getUpperBounds()[0];
      }
      return argument;
    }
    return Object.class;
  }

  /** A Go-like zero value: 0, false, null, or an empty list or map. */
  private static Object zero(Class<?> type) {
    if (type == boolean.class) {
      return false;
    }
    if (type == int.class) {
      return 0;
    }
    if (type == long.class) {
      return 0L;
    }
    if (type == double.class) {
      return 0.0;
    }
    if (type == float.class) {
      return 0.0f;
    }
    if (type == short.class) {
      return (short) 0;
    }
    if (type == byte.class) {
      return (byte) 0;
    }
    if (type == char.class) {
      return '\0';
    }
    if (type == List.class) {
      return List.of();
    }
    if (type == Map.class) {
      return Map.of();
    }
    return null;
  }

  /**
   * A record type's own default: its {@code static final DEFAULT} field of its own type, or null
   * (zero values).
   */
  static Object sectionDefault(Class<?> type) {
    return SHAPES.get(type).ownDefault;
  }

  /** What the binder needs to know about a record type. */
  private static final class Shape {
    final RecordComponent[] components;
    final List<String> keys;
    final Method[] accessors;
    final Constructor<?> constructor;
    final Object ownDefault;

    Shape(Class<?> type) {
      if (!type.isRecord()) {
        throw new IllegalArgumentException(type.getName() + " is not a record");
      }
      components = type.getRecordComponents();
      accessors = new Method[components.length];
      Class<?>[] types = new Class<?>[components.length];
      List<String> names = new ArrayList<>();
      for (int i = 0; i < components.length; i++) {
        String key = Names.snakeCase(components[i].getName());
        if (names.contains(key)) {
          throw new IllegalStateException(type.getName() + ": two components have the key " + key);
        }
        names.add(key);
        accessors[i] = components[i].getAccessor();
        accessors[i].setAccessible(true);
        types[i] = components[i].getType();
      }
      keys = List.copyOf(names);
      try {
        constructor = type.getDeclaredConstructor(types);
        constructor.setAccessible(true);
      } catch (NoSuchMethodException e) {
        throw new IllegalStateException(type.getName() + " has no canonical constructor", e);
      }
      ownDefault = findDefault(type);
    }

    Object get(int index, Object record) {
      try {
        return accessors[index].invoke(record);
      } catch (IllegalAccessException e) {
        throw new IllegalStateException(e);
      } catch (InvocationTargetException e) {
        throw new IllegalStateException(
            "reading " + components[index].getName() + " failed", e.getCause());
      }
    }

    private static Object findDefault(Class<?> type) {
      try {
        Field field = type.getDeclaredField("DEFAULT");
        int modifiers = field.getModifiers();
        if (Modifier.isStatic(modifiers)
            && Modifier.isFinal(modifiers)
            && field.getType() == type) {
          field.setAccessible(true);
          return field.get(null);
        }
      } catch (NoSuchFieldException e) {
        return null;
      } catch (IllegalAccessException e) {
        throw new IllegalStateException(e);
      }
      return null;
    }
  }
}
