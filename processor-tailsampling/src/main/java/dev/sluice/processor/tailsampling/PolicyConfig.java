package dev.sluice.processor.tailsampling;

import dev.sluice.component.OptionalSection;
import dev.sluice.ottl.ErrorMode;
import java.util.List;

/**
 * One sampling policy, with the OpenTelemetry Collector's keys: a {@code name} (shown in metrics),
 * a {@code type}, and the section of that type's settings ({@code latency:}, {@code
 * string_attribute:}, ...). A section that is left out reads as the Collector's zero values; a
 * section of another type than {@code type} is ignored, as the Collector ignores it.
 *
 * <p>The same record serves the sub-policies of {@code and}, {@code not}, {@code drop} and {@code
 * composite}; which types may stand where is checked when the policies are compiled ({@link
 * Policies}).
 */
public record PolicyConfig(
    String name,
    String type,
    @OptionalSection Latency latency,
    @OptionalSection NumericAttribute numericAttribute,
    @OptionalSection Probabilistic probabilistic,
    @OptionalSection StatusCode statusCode,
    @OptionalSection StringAttribute stringAttribute,
    @OptionalSection RateLimiting rateLimiting,
    @OptionalSection BytesLimiting bytesLimiting,
    @OptionalSection SpanCount spanCount,
    @OptionalSection TraceState traceState,
    @OptionalSection BooleanAttribute booleanAttribute,
    @OptionalSection OttlCondition ottlCondition,
    @OptionalSection Composite composite,
    @OptionalSection And and,
    @OptionalSection Not not,
    @OptionalSection Drop drop) {

  /** {@code latency}: the trace's duration (earliest start to latest end) in a range. */
  public record Latency(long thresholdMs, long upperThresholdMs) {}

  /** {@code numeric_attribute}: an int attribute of a span or its resource in a range. */
  public record NumericAttribute(String key, Long minValue, Long maxValue, boolean invertMatch) {}

  /** {@code probabilistic}: a share of traces, by a hash of the trace ID and the salt. */
  public record Probabilistic(String hashSalt, double samplingPercentage) {}

  /**
   * {@code status_code}: a span with one of the codes ({@code OK}, {@code ERROR}, {@code UNSET}).
   */
  public record StatusCode(List<String> statusCodes) {}

  /** {@code string_attribute}: a string attribute of a span or its resource among the values. */
  public record StringAttribute(
      String key,
      List<String> values,
      boolean enabledRegexMatching,
      int cacheMaxSize,
      boolean invertMatch) {}

  /** {@code rate_limiting}: traces while the spans sampled stay under a rate. */
  public record RateLimiting(long spansPerSecond, long burstCapacity) {}

  /** {@code bytes_limiting}: traces while the bytes sampled stay under a rate. */
  public record BytesLimiting(long bytesPerSecond, long burstCapacity) {}

  /** {@code span_count}: traces with at least {@code min_spans} (and at most {@code max_spans}). */
  public record SpanCount(int minSpans, int maxSpans) {}

  /** {@code trace_state}: a span whose trace_state has the key with one of the values. */
  public record TraceState(String key, List<String> values) {}

  /** {@code boolean_attribute}: a bool attribute of a span or its resource equal to the value. */
  public record BooleanAttribute(String key, boolean value, boolean invertMatch) {}

  /** {@code ottl_condition}: a span or span event for which an OTTL condition holds. */
  public record OttlCondition(ErrorMode errorMode, List<String> span, List<String> spanevent) {}

  /** {@code composite}: sub-policies in an order, each given a share of a span rate. */
  public record Composite(
      long maxTotalSpansPerSecond,
      List<String> policyOrder,
      List<PolicyConfig> compositeSubPolicy,
      List<RateAllocation> rateAllocation) {}

  /** A composite sub-policy's share of {@code max_total_spans_per_second}, in percent. */
  public record RateAllocation(String policy, long percent) {}

  /** {@code and}: every sub-policy samples. */
  public record And(List<PolicyConfig> andSubPolicy) {}

  /** {@code not}: the sub-policy's decision turned around. */
  public record Not(@OptionalSection PolicyConfig notSubPolicy) {}

  /**
   * {@code drop}: every sub-policy samples, and the trace is then dropped whatever else samples.
   */
  public record Drop(List<PolicyConfig> dropSubPolicy) {}
}
