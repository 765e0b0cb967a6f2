#!/usr/bin/env python3
"""Writes tailsampling.yaml: one tail_sampling processor, file exporter and pipeline per case.

    python3 bench/peers/conformance/make-tailsampling-config.py \\
        > bench/peers/conformance/tailsampling.yaml

Each case is its policies (the processor section below decision_wait) and a comment line.
"""
import sys

CASES = []  # (name, comment, the processor's settings below decision_wait)


def case(name, comment, body):
    CASES.append((name, comment, body.strip("\n")))


case("always_sample", "Every trace.", """
    policies:
      - name: all
        type: always_sample
""")
case("latency", "Longer than 100 ms, first start to last end (whole milliseconds).", """
    policies:
      - name: slow
        type: latency
        latency:
          threshold_ms: 100
""")
case("latency_upper", "Longer than 100 ms and at most 500 ms.", """
    policies:
      - name: slow_not_stuck
        type: latency
        latency:
          threshold_ms: 100
          upper_threshold_ms: 500
""")
case("numeric_attribute", "app.level (an int) from 400 to 499, on a span or its resource.", """
    policies:
      - name: level_4xx
        type: numeric_attribute
        numeric_attribute:
          key: app.level
          min_value: 400
          max_value: 499
""")
case("numeric_attribute_invert", "No span or resource with app.level from 400 to 499.", """
    policies:
      - name: no_level_4xx
        type: numeric_attribute
        numeric_attribute:
          key: app.level
          min_value: 400
          max_value: 499
          invert_match: true
""")
case("numeric_attribute_min", "app.level of at least 500 (no max_value).", """
    policies:
      - name: level_5xx_up
        type: numeric_attribute
        numeric_attribute:
          key: app.level
          min_value: 500
""")
case("numeric_attribute_max", "app.level of at most 99 (no min_value).", """
    policies:
      - name: level_low
        type: numeric_attribute
        numeric_attribute:
          key: app.level
          max_value: 99
""")
case("numeric_attribute_zero_min", "min_value 0 and max_value 10 (the Collector reads a 0 bound as no bound).", """
    policies:
      - name: level_0_10
        type: numeric_attribute
        numeric_attribute:
          key: app.level
          min_value: 0
          max_value: 10
""")
case("probabilistic", "30 % of the trace IDs, by their hash with a salt.", """
    policies:
      - name: share
        type: probabilistic
        probabilistic:
          sampling_percentage: 30
          hash_salt: conformance
""")
case("probabilistic_default_salt", "50 % of the trace IDs, with the default salt.", """
    policies:
      - name: half
        type: probabilistic
        probabilistic:
          sampling_percentage: 50
""")
case("status_code", "A span with status ERROR.", """
    policies:
      - name: errors
        type: status_code
        status_code:
          status_codes: [ERROR]
""")
case("status_code_ok_unset", "A span with status OK or UNSET.", """
    policies:
      - name: not_only_errors
        type: status_code
        status_code:
          status_codes: [OK, UNSET]
""")
case("string_attribute", "app.route exactly /checkout or /cart, on a span or its resource.", """
    policies:
      - name: routes
        type: string_attribute
        string_attribute:
          key: app.route
          values: [/checkout, /cart]
""")
case("string_attribute_regex", "app.route matching either regular expression.", """
    policies:
      - name: route_patterns
        type: string_attribute
        string_attribute:
          key: app.route
          values: ["^/api/v[0-9]+/orders", "^/health$"]
          enabled_regex_matching: true
          cache_max_size: 4
""")
case("string_attribute_regex_empty", "app.route matching ^$ (an empty value, or one of another type).", """
    policies:
      - name: route_empty
        type: string_attribute
        string_attribute:
          key: app.route
          values: ["^$"]
          enabled_regex_matching: true
""")
case("string_attribute_invert", "No span or resource with app.route exactly /health.", """
    policies:
      - name: not_health
        type: string_attribute
        string_attribute:
          key: app.route
          values: [/health]
          invert_match: true
""")
case("string_attribute_regex_invert", "No span or resource with app.route matching ^/health.", """
    policies:
      - name: not_health_like
        type: string_attribute
        string_attribute:
          key: app.route
          values: ["^/health"]
          enabled_regex_matching: true
          invert_match: true
""")
case("span_count_min", "At least 5 spans.", """
    policies:
      - name: big
        type: span_count
        span_count:
          min_spans: 5
""")
case("span_count_range", "2 to 4 spans.", """
    policies:
      - name: medium
        type: span_count
        span_count:
          min_spans: 2
          max_spans: 4
""")
case("trace_state", "A span whose W3C tracestate has vendor=on or vendor=yes.", """
    policies:
      - name: vendor_on
        type: trace_state
        trace_state:
          key: vendor
          values: ["on", "yes"]
""")
case("boolean_attribute", "app.debug true, on a span or its resource.", """
    policies:
      - name: debug
        type: boolean_attribute
        boolean_attribute:
          key: app.debug
          value: true
""")
case("boolean_attribute_invert", "No span or resource with app.debug true.", """
    policies:
      - name: not_debug
        type: boolean_attribute
        boolean_attribute:
          key: app.debug
          value: true
          invert_match: true
""")
case("boolean_attribute_false", "app.debug false, on a span or its resource.", """
    policies:
      - name: not_debug_flag
        type: boolean_attribute
        boolean_attribute:
          key: app.debug
          value: false
""")
case("trace_flags", "A span with the W3C sampled flag.", """
    policies:
      - name: sampled_upstream
        type: trace_flags
""")
case("ottl_condition_span", "OTTL conditions on spans (either holds).", """
    policies:
      - name: ottl_spans
        type: ottl_condition
        ottl_condition:
          error_mode: ignore
          span:
            - attributes["app.retries"] > 2
            - name == "charge card" and status.code == STATUS_CODE_ERROR
""")
case("ottl_condition_spanevent", "An OTTL condition on span events.", """
    policies:
      - name: ottl_events
        type: ottl_condition
        ottl_condition:
          error_mode: ignore
          spanevent:
            - name == "exception" and attributes["exception.type"] == "TimeoutError"
""")
case("and", "A span with status ERROR and app.route /checkout (anywhere in the trace).", """
    policies:
      - name: failed_checkout
        type: and
        and:
          and_sub_policy:
            - name: errors
              type: status_code
              status_code:
                status_codes: [ERROR]
            - name: checkout
              type: string_attribute
              string_attribute:
                key: app.route
                values: [/checkout]
""")
case("and_not", "At least 2 spans and not app.route /health (a not under an and).", """
    policies:
      - name: multi_not_health
        type: and
        and:
          and_sub_policy:
            - name: multi
              type: span_count
              span_count:
                min_spans: 2
            - name: not_health
              type: not
              not:
                not_sub_policy:
                  name: health
                  type: string_attribute
                  string_attribute:
                    key: app.route
                    values: [/health]
""")
case("not", "No span with status ERROR.", """
    policies:
      - name: no_errors
        type: not
        not:
          not_sub_policy:
            name: errors
            type: status_code
            status_code:
              status_codes: [ERROR]
""")
case("drop", "Every trace but those with app.route ^/health and at most 2 spans.", """
    policies:
      - name: all
        type: always_sample
      - name: drop_short_health
        type: drop
        drop:
          drop_sub_policy:
            - name: health
              type: string_attribute
              string_attribute:
                key: app.route
                values: ["^/health"]
                enabled_regex_matching: true
            - name: short
              type: span_count
              span_count:
                min_spans: 1
                max_spans: 2
""")
case("composite", "Errors, slow traces, or checkouts at level 4xx; rates far above the input.", """
    policies:
      - name: mix
        type: composite
        composite:
          max_total_spans_per_second: 1000000
          policy_order: [errors, slow, checkout_4xx]
          composite_sub_policy:
            - name: errors
              type: status_code
              status_code:
                status_codes: [ERROR]
            - name: slow
              type: latency
              latency:
                threshold_ms: 300
            - name: checkout_4xx
              type: and
              and:
                and_sub_policy:
                  - name: checkout
                    type: string_attribute
                    string_attribute:
                      key: app.route
                      values: [/checkout]
                  - name: level_4xx
                    type: numeric_attribute
                    numeric_attribute:
                      key: app.level
                      min_value: 400
                      max_value: 499
          rate_allocation:
            - policy: errors
              percent: 50
            - policy: slow
              percent: 30
""")
case("precedence", "An inverted match beside a sampling policy: not /health, or an error.", """
    policies:
      - name: not_health
        type: string_attribute
        string_attribute:
          key: app.route
          values: [/health]
          invert_match: true
      - name: errors
        type: status_code
        status_code:
          status_codes: [ERROR]
""")
case("sample_on_first_match", "Stops at the first policy that samples; the drop policy, listed last, still drops.", """
    sample_on_first_match: true
    policies:
      - name: errors
        type: status_code
        status_code:
          status_codes: [ERROR]
      - name: slow
        type: latency
        latency:
          threshold_ms: 200
      - name: debug
        type: boolean_attribute
        boolean_attribute:
          key: app.debug
          value: true
      - name: drop_health
        type: drop
        drop:
          drop_sub_policy:
            - name: health
              type: string_attribute
              string_attribute:
                key: app.route
                values: [/health]
""")


out = []
w = out.append
w("""# The tail_sampling processor, one pipeline per policy case, that conformance-tailsampling.sh runs
# in Sluice and in the Go collector's v0.161.0 build, both unchanged, on tailsampling-traces.json.
# Each case's processor decides the traces 3 s after their first span (every span is sent well
# within that) and writes the spans it keeps with the file exporter to
# ${env:CONFORMANCE_OUT}/tailsampling_<case>.json. Left out: rate_limiting and bytes_limiting
# (what they keep depends on when the traces are decided).
# Written by make-tailsampling-config.py; edit that and run it again.
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${env:CONFORMANCE_PORT}

processors:""")
for name, comment, body in CASES:
    w("  # %s" % comment)
    w("  tail_sampling/%s:" % name)
    w("    decision_wait: 3s")
    w(body)
w("")
w("exporters:")
for name, _, _ in CASES:
    w("  file/%s:" % name)
    w("    path: ${env:CONFORMANCE_OUT}/tailsampling_%s.json" % name)
w("")
w("""service:
  telemetry:
    metrics:
      level: none
  pipelines:""")
for name, _, _ in CASES:
    w("    traces/%s:" % name)
    w("      receivers: [otlp]")
    w("      processors: [tail_sampling/%s]" % name)
    w("      exporters: [file/%s]" % name)
sys.stdout.write("\n".join(out) + "\n")
