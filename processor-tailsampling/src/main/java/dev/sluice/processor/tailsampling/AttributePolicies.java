package dev.sluice.processor.tailsampling;

import dev.sluice.component.ConfigProblems;
import dev.sluice.component.attributeactions.GoPattern;
import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.view.AnyValueView;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.TextView;
import dev.sluice.pdata.view.ValueType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;

/**
 * The policies that decide from one attribute of the spans or their resources: {@code
 * numeric_attribute}, {@code string_attribute} and {@code boolean_attribute}, deciding as the
 * OpenTelemetry Collector's tailsamplingprocessor v0.161.0 does (the places where Sluice does
 * better are said where they are).
 *
 * <p>As in the Collector, the attribute is looked up (its first entry with the key) in each
 * resource of the trace and in each span. Without {@code invert_match} a trace is sampled when any
 * resource or span has the attribute with a matching value. With it, the answer turns around: a
 * trace is sampled ({@link Decision#SAMPLED}, not the deprecated invert decisions, which v0.161.0
 * no longer gives) unless some resource or span has the attribute with a matching value, and a
 * trace without the attribute anywhere is sampled.
 *
 * <p>Better than the Collector: a value of another type than the policy's reads as no value. The
 * Collector reads it as its type's zero ({@code 0}, {@code false}, {@code ""}), so a string
 * attribute counts as 0 for {@code numeric_attribute}, an int as {@code false} for {@code
 * boolean_attribute} with {@code value: false}, and an int on a resource as {@code ""} for a {@code
 * string_attribute} regular expression that matches the empty string.
 */
final class AttributePolicies {
  /** The Collector's LRU size for regular expression results when {@code cache_max_size} is 0. */
  static final int DEFAULT_CACHE_SIZE = 128;

  /** Values longer than this, in UTF-8 bytes, are matched without the results cache. */
  static final int MAX_CACHED_VALUE_BYTES = 256;

  private AttributePolicies() {}

  static void validate(PolicyConfig policy, ConfigProblems problems) {
    switch (policy.type()) {
      case "numeric_attribute" -> validateNumeric(policy.numericAttribute(), problems);
      case "string_attribute" -> validateString(policy.stringAttribute(), problems);
      case "boolean_attribute" -> validateBoolean(policy.booleanAttribute(), problems);
      default -> throw new IllegalArgumentException("not an attribute policy: " + policy.type());
    }
  }

  static PolicyEvaluator compile(PolicyConfig policy) {
    return switch (policy.type()) {
      case "numeric_attribute" -> new NumericMatch(policy.numericAttribute());
      case "string_attribute" -> new StringMatch(policy.stringAttribute());
      case "boolean_attribute" -> new BooleanMatch(policy.booleanAttribute());
      default -> throw new IllegalArgumentException("not an attribute policy: " + policy.type());
    };
  }

  private static void validateKey(String key, ConfigProblems problems) {
    if (key == null || key.isEmpty()) {
      problems.add("key", "is required: the attribute to look at");
    }
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * A trace's resources and spans looked at for one attribute: {@link #matches} says whether a
   * value found under the key counts, for a resource or for a span. Each resource block is looked
   * at once however many of the trace's spans it holds.
   */
  abstract static class AttributeMatch extends SpanWalk {
    private final byte[] key;
    private final boolean invertMatch;
    private final AttributeCursor attributes = new AttributeCursor();
    private OtlpIndex blockRequest;
    private int blockResource;
    private boolean found;

    AttributeMatch(String key, boolean invertMatch) {
      this.key = utf8(key);
      this.invertMatch = invertMatch;
    }

    /** Whether {@code value}, found under the key on a resource or a span, matches. */
    abstract boolean matches(AnyValueView value, boolean onResource);

    @Override
    final void begin() {
      found = false;
      blockRequest = null;
    }

    @Override
    final Decision end(TraceData trace) {
      blockRequest = null;
      if (invertMatch) {
        return found ? Decision.NOT_SAMPLED : Decision.SAMPLED;
      }
      return found ? Decision.SAMPLED : Decision.NOT_SAMPLED;
    }

    @Override
    public final void visit(BatchItem item) {
      if (found) {
        return;
      }
      if (item.request() != blockRequest || item.resource() != blockResource) {
        blockRequest = item.request();
        blockResource = item.resource();
        if (item.resourceView().attributes(attributes).find(key)
            && matches(attributes.value(), true)) {
          found = true;
          return;
        }
      }
      found = item.span().attributes(attributes).find(key) && matches(attributes.value(), false);
    }
  }

  // ---- numeric_attribute

  private static void validateNumeric(
      PolicyConfig.NumericAttribute numeric, ConfigProblems problems) {
    if (numeric == null) {
      problems.add("key", "is required: the attribute to look at");
      problems.add("min_value", "at least one of min_value and max_value is required");
      return;
    }
    validateKey(numeric.key(), problems);
    if (numeric.minValue() == null && numeric.maxValue() == null) {
      problems.add("min_value", "at least one of min_value and max_value is required");
    } else if (numeric.minValue() != null
        && numeric.maxValue() != null
        && numeric.minValue() > numeric.maxValue()) {
      problems.add(
          "max_value",
          "must be at least min_value ("
              + numeric.minValue()
              + "), was "
              + numeric.maxValue()
              + ": no value would match");
    }
  }

  /**
   * An int attribute in {@code [min_value, max_value]}; a bound left out is no bound.
   *
   * <p>Better than the Collector: its settings cannot tell a bound set to 0 from one left out, so
   * it takes {@code min_value: 0} as no lower bound (and {@code max_value: 0} as no upper bound).
   * Sluice takes 0 as 0.
   */
  static final class NumericMatch extends AttributeMatch {
    private final long min;
    private final long max;

    NumericMatch(PolicyConfig.NumericAttribute config) {
      super(config.key(), config.invertMatch());
      this.min = config.minValue() != null ? config.minValue() : Long.MIN_VALUE;
      this.max = config.maxValue() != null ? config.maxValue() : Long.MAX_VALUE;
    }

    @Override
    boolean matches(AnyValueView value, boolean onResource) {
      if (value.type() != ValueType.INT) {
        return false;
      }
      long v = value.intValue();
      return v >= min && v <= max;
    }
  }

  // ---- boolean_attribute

  private static void validateBoolean(PolicyConfig.BooleanAttribute bool, ConfigProblems problems) {
    validateKey(bool == null ? null : bool.key(), problems);
  }

  /** A bool attribute equal to {@code value}. */
  static final class BooleanMatch extends AttributeMatch {
    private final boolean expected;

    BooleanMatch(PolicyConfig.BooleanAttribute config) {
      super(config.key(), config.invertMatch());
      this.expected = config.value();
    }

    @Override
    boolean matches(AnyValueView value, boolean onResource) {
      return value.type() == ValueType.BOOL && value.boolValue() == expected;
    }
  }

  // ---- string_attribute

  private static void validateString(PolicyConfig.StringAttribute string, ConfigProblems problems) {
    if (string == null) {
      problems.add("key", "is required: the attribute to look at");
      problems.add("values", "expected at least one value to match");
      return;
    }
    validateKey(string.key(), problems);
    if (string.cacheMaxSize() < 0) {
      problems.add(
          "cache_max_size",
          "must not be negative (0: " + DEFAULT_CACHE_SIZE + "), was " + string.cacheMaxSize());
    }
    List<String> values = string.values();
    if (values == null || values.isEmpty()) {
      problems.add("values", "expected at least one value to match");
      return;
    }
    for (int i = 0; i < values.size(); i++) {
      String value = values.get(i);
      ConfigProblems at = problems.under("values").item(i);
      if (value == null) {
        at.add("", "a value is missing");
      } else if (string.enabledRegexMatching()) {
        try {
          GoPattern.compile(value);
        } catch (IllegalArgumentException e) {
          at.add("", "invalid regular expression \"" + value + "\": " + e.getMessage());
        }
      } else if (value.isEmpty()) {
        // The Collector leaves empty values out of its set without a word.
        at.add("", "an empty value matches nothing (an empty attribute is never matched)");
      }
    }
  }

  /**
   * A string attribute equal to one of {@code values}, or with {@code enabled_regex_matching} in
   * which one of the regular expressions finds a match (unanchored, as Go's {@code MatchString}:
   * write {@code ^...$} for the whole value). An empty value on a span is never matched; on a
   * resource it is compared like any other (as the Collector does both).
   *
   * <p>Regular expressions are in Go's RE2 syntax, as the Collector's, compiled by {@link
   * GoPattern} (the attribute actions' compiler): what RE2 refuses (look-around, back-references)
   * is refused when the configuration is checked.
   *
   * <p>Each value looked at is decoded into a {@code String} for the expressions, and the result
   * remembered in a least-recently-used map of {@code cache_max_size} entries (128 when 0), as the
   * Collector does, for values of at most {@link #MAX_CACHED_VALUE_BYTES} bytes: a longer one is
   * matched each time, so that what clients send does not stay held by the cache. Exact values are
   * compared as UTF-8 bytes without decoding.
   */
  static final class StringMatch extends AttributeMatch {
    private final byte[][] exact;
    private final Matcher[] regexes;
    private final Lru<String, Boolean> results;

    StringMatch(PolicyConfig.StringAttribute config) {
      super(config.key(), config.invertMatch());
      List<byte[]> kept = new ArrayList<>();
      List<Matcher> matchers = new ArrayList<>();
      if (config.enabledRegexMatching()) {
        for (String value : config.values()) {
          matchers.add(GoPattern.compile(value).pattern().matcher(""));
        }
        int size = config.cacheMaxSize() > 0 ? config.cacheMaxSize() : DEFAULT_CACHE_SIZE;
        this.results = new Lru<>(size);
      } else {
        for (String value : config.values()) {
          if (!value.isEmpty()) {
            kept.add(utf8(value));
          }
        }
        this.results = null;
      }
      this.exact = kept.toArray(new byte[0][]);
      this.regexes = matchers.toArray(new Matcher[0]);
    }

    @Override
    boolean matches(AnyValueView value, boolean onResource) {
      if (value.type() != ValueType.STRING) {
        return false;
      }
      TextView text = value.stringValue();
      if (!onResource && text.isEmpty()) {
        return false;
      }
      if (results == null) {
        for (byte[] candidate : exact) {
          if (text.contentEquals(candidate)) {
            return true;
          }
        }
        return false;
      }
      String s = text.asString();
      if (text.length() > MAX_CACHED_VALUE_BYTES) {
        return anyFinds(s);
      }
      Boolean known = results.get(s);
      if (known != null) {
        return known;
      }
      boolean matched = anyFinds(s);
      results.put(s, matched);
      return matched;
    }

    private boolean anyFinds(String value) {
      for (Matcher regex : regexes) {
        if (regex.reset(value).find()) {
          return true;
        }
      }
      return false;
    }

    /** Entries in the regular expressions' result cache (for tests). */
    int cachedResults() {
      return results == null ? 0 : results.size();
    }
  }
}
