package dev.sluice.processor.attributes;

import dev.sluice.component.attributeactions.GoPattern;
import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.view.AnyValueView;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.SpanView;
import dev.sluice.pdata.view.TextView;
import dev.sluice.pdata.view.Utf8Chars;
import dev.sluice.pdata.view.ValueText;
import dev.sluice.pdata.view.ValueType;
import dev.sluice.processor.attributes.MatchProperties.AttributeMatch;
import dev.sluice.processor.attributes.MatchProperties.LibraryMatch;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;

/**
 * {@link MatchProperties} compiled for one signal, tested against the item a visit is at through
 * its views: nothing is decoded or allocated for strings, ints and bools. One per thread (it keeps
 * a cursor, matchers and scratch buffers).
 */
final class ItemMatcher {
  private static final byte[] SERVICE_NAME = utf8("service.name");

  /** What Go compares {@code services} with when the resource has no {@code service.name}. */
  private static final byte[] NO_SERVICE_NAME = utf8("<nil-service-name>");

  // Indexed by Span.kind, as Go's traceutil.SpanKindStr names them.
  private static final byte[][] SPAN_KIND_NAMES = new byte[SpanView.KIND_CONSUMER + 1][];

  static {
    SPAN_KIND_NAMES[SpanView.KIND_UNSPECIFIED] = utf8("SPAN_KIND_UNSPECIFIED");
    SPAN_KIND_NAMES[SpanView.KIND_INTERNAL] = utf8("SPAN_KIND_INTERNAL");
    SPAN_KIND_NAMES[SpanView.KIND_SERVER] = utf8("SPAN_KIND_SERVER");
    SPAN_KIND_NAMES[SpanView.KIND_CLIENT] = utf8("SPAN_KIND_CLIENT");
    SPAN_KIND_NAMES[SpanView.KIND_PRODUCER] = utf8("SPAN_KIND_PRODUCER");
    SPAN_KIND_NAMES[SpanView.KIND_CONSUMER] = utf8("SPAN_KIND_CONSUMER");
  }

  private static final byte[] NONE = new byte[0];
  private static final byte[] TRUE = utf8("true");
  private static final byte[] FALSE = utf8("false");
  private static final int INITIAL_TEXT_BYTES = 256;

  /** A list of strings to match one of: equal, or found by a pattern. */
  private final class Strings {
    private final byte[][] values;
    private final Matcher[] patterns;

    Strings(List<String> list) {
      values = new byte[list.size()][];
      patterns = regexp ? new Matcher[list.size()] : null;
      for (int i = 0; i < list.size(); i++) {
        values[i] = utf8(list.get(i));
        if (regexp) {
          patterns[i] = GoPattern.compile(list.get(i)).pattern().matcher("");
        }
      }
    }

    boolean isEmpty() {
      return values.length == 0;
    }

    boolean matches(TextView text) {
      if (!regexp) {
        for (byte[] value : values) {
          if (text.contentEquals(value)) {
            return true;
          }
        }
        return false;
      }
      int length = text.copyTo(scratch(text.length()), 0);
      return found(bytes, 0, length);
    }

    boolean matches(byte[] text, int offset, int length) {
      if (!regexp) {
        for (byte[] value : values) {
          if (java.util.Arrays.equals(value, 0, value.length, text, offset, offset + length)) {
            return true;
          }
        }
        return false;
      }
      return found(text, offset, length);
    }

    private boolean found(byte[] text, int offset, int length) {
      chars.decode(text, offset, length);
      for (Matcher pattern : patterns) {
        if (pattern.reset(chars).find()) {
          return true;
        }
      }
      return false;
    }
  }

  /** One attribute to match: key, and nothing (any value), a typed value or a pattern. */
  private record Attribute(byte[] key, Object value, Matcher pattern) {}

  /** One instrumentation scope to match. */
  private record Library(ItemMatcher.Strings name, ItemMatcher.Strings version) {}

  private final boolean regexp;
  private final Signal signal;
  private final Strings services;
  private final Strings spanNames;
  private final Strings spanKinds;
  private final Strings logBodies;
  private final Strings severityTexts;
  private final Strings metricNames;
  private final LogSeverityNumber severityNumber;
  private final Attribute[] attributes;
  private final Attribute[] resources;
  private final Library[] libraries;
  private final AttributeCursor cursor = new AttributeCursor();
  private final Utf8Chars chars = new Utf8Chars();
  private byte[] bytes = new byte[INITIAL_TEXT_BYTES];

  /** Properties already checked with {@link MatchProperties#problemsFor} for {@code signal}. */
  ItemMatcher(MatchProperties properties, Signal signal) {
    this.regexp = properties.isRegexp();
    this.signal = signal;
    services = new Strings(properties.services());
    spanNames = new Strings(properties.spanNames());
    spanKinds = new Strings(properties.spanKinds());
    logBodies = new Strings(properties.logBodies());
    severityTexts = new Strings(properties.logSeverityTexts());
    metricNames = new Strings(properties.metricNames());
    severityNumber = properties.logSeverityNumber();
    attributes = attributes(properties.attributes());
    resources = attributes(properties.resources());
    libraries = new Library[properties.libraries().size()];
    for (int i = 0; i < libraries.length; i++) {
      LibraryMatch library = properties.libraries().get(i);
      libraries[i] =
          new Library(
              new Strings(List.of(MatchProperties.nullToEmpty(library.name()))),
              library.version() == null ? null : new Strings(List.of(library.version())));
    }
  }

  private Attribute[] attributes(List<AttributeMatch> matches) {
    Attribute[] compiled = new Attribute[matches.size()];
    for (int i = 0; i < compiled.length; i++) {
      AttributeMatch m = matches.get(i);
      Matcher pattern =
          regexp && m.value() != null
              ? GoPattern.compile((String) m.value()).pattern().matcher("")
              : null;
      Object value = m.value() instanceof String s ? utf8(s) : m.value();
      compiled[i] = new Attribute(utf8(m.key()), regexp ? null : value, pattern);
    }
    return compiled;
  }

  /** Whether the item the visit is at matches every property given. */
  boolean matches(BatchItem item) {
    return switch (signal) {
      case TRACES -> matchesSpan(item);
      case LOGS -> matchesLogRecord(item);
      case METRICS -> matchesMetric(item);
    };
  }

  private boolean matchesSpan(BatchItem item) {
    if (!services.isEmpty() && !matchesService(item)) {
      return false;
    }
    if (!spanNames.isEmpty() && !spanNames.matches(item.span().name())) {
      return false;
    }
    if (!spanKinds.isEmpty()) {
      int kind = item.span().kind();
      byte[] name = kind >= 0 && kind < SPAN_KIND_NAMES.length ? SPAN_KIND_NAMES[kind] : NONE;
      if (!spanKinds.matches(name, 0, name.length)) {
        return false;
      }
    }
    return matchesCommon(item) && matchesAll(attributes, item.span().attributes(cursor));
  }

  private boolean matchesLogRecord(BatchItem item) {
    if (!logBodies.isEmpty() && !matchesText(logBodies, item.logRecord().body())) {
      return false;
    }
    if (!severityTexts.isEmpty() && !severityTexts.matches(item.logRecord().severityText())) {
      return false;
    }
    if (severityNumber != null && !severityNumber.matches(item.logRecord().severityNumber())) {
      return false;
    }
    return matchesCommon(item) && matchesAll(attributes, item.logRecord().attributes(cursor));
  }

  private boolean matchesMetric(BatchItem item) {
    if (!metricNames.isEmpty() && !metricNames.matches(item.metric().name())) {
      return false;
    }
    return resources.length == 0 || matchesAll(resources, item.resourceView().attributes(cursor));
  }

  /** Libraries and resources, which spans and log records share. */
  private boolean matchesCommon(BatchItem item) {
    for (Library library : libraries) {
      if (!library.name.matches(item.scopeView().name())) {
        return false;
      }
      if (library.version != null && !library.version.matches(item.scopeView().version())) {
        return false;
      }
    }
    return resources.length == 0 || matchesAll(resources, item.resourceView().attributes(cursor));
  }

  private boolean matchesService(BatchItem item) {
    AttributeCursor resource = item.resourceView().attributes(cursor);
    if (!resource.find(SERVICE_NAME)) {
      return services.matches(NO_SERVICE_NAME, 0, NO_SERVICE_NAME.length);
    }
    return matchesText(services, resource.value());
  }

  /** Matches the value as Go's {@code AsString} writes it (arrays, maps and bytes as empty). */
  private boolean matchesText(Strings strings, AnyValueView value) {
    switch (value.type()) {
      case STRING -> {
        return strings.matches(value.stringValue());
      }
      case DOUBLE -> {
        byte[] text = utf8(ValueText.goDouble(value.doubleValue()));
        return strings.matches(text, 0, text.length);
      }
      default -> {
        int length = scalarText(value, false);
        return strings.matches(bytes, 0, Math.max(length, 0));
      }
    }
  }

  /**
   * Writes a bool or an int value's text into {@link #bytes} (a double too, in Go's {@code 'f'}
   * form, when {@code doubles}); returns its length, or -1 for another type.
   */
  private int scalarText(AnyValueView value, boolean doubles) {
    switch (value.type()) {
      case BOOL -> {
        byte[] word = value.boolValue() ? TRUE : FALSE;
        System.arraycopy(word, 0, scratch(word.length), 0, word.length);
        return word.length;
      }
      case INT -> {
        return ValueText.decimal(value.intValue(), scratch(ValueText.DECIMAL_MAX_BYTES), 0);
      }
      case DOUBLE -> {
        if (!doubles) {
          return -1;
        }
        byte[] plain = utf8(plainDouble(value.doubleValue()));
        System.arraycopy(plain, 0, scratch(plain.length), 0, plain.length);
        return plain.length;
      }
      default -> {
        return -1;
      }
    }
  }

  /** Go's {@code strconv.FormatFloat(f, 'f', -1, 64)}. */
  private static String plainDouble(double f) {
    if (Double.isNaN(f)) {
      return "NaN";
    }
    if (Double.isInfinite(f)) {
      return f > 0 ? "+Inf" : "-Inf";
    }
    if (f == 0) {
      return 1 / f < 0 ? "-0" : "0";
    }
    return new BigDecimal(Double.toString(f)).stripTrailingZeros().toPlainString();
  }

  /** Whether every attribute matcher finds its attribute in the list. */
  private boolean matchesAll(Attribute[] matchers, AttributeCursor list) {
    for (Attribute matcher : matchers) {
      if (!list.find(matcher.key)) {
        return false;
      }
      AnyValueView value = list.value();
      if (matcher.pattern != null) {
        int length =
            value.type() == ValueType.STRING
                ? value.stringValue().copyTo(scratch(value.stringValue().length()), 0)
                : scalarText(value, true);
        if (length < 0 || !matcher.pattern.reset(chars.decode(bytes, 0, length)).find()) {
          return false;
        }
      } else if (matcher.value != null && !equal(matcher.value, value)) {
        return false;
      }
    }
    return true;
  }

  private static boolean equal(Object expected, AnyValueView value) {
    if (expected instanceof byte[] text) {
      return value.type() == ValueType.STRING && value.stringValue().contentEquals(text);
    }
    if (expected instanceof Boolean b) {
      return value.type() == ValueType.BOOL && value.boolValue() == b;
    }
    if (expected instanceof Long l) {
      return value.type() == ValueType.INT && value.intValue() == l;
    }
    if (expected instanceof Double d) {
      return value.type() == ValueType.DOUBLE && value.doubleValue() == d;
    }
    return false;
  }

  /** The scratch buffer, with room for {@code length} bytes. */
  private byte[] scratch(int length) {
    if (bytes.length < length) {
      bytes = new byte[Math.max(length, bytes.length * 2)];
    }
    return bytes;
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
