package dev.sluice.processor.probabilisticsampler;

import static dev.sluice.processor.probabilisticsampler.SamplerHarness.attribute;
import static dev.sluice.processor.probabilisticsampler.SamplerHarness.config;
import static dev.sluice.processor.probabilisticsampler.SamplerHarness.span;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.internal.OtlpFields;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

class ProbabilisticSamplerTest {
  /** Trace IDs whose decisions at 25 % with seed 0 the Go table records (kept, dropped). */
  private static final String KEPT_AT_25 = "ddaa4e85b0d6e28b8f8ea9d349428d8e";

  private static List<String> traceIds(int count) {
    List<String> ids = new ArrayList<>();
    long state = 0x2545F4914F6CDD1DL;
    for (int i = 0; i < count; i++) {
      state ^= state << 13;
      state ^= state >>> 7;
      state ^= state << 17;
      long other = state * 0x9E3779B97F4A7C15L;
      ids.add(String.format(Locale.ROOT, "%016x%016x", state, other));
    }
    return ids;
  }

  private static ResourceSpans resource(String service, List<Span.Builder> spans) {
    ScopeSpans.Builder scope =
        ScopeSpans.newBuilder().setScope(InstrumentationScope.newBuilder().setName("lib"));
    spans.forEach(scope::addSpans);
    return ResourceSpans.newBuilder()
        .setResource(
            Resource.newBuilder()
                .addAttributes(
                    attribute("service.name", AnyValue.newBuilder().setStringValue(service))))
        .addScopeSpans(scope)
        .build();
  }

  private static List<Span.Builder> spans(int count) {
    List<Span.Builder> spans = new ArrayList<>();
    List<String> ids = traceIds(count);
    for (int i = 0; i < count; i++) {
      spans.add(span("s" + i, ids.get(i), ""));
    }
    return spans;
  }

  private static ExportTraceServiceRequest request(ResourceSpans... resources) {
    return ExportTraceServiceRequest.newBuilder().addAllResourceSpans(List.of(resources)).build();
  }

  private static List<Span> allSpans(ExportTraceServiceRequest request) {
    List<Span> spans = new ArrayList<>();
    request
        .getResourceSpansList()
        .forEach(r -> r.getScopeSpansList().forEach(s -> spans.addAll(s.getSpansList())));
    return spans;
  }

  @Test
  void zeroPercentDropsEverySpanAndPassesNothingOn() {
    SamplerHarness sampler = new SamplerHarness(config("", 0, 0), Signal.TRACES);
    ExportTraceServiceRequest out =
        sampler.traces(request(resource("a", spans(50)), resource("b", spans(50))));
    assertThat(out.getResourceSpansCount()).isZero();
    assertThat(sampler.passedOn()).isFalse();
  }

  @Test
  void hundredPercentKeepsEverySpanAndMarksItSampledAtThresholdZero() {
    for (String mode : List.of("hash_seed", "proportional", "equalizing")) {
      SamplerHarness sampler = new SamplerHarness(config(mode, 100, 0), Signal.TRACES);
      ExportTraceServiceRequest out = sampler.traces(request(resource("a", spans(200))));
      List<Span> kept = allSpans(out);
      assertThat(kept).as(mode).hasSize(200);
      assertThat(kept)
          .as(mode)
          .allSatisfy(s -> assertThat(s.getTraceState()).startsWith("ot=").endsWith("th:0"));
    }
  }

  @Test
  void keepsAboutThePercentageAndRewritesOnlyTheTraceStateOfKeptSpans() {
    List<Span.Builder> input = spans(4000);
    SamplerHarness sampler = new SamplerHarness(config("proportional", 25, 0), Signal.TRACES);
    List<Span> kept = allSpans(sampler.traces(request(resource("a", input))));
    assertThat(kept.size()).isBetween(800, 1200);
    for (Span span : kept) {
      Span original = input.get(Integer.parseInt(span.getName().substring(1))).build();
      assertThat(span.getTraceState()).isEqualTo("ot=th:c");
      assertThat(span.toBuilder().setTraceState("").build()).isEqualTo(original);
    }
  }

  @Test
  void aResourceWhoseSpansAllDropVanishesWithItsScope() {
    List<Span.Builder> dropped = spans(20);
    dropped.forEach(
        s -> s.addAttributes(attribute("sampling.priority", AnyValue.newBuilder().setIntValue(0))));
    List<Span.Builder> kept = spans(20);
    kept.forEach(
        s -> s.addAttributes(attribute("sampling.priority", AnyValue.newBuilder().setIntValue(1))));
    SamplerHarness sampler = new SamplerHarness(config("hash_seed", 50, 7), Signal.TRACES);
    ExportTraceServiceRequest out =
        sampler.traces(request(resource("dropped", dropped), resource("kept", kept)));
    assertThat(out.getResourceSpansCount()).isEqualTo(1);
    assertThat(out.getResourceSpans(0).getResource().getAttributes(0).getValue().getStringValue())
        .isEqualTo("kept");
    assertThat(out.getResourceSpans(0).getScopeSpansCount()).isEqualTo(1);
    assertThat(out.getResourceSpans(0).getScopeSpans(0).getSpansCount()).isEqualTo(20);
  }

  @Test
  void failClosedDropsSpansWithoutRandomnessAndFailOpenKeepsThemUnchangedWhereInvalid() {
    List<Span.Builder> spans =
        List.of(
            Span.newBuilder()
                .setName("no trace id")
                .setSpanId(SamplerHarness.hex("0102030405060708")),
            span("zero trace id", "00000000000000000000000000000000", ""),
            span("bad tracestate", KEPT_AT_25, "ot=th:zz"),
            span("good", KEPT_AT_25, ""));
    for (String mode : List.of("hash_seed", "proportional", "equalizing")) {
      ProbabilisticSamplerConfig closed = config(mode, 100, 0);
      List<String> keptClosed =
          allSpans(new SamplerHarness(closed, Signal.TRACES).traces(request(resource("a", spans))))
              .stream()
              .map(Span::getName)
              .toList();
      assertThat(keptClosed).as(mode).containsExactly("good");

      ProbabilisticSamplerConfig open =
          new ProbabilisticSamplerConfig(100, 0, mode, false, 4, "traceID", "", "");
      List<Span> keptOpen =
          allSpans(new SamplerHarness(open, Signal.TRACES).traces(request(resource("a", spans))));
      assertThat(keptOpen).as(mode).hasSize(4);
      assertThat(keptOpen.get(2).getTraceState()).as(mode).isEqualTo("ot=th:zz");
    }
  }

  @Test
  void samplingPriorityOverridesTheDecisionBothWays() {
    Span.Builder never =
        span("never", KEPT_AT_25, "")
            .addAttributes(attribute("sampling.priority", AnyValue.newBuilder().setDoubleValue(0)));
    Span.Builder always =
        span("always", "00000000000000000000000000000000", "")
            .addAttributes(
                attribute("sampling.priority", AnyValue.newBuilder().setStringValue("1_0")));
    SamplerHarness sampler = new SamplerHarness(config("hash_seed", 25, 0), Signal.TRACES);
    List<Span> kept = allSpans(sampler.traces(request(resource("a", List.of(never, always)))));
    assertThat(kept).extracting(Span::getName).containsExactly("always");
    assertThat(kept.get(0).getTraceState()).isEqualTo("ot=rv:ffffffffffffff;th:0");
  }

  @Test
  void aBatchOfferedAgainIsSampledAsOnceInHashSeedAndEqualizingModes() {
    for (String mode : List.of("hash_seed", "equalizing")) {
      SamplerHarness sampler = new SamplerHarness(config(mode, 30, 11), Signal.TRACES);
      ExportTraceServiceRequest once = sampler.traces(request(resource("a", spans(1000))));
      ExportTraceServiceRequest twice = sampler.traces(once);
      assertThat(allSpans(once).size()).as(mode).isBetween(200, 400);
      assertThat(twice).as(mode).isEqualTo(once);
    }
  }

  @Test
  void countsEveryDecisionByPolicyAndOutcome() {
    SamplerHarness sampler = new SamplerHarness(config("hash_seed", 25, 0), Signal.TRACES);
    List<Span.Builder> spans = spans(400);
    spans.add(span("zero", "00000000000000000000000000000000", ""));
    int kept = allSpans(sampler.traces(request(resource("a", spans)))).size();
    String text = sampler.prometheus();
    String labels = "processor=\"probabilistic_sampler\",policy=\"trace_id_hash\",sampled=\"";
    assertThat(text)
        .contains(
            "otelcol_processor_probabilistic_sampler_count_traces_sampled_total{"
                + labels
                + "true\"} "
                + kept)
        .contains(
            "otelcol_processor_probabilistic_sampler_count_traces_sampled_total{"
                + labels
                + "false\"} "
                + (400 - kept))
        .contains(
            "otelcol_processor_probabilistic_sampler_count_spans_processed_total{"
                + labels
                + "true\"} "
                + kept)
        .contains(
            "count_traces_sampled_total{processor=\"probabilistic_sampler\","
                + "policy=\"missing_randomness\",sampled=\"false\"} 1");
  }

  @Test
  void replacesEveryTraceStateFieldByOneAndKeepsEveryOtherFieldAsItWas() {
    // Fields out of number order, an unknown field, and two trace_state fields (the last counts,
    // as protobuf reads it).
    ByteString spanBytes =
        span("odd", KEPT_AT_25, "")
            .build()
            .toByteString()
            .concat(ByteString.copyFrom(new byte[] {(byte) 0xB8, 0x3E, 0x01})) // field 999: 1
            .concat(Span.newBuilder().setTraceState("junk=1").build().toByteString())
            .concat(Span.newBuilder().setTraceState("a=b").build().toByteString())
            .concat(Span.newBuilder().setFlags(0x101).build().toByteString());
    byte[] request =
        nest(
                OtlpFields.TracesRequest.RESOURCE_SPANS,
                nest(
                    OtlpFields.ResourceSpans.SCOPE_SPANS,
                    nest(OtlpFields.ScopeSpans.SPANS, spanBytes)))
            .toByteArray();
    SamplerHarness sampler = new SamplerHarness(config("hash_seed", 25, 0), Signal.TRACES);
    List<Span> kept = allSpans(sampler.traces(request));
    assertThat(kept).hasSize(1);
    Span span = kept.get(0);
    assertThat(span.getTraceState()).isEqualTo("ot=rv:e0a00b19c6c7d7;th:c,a=b");
    assertThat(span.getUnknownFields().hasField(999)).isTrue();
    assertThat(span.getFlags()).isEqualTo(0x101);
    assertThat(
            span.toBuilder()
                .clearTraceState()
                .setUnknownFields(com.google.protobuf.UnknownFieldSet.getDefaultInstance())
                .clearFlags()
                .build())
        .isEqualTo(span("odd", KEPT_AT_25, "").build());
  }

  /** {@code payload} as field {@code number} of a message. */
  private static ByteString nest(int number, ByteString payload) {
    ByteString.Output out = ByteString.newOutput();
    try {
      com.google.protobuf.CodedOutputStream coded =
          com.google.protobuf.CodedOutputStream.newInstance(out);
      coded.writeBytes(number, payload);
      coded.flush();
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
    return out.toByteString();
  }

  @Test
  void aKeptSpanLargerThanTheRetainedBufferIsWrittenWhole() {
    String big = "y".repeat((1 << 20) + 1000); // past the rewrite buffer's retained size
    Span.Builder large =
        span("large", KEPT_AT_25, "")
            .addAttributes(attribute("big", AnyValue.newBuilder().setStringValue(big)));
    SamplerHarness sampler = new SamplerHarness(config("hash_seed", 25, 0), Signal.TRACES);
    List<Span> kept = allSpans(sampler.traces(request(resource("a", List.of(large)))));
    assertThat(kept).hasSize(1);
    assertThat(kept.get(0).getAttributes(1).getValue().getStringValue()).isEqualTo(big);
    assertThat(kept.get(0).getTraceState()).isEqualTo("ot=rv:e0a00b19c6c7d7;th:c");
    List<Span> next =
        allSpans(sampler.traces(request(resource("a", List.of(span("small", KEPT_AT_25, ""))))));
    assertThat(next).extracting(Span::getTraceState).containsExactly("ot=rv:e0a00b19c6c7d7;th:c");
  }

  @Test
  void findsAPriorityWhoseKeyIsWrittenAfterItsValue() {
    ByteString keyValue =
        ByteString.copyFrom(new byte[] {0x12, 0x02, 0x18, 0x00}) // value { int_value: 0 }
            .concat(ByteString.copyFrom(new byte[] {0x0A, 0x11}))
            .concat(ByteString.copyFromUtf8("sampling.priority"));
    ByteString spanBytes =
        span("late key", KEPT_AT_25, "")
            .build()
            .toByteString()
            .concat(nest(OtlpFields.Span.ATTRIBUTES, keyValue));
    byte[] request =
        nest(
                OtlpFields.TracesRequest.RESOURCE_SPANS,
                nest(
                    OtlpFields.ResourceSpans.SCOPE_SPANS,
                    nest(OtlpFields.ScopeSpans.SPANS, spanBytes)))
            .toByteArray();
    SamplerHarness sampler = new SamplerHarness(config("hash_seed", 100, 0), Signal.TRACES);
    assertThat(allSpans(sampler.traces(request))).isEmpty();
    assertThat(
            allSpans(
                sampler.traces(request(resource("a", List.of(span("plain", KEPT_AT_25, "")))))))
        .hasSize(1);
  }

  @Test
  void refusesMetricsPipelines() {
    ProbabilisticSamplerProcessorFactory factory = new ProbabilisticSamplerProcessorFactory();
    assertThat(factory.signals()).containsExactlyInAnyOrder(Signal.TRACES, Signal.LOGS);
    ComponentSettings settings =
        new ComponentSettings(
            ComponentId.parse("probabilistic_sampler"),
            ComponentKind.PROCESSOR,
            new MetricRegistry());
    assertThatThrownBy(() -> factory.createFunction(settings, config("", 10, 0), Signal.METRICS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("does not support metrics");
  }
}
