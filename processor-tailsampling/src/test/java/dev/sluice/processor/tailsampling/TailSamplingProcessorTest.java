package dev.sluice.processor.tailsampling;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchConsumer;
import dev.sluice.component.ComponentKind;
import dev.sluice.config.ConfigBinder;
import dev.sluice.config.ConfigException;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.build.TracesBuilder;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.pdata.view.SpanView;
import dev.sluice.testkit.ManualScheduler;
import dev.sluice.testkit.PipelineFixture;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The processor's holding, timing, bounds and hand-off, with policies given as plain evaluators:
 * the timers run on a manual clock, the output is parsed with protobuf-java.
 */
class TailSamplingProcessorTest {
  private final ManualScheduler scheduler = new ManualScheduler();
  private final PipelineFixture fixture = new PipelineFixture(scheduler);
  private final Downstream downstream = new Downstream();
  private TailSamplingProcessor processor;

  /** Records the span names of every batch it takes, refusing the first {@code refusals}. */
  private static final class Downstream implements BatchConsumer {
    final List<List<String>> batches = new ArrayList<>();
    int refusals;
    int offers;

    @Override
    public synchronized Admission consume(Batch batch) {
      offers++;
      if (refusals > 0) {
        refusals--;
        return Admission.FULL;
      }
      List<String> names = new ArrayList<>();
      try {
        for (ResourceSpans resource :
            ExportTraceServiceRequest.parseFrom(OtlpMarshaler.toByteArray(batch))
                .getResourceSpansList()) {
          for (ScopeSpans scope : resource.getScopeSpansList()) {
            for (Span span : scope.getSpansList()) {
              names.add(span.getName());
            }
          }
        }
      } catch (Exception e) {
        throw new AssertionError(e);
      }
      batch.clear();
      batches.add(names);
      return Admission.ACCEPTED;
    }

    synchronized List<String> names() {
      List<String> all = new ArrayList<>();
      batches.forEach(all::addAll);
      return all;
    }
  }

  @AfterEach
  void stop() throws InterruptedException {
    if (processor != null) {
      processor.shutdown(System.nanoTime());
    }
  }

  private static TailSamplingConfig config() {
    return config("");
  }

  /** The configuration of {@code yaml} (the policies the tests give stand beside it). */
  private static TailSamplingConfig config(String yaml) {
    try {
      return new ConfigBinder()
          .bind(
              yaml + "policies: [{name: unused, type: always_sample}]\n",
              "tail_sampling.yaml",
              TailSamplingConfig.class,
              TailSamplingConfig.DEFAULT);
    } catch (ConfigException e) {
      throw new AssertionError(e);
    }
  }

  private TailSamplingProcessor start(TailSamplingConfig config, Policies.Named... policies) {
    processor =
        new TailSamplingProcessor(
            fixture.settings(ComponentKind.PROCESSOR, "tail_sampling"),
            config,
            downstream,
            List.of(policies));
    processor.start();
    return processor;
  }

  /** A policy sampling the traces some span of which is named with {@code prefix}. */
  private static Policies.Named sampleWhenAnySpan(String name, Predicate<String> spanName) {
    return new Policies.Named(
        name,
        false,
        trace -> {
          boolean[] found = {false};
          trace.spans().visit(item -> found[0] |= spanName.test(item.span().name().asString()));
          return found[0] ? Decision.SAMPLED : Decision.NOT_SAMPLED;
        });
  }

  private static Policies.Named fixed(String name, Decision decision) {
    return new Policies.Named(name, false, trace -> decision);
  }

  /** A request with spans of trace {@code trace} named {@code names}; "root*" spans are roots. */
  static OtlpIndex spans(int trace, String... names) {
    TracesBuilder builder = new TracesBuilder();
    builder.resource().attributes().put("service.name", "svc");
    builder.scope();
    for (String name : names) {
      span(builder, trace, name);
    }
    return builder.build();
  }

  private static void span(TracesBuilder builder, int trace, String name) {
    byte[] traceId = ByteBuffer.allocate(16).putLong(0x1234).putLong(trace).array();
    byte[] spanId = ByteBuffer.allocate(8).putLong(name.hashCode() | 1L << 40).array();
    var span = builder.span().traceId(traceId).spanId(spanId).name(name);
    if (!name.startsWith("root")) {
      span.parentSpanId(ByteBuffer.allocate(8).putLong(7).array());
    }
    span.kind(SpanView.KIND_SERVER).startTimeUnixNano(1_000).endTimeUnixNano(2_000);
  }

  /** One request holding spans of several traces: "3:a" is span a of trace 3. */
  static OtlpIndex mixed(String... spans) {
    TracesBuilder builder = new TracesBuilder();
    builder.resource().attributes().put("service.name", "svc");
    builder.scope();
    for (String spec : spans) {
      String[] parts = spec.split(":");
      span(builder, Integer.parseInt(parts[0]), parts[1]);
    }
    return builder.build();
  }

  private void send(OtlpIndex request) {
    assertThat(processor.consume(Batch.of(request))).isEqualTo(Admission.ACCEPTED);
  }

  @Test
  void holdsATracesSpansUntilDecisionWaitAndHandsOnTheSampledTraceWhole() {
    start(config(), sampleWhenAnySpan("errors", n -> n.startsWith("err")));
    send(mixed("1:a1", "2:b1"));
    scheduler.advance(10, TimeUnit.SECONDS);
    send(spans(1, "err-a2"));
    scheduler.advance(10, TimeUnit.SECONDS);
    send(mixed("2:b2", "1:a3"));
    scheduler.advance(9, TimeUnit.SECONDS);
    assertThat(downstream.names()).isEmpty();
    assertThat(processor.tracesHeld()).isEqualTo(2);

    scheduler.advance(1, TimeUnit.SECONDS); // 30 s after both traces' first spans

    assertThat(downstream.names()).containsExactlyInAnyOrder("a1", "err-a2", "a3");
    assertThat(processor.bytesHeld()).isZero();
    assertThat(fixture.prometheus())
        .contains(
            "otelcol_processor_tail_sampling_global_count_traces_sampled_total{processor=\"tail_sampling\",sampled=\"true\",decision=\"sampled\"} 1")
        .contains(
            "otelcol_processor_tail_sampling_global_count_traces_sampled_total{processor=\"tail_sampling\",sampled=\"false\",decision=\"not_sampled\"} 1")
        .contains(
            "otelcol_processor_tail_sampling_count_traces_sampled_total{processor=\"tail_sampling\",policy=\"errors\",sampled=\"true\",decision=\"sampled\"} 1");
  }

  @Test
  void lateSpansFollowTheDecisionWhileTheTraceIsRemembered() {
    start(config(), sampleWhenAnySpan("errors", n -> n.startsWith("err")));
    send(mixed("1:err", "2:ok"));
    scheduler.advance(30, TimeUnit.SECONDS);
    assertThat(downstream.names()).containsExactly("err");

    send(mixed("1:late-1", "2:late-2"));

    assertThat(downstream.names()).containsExactly("err", "late-1");
    assertThat(processor.bytesHeld()).isZero();
    assertThat(fixture.prometheus())
        .contains(
            "otelcol_processor_tail_sampling_sampling_late_span_age_count{processor=\"tail_sampling\"} 2");
  }

  @Test
  void aDecisionCacheRemembersDecidedTracesOutsideTheTable() {
    TailSamplingConfig config =
        config(
            "num_traces: 10\n"
                + "decision_cache: {sampled_cache_size: 100, non_sampled_cache_size: 100}\n");
    start(config, sampleWhenAnySpan("errors", n -> n.startsWith("err")));
    send(mixed("1:err", "2:ok"));
    scheduler.advance(30, TimeUnit.SECONDS);
    assertThat(processor.tracesHeld()).isZero();

    send(mixed("1:late-1", "2:late-2"));

    assertThat(downstream.names()).containsExactly("err", "late-1");
    assertThat(processor.tracesHeld()).isZero();
    assertThat(fixture.prometheus())
        .contains(
            "otelcol_processor_tail_sampling_early_releases_from_cache_decision_total{processor=\"tail_sampling\",sampled=\"true\"} 1")
        .contains(
            "otelcol_processor_tail_sampling_early_releases_from_cache_decision_total{processor=\"tail_sampling\",sampled=\"false\"} 1");
  }

  @Test
  void aDecisionCacheHoldsAtMostItsSizeAndForgetsTheLeastRecentlyUsed() {
    TailSamplingConfig config = config("num_traces: 10\ndecision_cache: {sampled_cache_size: 2}\n");
    start(config, fixed("all", Decision.SAMPLED));
    send(mixed("1:a", "2:b"));
    scheduler.advance(30, TimeUnit.SECONDS);
    send(spans(1, "late-a")); // trace 1 used again: trace 2 is now the least recently used
    send(spans(3, "c"));
    scheduler.advance(30, TimeUnit.SECONDS); // trace 3 decided: the cache forgets trace 2
    assertThat(downstream.names()).containsExactlyInAnyOrder("a", "b", "late-a", "c");
    assertThat(processor.tracesHeld()).isZero();

    send(mixed("1:late-a2", "2:late-b"));

    // Trace 1 is remembered and its span goes out at once; trace 2's starts a new trace.
    assertThat(downstream.names()).containsExactlyInAnyOrder("a", "b", "late-a", "c", "late-a2");
    assertThat(processor.tracesHeld()).isEqualTo(1);
    scheduler.advance(30, TimeUnit.SECONDS);
    assertThat(downstream.names()).contains("late-b");
  }

  @Test
  void pastNumTracesTheOldestTraceIsDecidedEarlyNotDropped() {
    start(config("num_traces: 3\n"), fixed("all", Decision.SAMPLED));
    for (int trace = 1; trace <= 5; trace++) {
      send(spans(trace, "t" + trace));
      scheduler.advance(1, TimeUnit.SECONDS);
    }

    assertThat(processor.tracesHeld()).isEqualTo(3);
    assertThat(downstream.names()).containsExactly("t1", "t2");
    assertThat(fixture.prometheus())
        .contains(
            "sluice_processor_tail_sampling_traces_decided_early_total{processor=\"tail_sampling\",bound=\"num_traces\"} 2");
  }

  @Test
  void pastMaxBytesTheOldestWaitingTracesAreDecidedEarly() {
    OtlpIndex probe = spans(99, "x");
    long spanBytes = probe.retainedBytes();
    Batch.of(probe).clear();
    TailSamplingConfig config = config("max_bytes: 1\n");
    start(config, fixed("all", Decision.SAMPLED));

    send(spans(1, "a"));

    assertThat(processor.bytesHeld()).isZero();
    assertThat(downstream.names()).containsExactly("a");
    assertThat(spanBytes).isPositive();
    assertThat(fixture.prometheus())
        .contains(
            "sluice_processor_tail_sampling_traces_decided_early_total{processor=\"tail_sampling\",bound=\"max_bytes\"} 1");
  }

  @Test
  void keepsRefusedSampledSpansAndOffersThemAgainInOrder() {
    start(config(), fixed("all", Decision.SAMPLED));
    send(spans(1, "first"));
    downstream.refusals = 3;
    scheduler.advance(30, TimeUnit.SECONDS);
    assertThat(downstream.names()).isEmpty();
    send(spans(1, "late"));

    for (int i = 0; i < 5; i++) {
      scheduler.advance(20, TimeUnit.MILLISECONDS);
    }

    assertThat(downstream.names()).containsExactly("first", "late");
  }

  @Test
  void aTraceLargerThanMaximumTraceSizeBytesIsNotSampled() {
    TailSamplingConfig config = config("maximum_trace_size_bytes: 200\n");
    start(config, fixed("all", Decision.SAMPLED));
    send(spans(1, "a", "b", "c", "d", "e", "f"));
    send(spans(2, "small"));
    scheduler.advance(30, TimeUnit.SECONDS);

    assertThat(downstream.names()).containsExactly("small");
    assertThat(fixture.prometheus())
        .contains(
            "otelcol_processor_tail_sampling_traces_dropped_too_large_total{processor=\"tail_sampling\"} 1");
  }

  @Test
  void aRootSpanBringsTheDecisionForwardWithDecisionWaitAfterRootReceived() {
    TailSamplingConfig config = config("decision_wait_after_root_received: 2s\n");
    start(config, fixed("all", Decision.SAMPLED));
    send(spans(1, "child"));
    send(spans(2, "other-child"));
    scheduler.advance(5, TimeUnit.SECONDS);
    send(spans(1, "root"));
    scheduler.advance(2, TimeUnit.SECONDS);

    assertThat(downstream.names()).containsExactlyInAnyOrder("child", "root");
    scheduler.advance(23, TimeUnit.SECONDS);
    assertThat(downstream.names()).containsExactlyInAnyOrder("child", "root", "other-child");
  }

  @Test
  void atShutdownWaitingTracesAreDecidedWithWhatTheyHave() throws InterruptedException {
    start(config(), sampleWhenAnySpan("errors", n -> n.startsWith("err")));
    send(mixed("1:err", "2:ok"));

    processor.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
    processor = null;

    assertThat(downstream.names()).containsExactly("err");
  }

  @Test
  void sampledSpansStillRefusedAtTheShutdownDeadlineAreCountedAsDropped()
      throws InterruptedException {
    start(config(), fixed("all", Decision.SAMPLED));
    send(spans(1, "a", "b"));
    downstream.refusals = Integer.MAX_VALUE;

    processor.shutdown(System.nanoTime()); // the deadline has passed: one offer, refused
    processor = null;

    assertThat(downstream.names()).isEmpty();
    assertThat(fixture.prometheus())
        .contains("otelcol_processor_dropped_spans_total{processor=\"tail_sampling\"} 2");
  }

  @Test
  void theDecisionFollowsTheCollectorsPrecedence() {
    assertThat(decide(Decision.SAMPLED)).isEqualTo(Decision.SAMPLED);
    assertThat(decide(Decision.NOT_SAMPLED)).isEqualTo(Decision.NOT_SAMPLED);
    assertThat(decide()).isEqualTo(Decision.NOT_SAMPLED);
    assertThat(decide(Decision.SAMPLED, Decision.INVERT_NOT_SAMPLED))
        .isEqualTo(Decision.NOT_SAMPLED);
    assertThat(decide(Decision.INVERT_SAMPLED)).isEqualTo(Decision.SAMPLED);
    assertThat(decide(Decision.INVERT_SAMPLED, Decision.NOT_SAMPLED))
        .isEqualTo(Decision.NOT_SAMPLED);
    assertThat(decide(Decision.INVERT_SAMPLED, Decision.NOT_SAMPLED, Decision.SAMPLED))
        .isEqualTo(Decision.SAMPLED);
    assertThat(decide(Decision.SAMPLED, Decision.DROPPED)).isEqualTo(Decision.DROPPED);
    assertThat(decide(Decision.ERROR, Decision.SAMPLED)).isEqualTo(Decision.SAMPLED);
    assertThat(decide(Decision.ERROR)).isEqualTo(Decision.NOT_SAMPLED);
  }

  @Test
  void aDropPolicyThatDoesNotDropTakesNoPartInTheDecision() {
    // An inverted match samples only when no policy answers not sampled; a drop policy's own
    // "not sampled" (it did not drop) must not count as one.
    start(
        config(),
        new Policies.Named("drop-debug", true, trace -> Decision.NOT_SAMPLED),
        fixed("not-internal", Decision.INVERT_SAMPLED));
    send(spans(1, "a"));
    scheduler.advance(30, TimeUnit.SECONDS);

    assertThat(downstream.names()).containsExactly("a");
  }

  @Test
  void sampleOnFirstMatchStopsAtTheFirstPolicyThatSamples() {
    TailSamplingConfig config = config("sample_on_first_match: true\n");
    start(config, fixed("first", Decision.SAMPLED), fixed("inverted", Decision.INVERT_NOT_SAMPLED));
    send(spans(1, "a"));
    scheduler.advance(30, TimeUnit.SECONDS);

    assertThat(downstream.names()).containsExactly("a");
  }

  /** The final decision of policies answering {@code decisions} in order, on a fresh processor. */
  private Decision decide(Decision... decisions) {
    Policies.Named[] policies = new Policies.Named[decisions.length];
    for (int i = 0; i < decisions.length; i++) {
      policies[i] = fixed("p" + i, decisions[i]);
    }
    TailSamplingProcessor fresh =
        new TailSamplingProcessor(
            new PipelineFixture(scheduler).settings(ComponentKind.PROCESSOR, "tail_sampling"),
            config(),
            downstream,
            List.of(policies));
    TraceData trace = Held.trace(0, spans(1, "a"));
    try {
      return fresh.evaluateForTest(trace);
    } finally {
      trace.spans().clear();
    }
  }
}
