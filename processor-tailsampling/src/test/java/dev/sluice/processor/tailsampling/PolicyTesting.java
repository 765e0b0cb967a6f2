package dev.sluice.processor.tailsampling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.config.ConfigBinder;
import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigProblem;
import dev.sluice.pdata.build.TracesBuilder;
import dev.sluice.pdata.build.TracesBuilder.SpanWriter;
import dev.sluice.pdata.codec.OtlpIndex;
import java.util.List;

/** Policies loaded through the real config loader, and traces to decide on. */
final class PolicyTesting {
  static final byte[] TRACE_ID = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

  private PolicyTesting() {}

  /** The tail_sampling configuration {@code yaml}, bound and validated. */
  static TailSamplingConfig load(String yaml) throws ConfigException {
    return new ConfigBinder()
        .bind(yaml, "tail_sampling.yaml", TailSamplingConfig.class, TailSamplingConfig.DEFAULT);
  }

  /** One policy written in YAML flow style ({@code {name: p, type: ..., ...}}), compiled. */
  static PolicyEvaluator compile(String policy) {
    try {
      return Policies.compileOne(load("policies: [" + policy + "]\n").policies().get(0));
    } catch (ConfigException e) {
      throw new AssertionError("refused: " + e.problems(), e);
    }
  }

  /** The problems the loader reports for one policy written in YAML flow style. */
  static List<ConfigProblem> problems(String policy) {
    ConfigException e =
        catchThrowableOfType(ConfigException.class, () -> load("policies: [" + policy + "]\n"));
    assertThat(e).as("the policy should be refused: " + policy).isNotNull();
    return e.problems();
  }

  /** A request with one resource block and one scope block, to add spans to. */
  static TracesBuilder request() {
    TracesBuilder traces = new TracesBuilder();
    traces.resource();
    traces.scope().name("test");
    return traces;
  }

  /** Begins span {@code n} of the trace in {@code traces}. */
  static SpanWriter span(TracesBuilder traces, int n) {
    return traces
        .span()
        .traceId(TRACE_ID)
        .spanId(new byte[] {0, 0, 0, 0, 0, 0, 0, (byte) n})
        .name("span-" + n);
  }

  /** {@code policy}'s decision on a trace of the spans of {@code requests}. */
  static Decision decide(PolicyEvaluator policy, OtlpIndex... requests) {
    TraceData trace = Held.trace(0, requests);
    try {
      return policy.evaluate(trace);
    } finally {
      trace.spans().clear();
    }
  }

  /** {@code policy}'s decision on a trace of the spans of {@code requests}. */
  static Decision decide(PolicyEvaluator policy, TracesBuilder... requests) {
    OtlpIndex[] built = new OtlpIndex[requests.length];
    for (int i = 0; i < requests.length; i++) {
      built[i] = requests[i].build();
    }
    return decide(policy, built);
  }
}
