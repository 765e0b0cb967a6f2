package dev.sluice.processor.tailsampling;

import dev.sluice.component.ConfigProblems;
import dev.sluice.config.ConfigBinder;
import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigProblem;
import dev.sluice.ottl.ErrorMode;
import java.util.List;

/** Test policies: configurations written in code or bound from YAML, and plain traces. */
final class Policy {
  private Policy() {}

  /** A policy of {@code type} with every section left out. */
  static PolicyConfig of(String name, String type) {
    return new PolicyConfig(
        name, type, null, null, null, null, null, null, null, null, null, null, null, null, null,
        null, null);
  }

  static PolicyConfig rateLimiting(String name, long spansPerSecond, long burstCapacity) {
    PolicyConfig p = of(name, "rate_limiting");
    return new PolicyConfig(
        p.name(),
        p.type(),
        null,
        null,
        null,
        null,
        null,
        new PolicyConfig.RateLimiting(spansPerSecond, burstCapacity),
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null);
  }

  static PolicyConfig bytesLimiting(String name, long bytesPerSecond, long burstCapacity) {
    PolicyConfig p = of(name, "bytes_limiting");
    return new PolicyConfig(
        p.name(),
        p.type(),
        null,
        null,
        null,
        null,
        null,
        null,
        new PolicyConfig.BytesLimiting(bytesPerSecond, burstCapacity),
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null);
  }

  static PolicyConfig ottl(String name, ErrorMode mode, List<String> span, List<String> event) {
    return new PolicyConfig(
        name,
        "ottl_condition",
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        new PolicyConfig.OttlCondition(mode, span, event),
        null,
        null,
        null,
        null);
  }

  static PolicyConfig and(String name, PolicyConfig... subs) {
    return new PolicyConfig(
        name,
        "and",
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        new PolicyConfig.And(List.of(subs)),
        null,
        null);
  }

  static PolicyConfig composite(
      String name,
      long maxTotal,
      List<String> order,
      List<PolicyConfig.RateAllocation> allocations,
      PolicyConfig... subs) {
    return new PolicyConfig(
        name,
        "composite",
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        new PolicyConfig.Composite(maxTotal, order, List.of(subs), allocations),
        null,
        null,
        null);
  }

  /**
   * A trace without spans: {@code spanCount} spans of {@code bytes} bytes, decided at {@code
   * nowNanos}.
   */
  static TraceData sized(long nowNanos, long spanCount, long bytes) {
    TraceData trace = new TraceData(1, 2, nowNanos, nowNanos);
    trace.spanCount = spanCount;
    trace.bytes = bytes;
    trace.nowNanos = nowNanos;
    return trace;
  }

  /** The problems {@link Policies#validate} finds in {@code policies}. */
  static List<ConfigProblems.Problem> problems(PolicyConfig... policies) {
    ConfigProblems problems = new ConfigProblems();
    Policies.validate(List.of(policies), problems);
    return problems.all();
  }

  /** The tail_sampling configuration in {@code yaml}, bound and validated as the collector does. */
  static TailSamplingConfig config(String yaml) throws ConfigException {
    return new ConfigBinder()
        .bind(yaml, "tail_sampling.yaml", TailSamplingConfig.class, TailSamplingConfig.DEFAULT);
  }

  /** The problems binding {@code yaml} reports, as "path: message". */
  static List<String> yamlProblems(String yaml) {
    try {
      config(yaml);
      return List.of();
    } catch (ConfigException e) {
      return e.problems().stream().map(p -> p.path() + ": " + p.message()).toList();
    }
  }

  static ConfigProblem firstProblem(String yaml) {
    try {
      config(yaml);
      throw new AssertionError("expected a problem in " + yaml);
    } catch (ConfigException e) {
      return e.problems().get(0);
    }
  }
}
