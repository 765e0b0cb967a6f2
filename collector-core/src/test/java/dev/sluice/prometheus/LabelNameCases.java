package dev.sluice.prometheus;

import java.util.ArrayList;
import java.util.List;

/**
 * What the Collector v0.161 names OTLP attribute keys as labels: the situations otlptranslator
 * v1.0.0's own tests cover (with the exporters' setting of its underscore option) and corners they
 * do not. An empty expected label means the Collector refuses the key.
 */
final class LabelNameCases {
  record Case(String key, String escaped, String kept) {
    @Override
    public String toString() {
      return "'" + key + "' -> '" + escaped + "' / '" + kept + "'";
    }
  }

  private LabelNameCases() {}

  /** Each key with its label under the escaping strategies and under the UTF-8 ones. */
  static List<Case> all() {
    List<Case> cases = new ArrayList<>();
    // Invalid characters, and runs of them with underscores, become one underscore.
    cases.add(same("pod:name:short", "pod_name_short"));
    cases.add(same("MixedCaseKey", "MixedCaseKey"));
    cases.add(same("weird!key&with$marks)", "weird_key_with_marks_"));
    cases.add(same("region_名前", "region_"));
    cases.add(same("http.request.method", "http_request_method"));
    cases.add(same("k8s.pod.uid", "k8s_pod_uid"));
    cases.add(same("two__underscores__each", "two_underscores_each"));
    cases.add(same("dots.and__marks&&here##too", "dots_and_marks_here_too"));
    cases.add(same("tail_runs___", "tail_runs_"));
    cases.add(same("with space", "with_space"));
    cases.add(same("emoji😀key", "emoji_key"));
    // A leading digit gets key_, a single leading underscore key.
    cases.add(same("42answers", "key_42answers"));
    cases.add(same("0day", "key_0day"));
    cases.add(same("_private", "key_private"));
    cases.add(same("__double_start", "key_double_start"));
    cases.add(same(".dot.first", "key_dot_first"));
    cases.add(same("😀x", "key_x"));
    // Not in otlptranslator's tests: a key of no valid character at all keeps a name, key_.
    cases.add(same("ようこそ", "key_"));
    cases.add(new Case("__", "key_", ""));
    // Reserved names keep their double underscores.
    cases.add(same("__name__", "__name__"));
    cases.add(same("__meta__label__here__", "__meta_label_here__"));
    cases.add(same("__a..b__", "__a_b__"));
    cases.add(same("___a___", "___a___"));
    // Refused: empty, or underscores only.
    cases.add(new Case("", "", ""));
    cases.add(new Case("____", "", ""));
    cases.add(new Case("__.__", "", "__.__"));
    cases.add(new Case("_____", "", ""));
    return cases;
  }

  /** A key kept as it is by the UTF-8 strategies. */
  private static Case same(String key, String escaped) {
    return new Case(key, escaped, key);
  }
}
