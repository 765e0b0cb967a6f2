package dev.sluice.processor.tailsampling;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ConfigBinder;
import dev.sluice.config.ConfigException;
import dev.sluice.pdata.build.TracesBuilder;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.view.SpanView;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Policies decided from one walk shared by all of them ({@link SpanWalk#walkTogether}, as the
 * processor decides) answer as each of them walking the spans alone does: random traces (statuses,
 * times, attributes of every type on spans and resources, tracestates, flags, events) in a row,
 * under random lists of the policies that walk spans, nested in {@code and}, {@code not} and {@code
 * drop} too. Stale state carried from one trace to the next, or a walk a policy misses, shows as a
 * different answer.
 */
class SharedWalkPropertyTest {
  private static final String[] POLICIES = {
    "{name: P, type: status_code, status_code: {status_codes: [ERROR]}}",
    "{name: P, type: status_code, status_code: {status_codes: [OK, UNSET]}}",
    "{name: P, type: latency, latency: {threshold_ms: 40}}",
    "{name: P, type: latency, latency: {threshold_ms: 10, upper_threshold_ms: 60}}",
    "{name: P, type: numeric_attribute, numeric_attribute: {key: n, min_value: 2, max_value: 5}}",
    "{name: P, type: numeric_attribute,"
        + " numeric_attribute: {key: n, min_value: 3, invert_match: true}}",
    "{name: P, type: string_attribute, string_attribute: {key: s, values: [a, c]}}",
    "{name: P, type: string_attribute,"
        + " string_attribute: {key: s, values: ['^b'], enabled_regex_matching: true}}",
    "{name: P, type: string_attribute,"
        + " string_attribute: {key: s, values: [a], invert_match: true}}",
    "{name: P, type: boolean_attribute, boolean_attribute: {key: b, value: true}}",
    "{name: P, type: trace_state, trace_state: {key: k, values: [v1]}}",
    "{name: P, type: trace_flags}",
    "{name: P, type: ottl_condition, ottl_condition: {span: ['attributes[\"s\"] == \"b\"']}}",
    "{name: P, type: ottl_condition, ottl_condition: {spanevent: ['name == \"retry\"']}}",
  };

  @Test
  void aSharedWalkDecidesAsEachPolicyWalkingAlone() throws ConfigException {
    SplittableRandom random = new SplittableRandom(30);
    int compared = 0;
    for (int round = 0; round < 60; round++) {
      String yaml = policies(random);
      List<Policies.Named> shared = Policies.compile(config(yaml).policies());
      List<Policies.Named> alone = Policies.compile(config(yaml).policies());
      List<SpanWalk> walks = new ArrayList<>();
      shared.forEach(policy -> policy.evaluator().collectWalks(walks));
      SpanWalk[] walkArray = walks.toArray(new SpanWalk[0]);
      for (int t = 0; t < 20; t++) {
        TraceData trace = Held.trace(0, trace(random, t));
        try {
          List<Decision> together = new ArrayList<>();
          SpanWalk.walkTogether(
              walkArray,
              trace,
              () -> shared.forEach(policy -> together.add(policy.evaluator().evaluate(trace))));
          List<Decision> separately = new ArrayList<>();
          alone.forEach(policy -> separately.add(policy.evaluator().evaluate(trace)));
          assertThat(together).as("%s, trace %d", yaml, t).isEqualTo(separately);
          compared += together.size();
        } finally {
          trace.spans().clear();
        }
      }
    }
    assertThat(compared).isGreaterThan(1000);
  }

  private static String policies(SplittableRandom random) {
    StringBuilder yaml = new StringBuilder("policies:\n");
    int count = 2 + random.nextInt(4);
    for (int i = 0; i < count; i++) {
      String name = "p" + i;
      int shape = random.nextInt(6);
      if (shape == 0) {
        yaml.append("  - {name: ")
            .append(name)
            .append(", type: and, and: {and_sub_policy: [")
            .append(pick(random, name + "a"))
            .append(", ")
            .append(pick(random, name + "b"))
            .append("]}}\n");
      } else if (shape == 1) {
        yaml.append("  - {name: ")
            .append(name)
            .append(", type: not, not: {not_sub_policy: ")
            .append(pick(random, name + "n"))
            .append("}}\n");
      } else if (shape == 2) {
        yaml.append("  - {name: ")
            .append(name)
            .append(", type: drop, drop: {drop_sub_policy: [")
            .append(pick(random, name + "d"))
            .append("]}}\n");
      } else {
        yaml.append("  - ").append(pick(random, name)).append('\n');
      }
    }
    return yaml.toString();
  }

  private static String pick(SplittableRandom random, String name) {
    return POLICIES[random.nextInt(POLICIES.length)].replace("name: P", "name: " + name);
  }

  private static TailSamplingConfig config(String yaml) throws ConfigException {
    return new ConfigBinder()
        .bind(yaml, "tail_sampling.yaml", TailSamplingConfig.class, TailSamplingConfig.DEFAULT);
  }

  /** One trace of one to six spans under one or two resources, with values drawn at random. */
  private static OtlpIndex trace(SplittableRandom random, int number) {
    TracesBuilder builder = new TracesBuilder();
    byte[] traceId = ByteBuffer.allocate(16).putLong(0xfeedL).putLong(number + 1L).array();
    int resources = 1 + random.nextInt(2);
    long base = 1_000_000_000_000L;
    for (int r = 0; r < resources; r++) {
      builder.resource();
      if (random.nextBoolean()) {
        builder.resource().attributes().put("s", random.nextBoolean() ? "a" : "b");
      }
      if (random.nextInt(3) == 0) {
        builder.resource().attributes().put("n", (long) random.nextInt(8));
      }
      builder.scope();
      int spans = 1 + random.nextInt(3);
      for (int i = 0; i < spans; i++) {
        long start = base + random.nextLong(50_000_000L);
        TracesBuilder.SpanWriter span =
            builder
                .span()
                .traceId(traceId)
                .spanId(ByteBuffer.allocate(8).putLong(r * 10L + i + 1).array())
                .name("s" + i)
                .kind(SpanView.KIND_SERVER)
                .startTimeUnixNano(start)
                .endTimeUnixNano(start + random.nextLong(40_000_000L))
                .status(random.nextInt(3), "")
                .flags(random.nextInt(2));
        if (random.nextInt(3) == 0) {
          span.traceState(random.nextBoolean() ? "k=v1,x=y" : "k=v2");
        }
        switch (random.nextInt(5)) {
          case 0 -> span.attributes().put("s", new String[] {"a", "b", "c", ""}[random.nextInt(4)]);
          case 1 -> span.attributes().put("n", (long) random.nextInt(8));
          case 2 -> span.attributes().put("b", random.nextBoolean());
          case 3 -> span.attributes().put("s", (long) random.nextInt(3));
          default -> {}
        }
        if (random.nextInt(4) == 0) {
          span.event().name(random.nextBoolean() ? "retry" : "log");
        }
      }
    }
    return builder.build();
  }
}
