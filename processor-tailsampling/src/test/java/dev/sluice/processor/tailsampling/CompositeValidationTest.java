package dev.sluice.processor.tailsampling;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.ConfigProblem;
import org.junit.jupiter.api.Test;

class CompositeValidationTest {
  private static final String COND = "{span: ['name == \"a\"']}";

  private static String ottl(String name) {
    return "{name: " + name + ", type: ottl_condition, ottl_condition: " + COND + "}";
  }

  @Test
  void acceptsEveryNestingTheCollectorBuilds() {
    assertThat(
            Policy.yamlProblems(
                """
                policies:
                  - name: c
                    type: composite
                    composite:
                      max_total_spans_per_second: 100
                      composite_sub_policy:
                        - name: and-under-composite
                          type: and
                          and:
                            and_sub_policy:
                              - {name: n, type: not, not: {not_sub_policy: %1$s}}
                              - %1$s
                        - {name: rate, type: rate_limiting, rate_limiting: {spans_per_second: 5}}
                  - name: a
                    type: and
                    and: {and_sub_policy: [{name: n, type: not, not: {not_sub_policy: %1$s}}]}
                  - name: d
                    type: drop
                    drop: {drop_sub_policy: [{name: n, type: not, not: {not_sub_policy: %1$s}}]}
                  - {name: n, type: not, not: {not_sub_policy: %1$s}}
                """
                    .formatted(ottl("o"))))
        .isEmpty();
  }

  @Test
  void refusesEveryNestingTheCollectorDoesNotBuild() {
    // Go's sub-policy records have no section for these types, so it reports them as unknown.
    assertThat(
            Policy.yamlProblems(
                """
                policies:
                  - name: c
                    type: composite
                    composite:
                      max_total_spans_per_second: 100
                      composite_sub_policy:
                        - {name: c2, type: composite}
                        - {name: n, type: not, not: {not_sub_policy: %1$s}}
                        - {name: d, type: drop, drop: {drop_sub_policy: [%1$s]}}
                  - name: a
                    type: and
                    and:
                      and_sub_policy:
                        - {name: a2, type: and, and: {and_sub_policy: [%1$s]}}
                        - {name: d, type: drop, drop: {drop_sub_policy: [%1$s]}}
                        - {name: c, type: composite}
                  - name: d
                    type: drop
                    drop: {drop_sub_policy: [{name: a, type: and, and: {and_sub_policy: [%1$s]}}]}
                  - name: n
                    type: not
                    not: {not_sub_policy: {name: n2, type: not, not: {not_sub_policy: %1$s}}}
                """
                    .formatted(ottl("o"))))
        .containsExactlyInAnyOrder(
            "policies[0].composite.composite_sub_policy[0].type: a \"composite\" policy cannot"
                + " stand under composite",
            "policies[0].composite.composite_sub_policy[1].type: a \"not\" policy cannot stand"
                + " under composite",
            "policies[0].composite.composite_sub_policy[2].type: a \"drop\" policy cannot stand"
                + " under composite",
            "policies[1].and.and_sub_policy[0].type: a \"and\" policy cannot stand under and or"
                + " drop",
            "policies[1].and.and_sub_policy[1].type: a \"drop\" policy cannot stand under and or"
                + " drop",
            "policies[1].and.and_sub_policy[2].type: a \"composite\" policy cannot stand under and"
                + " or drop",
            "policies[2].drop.drop_sub_policy[0].type: a \"and\" policy cannot stand under and or"
                + " drop",
            "policies[3].not.not_sub_policy.type: a \"not\" policy cannot stand under not");
  }

  @Test
  void checksTheSubPoliciesOwnSettingsAtTheirKeys() {
    assertThat(
            Policy.yamlProblems(
                """
                policies:
                  - name: a
                    type: and
                    and:
                      and_sub_policy:
                        - {name: r, type: rate_limiting}
                        - {name: n, type: not, not: {not_sub_policy: {name: o, type: ottl_condition}}}
                """))
        .containsExactlyInAnyOrder(
            "policies[0].and.and_sub_policy[0].rate_limiting.spans_per_second: must be at least 1"
                + " (spans per second), was 0",
            "policies[0].and.and_sub_policy[1].not.not_sub_policy.ottl_condition: expected at"
                + " least one OTTL condition, under span or spanevent, such as: span:"
                + " ['attributes[\"http.response.status_code\"] >= 500']");
  }

  @Test
  void refusesEmptyAndDropAndCompositeAndANotWithoutItsPolicy() {
    assertThat(
            Policy.yamlProblems(
                """
                policies:
                  - {name: a, type: and}
                  - {name: d, type: drop, drop: {drop_sub_policy: []}}
                  - {name: n, type: not}
                  - {name: c, type: composite, composite: {max_total_spans_per_second: 10}}
                  - {name: n2, type: not, not: {not_sub_policy: {name: x}}}
                """))
        .containsExactlyInAnyOrder(
            "policies[0].and.and_sub_policy: no sub-policies: name at least one",
            "policies[1].drop.drop_sub_policy: no sub-policies: name at least one",
            "policies[2].not.not_sub_policy: missing: a not policy needs the policy it turns"
                + " around",
            "policies[3].composite.composite_sub_policy: no sub-policies: name at least one",
            "policies[4].not.not_sub_policy.type: every policy needs a type");
  }

  @Test
  void checksPolicyOrderAndRateAllocationAgainstTheSubPolicies() {
    assertThat(
            Policy.yamlProblems(
                """
                policies:
                  - name: c
                    type: composite
                    composite:
                      max_total_spans_per_second: 0
                      policy_order: [a, b, a, zz]
                      composite_sub_policy: [%1$s, %2$s, %3$s]
                      rate_allocation:
                        - {policy: a, percent: 60}
                        - {policy: b, percent: 50}
                        - {policy: a, percent: 5}
                        - {policy: nope, percent: 10}
                        - {policy: c, percent: 0}
                """
                    .formatted(ottl("a"), ottl("b"), ottl("c"))))
        .containsExactlyInAnyOrder(
            "policies[0].composite.max_total_spans_per_second: must be at least 1 (spans per"
                + " second), was 0",
            "policies[0].composite.policy_order[2]: \"a\" is listed twice",
            "policies[0].composite.policy_order[3]: names no sub-policy: \"zz\"; the sub-policies"
                + " are \"a\", \"b\", \"c\"",
            "policies[0].composite.rate_allocation[2].policy: \"a\" is given a share twice",
            "policies[0].composite.rate_allocation[3].policy: names no sub-policy: \"nope\"; the"
                + " sub-policies are \"a\", \"b\", \"c\"",
            "policies[0].composite.rate_allocation[4].percent: must be 1 to 100, was 0 (a"
                + " sub-policy left out of rate_allocation gets an equal share)",
            "policies[0].composite.rate_allocation: the percents add up to 125, more than 100");
  }

  @Test
  void refusesTwoSubPoliciesOfOneName() {
    assertThat(
            Policy.yamlProblems(
                """
                policies:
                  - name: c
                    type: composite
                    composite:
                      max_total_spans_per_second: 10
                      composite_sub_policy: [%1$s, %1$s]
                """
                    .formatted(ottl("a"))))
        .containsExactly(
            "policies[0].composite.composite_sub_policy[1].name: sub-policy name \"a\" is used"
                + " twice: policy_order and rate_allocation name sub-policies by it");
  }

  @Test
  void placesAProblemInTheFile() {
    ConfigProblem problem =
        Policy.firstProblem(
            """
            policies:
              - name: c
                type: composite
                composite:
                  max_total_spans_per_second: 10
                  composite_sub_policy:
                    - %s
                  rate_allocation:
                    - policy: b
                      percent: 10
            """
                .formatted(ottl("a")));
    assertThat(problem.path()).isEqualTo("policies[0].composite.rate_allocation[0].policy");
    assertThat(problem.location().line()).isEqualTo(9);
  }
}
