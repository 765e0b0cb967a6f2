package dev.sluice.component;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.testkit.MetricsText;
import dev.sluice.testkit.SequencedSpans;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FunctionProcessorTest {
  /** A configuration for the test's functions: how many spans to keep from the front. */
  private record KeepFirst(long units) implements ComponentConfig {
    @Override
    public void validate(ConfigProblems problems) {}
  }

  /** Keeps the first {@code units} units of each batch, drops the rest. */
  private static final BatchFunction<KeepFirst> KEEP_FIRST =
      (batch, config) -> {
        Batch kept = new Batch(batch.signal());
        batch.moveTo(kept, config.units());
        batch.clear();
        batch.addAll(kept);
        return Admission.ACCEPTED;
      };

  private final MetricRegistry metrics = new MetricRegistry();

  /** Takes every batch (recording its spans) or refuses all of them. */
  private static final class Next implements BatchConsumer {
    final List<Integer> spans = new ArrayList<>();
    Admission answer = Admission.ACCEPTED;
    int offers;

    @Override
    public Admission consume(Batch batch) {
      offers++;
      if (answer == Admission.ACCEPTED) {
        spans.addAll(SequencedSpans.numbers(OtlpMarshaler.toByteArray(batch)));
        batch.clear();
      }
      return answer;
    }
  }

  private Processor processor(long keep, BatchFunction<KeepFirst> function, Next next) {
    ComponentSettings settings =
        new ComponentSettings(ComponentId.parse("filter/first"), ComponentKind.PROCESSOR, metrics);
    return new FunctionProcessor<>(settings, new KeepFirst(keep), Signal.TRACES, function, next);
  }

  private static String incoming(long units) {
    return "otelcol_processor_incoming_items_total{processor=\"filter/first\",otel_signal=\"traces\"} "
        + units;
  }

  private static String outgoing(long units) {
    return "otelcol_processor_outgoing_items_total{processor=\"filter/first\",otel_signal=\"traces\"} "
        + units;
  }

  @Test
  void countsWhatCameInAndWhatWentOnAfterAFunctionThatDropsItems() throws Exception {
    Next next = new Next();
    Processor processor = processor(4, KEEP_FIRST, next);

    assertThat(processor.consume(Batch.of(SequencedSpans.indexed("a", 0, 10))))
        .isEqualTo(Admission.ACCEPTED);
    assertThat(processor.consume(Batch.of(SequencedSpans.indexed("a", 10, 3))))
        .isEqualTo(Admission.ACCEPTED);

    assertThat(next.spans).containsExactly(0, 1, 2, 3, 10, 11, 12);
    assertThat(MetricsText.of(metrics)).contains(incoming(13)).contains(outgoing(7));
  }

  @Test
  void handsNothingOnWhenTheFunctionDropsEveryItem() throws Exception {
    Next next = new Next();
    Processor processor = processor(0, KEEP_FIRST, next);

    assertThat(processor.consume(Batch.of(SequencedSpans.indexed("a", 0, 5))))
        .isEqualTo(Admission.ACCEPTED);

    assertThat(next.offers).isZero();
    assertThat(MetricsText.of(metrics)).contains(incoming(5)).contains(outgoing(0));
  }

  @Test
  void passesOnARefusalOfTheFunctionWithTheBatchUnchanged() throws Exception {
    Next next = new Next();
    Processor processor = processor(0, (batch, config) -> Admission.FULL, next);
    Batch batch = Batch.of(SequencedSpans.indexed("a", 0, 6));

    assertThat(processor.consume(batch)).isEqualTo(Admission.FULL);

    assertThat(batch.unitCount()).isEqualTo(6);
    assertThat(next.offers).isZero();
    assertThat(MetricsText.of(metrics)).contains(incoming(6)).contains(outgoing(0));
  }

  @Test
  void countsNothingOutgoingWhenTheNextStageRefuses() throws Exception {
    Next next = new Next();
    next.answer = Admission.FULL;
    Processor processor = processor(2, KEEP_FIRST, next);

    assertThat(processor.consume(Batch.of(SequencedSpans.indexed("a", 0, 5))))
        .isEqualTo(Admission.FULL);

    assertThat(next.offers).isEqualTo(1);
    assertThat(MetricsText.of(metrics)).contains(incoming(5)).contains(outgoing(0));
  }

  @Test
  void dropsABatchWhoseFunctionThrowsInsteadOfPassingItOnHalfDone() throws Exception {
    Next next = new Next();
    Processor processor =
        processor(
            0,
            (batch, config) -> {
              throw new IllegalStateException("bug");
            },
            next);
    Batch batch = Batch.of(SequencedSpans.indexed("a", 0, 5));

    assertThat(processor.consume(batch)).isEqualTo(Admission.ACCEPTED);

    assertThat(batch.unitCount()).isZero();
    assertThat(next.offers).isZero();
    assertThat(MetricsText.of(metrics)).contains(incoming(5)).contains(outgoing(0));
  }

  @Test
  void aBatchRefusedDownstreamIsNotProcessedAgainWhenOfferedAgain() throws Exception {
    Next next = new Next();
    next.answer = Admission.FULL;
    int[] calls = {0};
    Processor processor =
        processor(
            3,
            (batch, config) -> {
              calls[0]++;
              return KEEP_FIRST.apply(batch, config);
            },
            next);
    Batch batch = Batch.of(SequencedSpans.indexed("a", 0, 5));

    assertThat(processor.consume(batch)).isEqualTo(Admission.FULL);
    assertThat(processor.consume(batch)).isEqualTo(Admission.FULL);
    next.answer = Admission.ACCEPTED;
    assertThat(processor.consume(batch)).isEqualTo(Admission.ACCEPTED);

    assertThat(calls[0]).isEqualTo(1);
    assertThat(next.spans).containsExactly(0, 1, 2);
    assertThat(MetricsText.of(metrics)).contains(outgoing(3));
  }

  @Test
  void anotherBatchWithTheSameDataIsProcessedAgain() throws Exception {
    Next next = new Next();
    next.answer = Admission.FULL;
    int[] calls = {0};
    Processor processor =
        processor(
            3,
            (batch, config) -> {
              calls[0]++;
              return KEEP_FIRST.apply(batch, config);
            },
            next);

    assertThat(processor.consume(Batch.of(SequencedSpans.indexed("a", 0, 5))))
        .isEqualTo(Admission.FULL);
    next.answer = Admission.ACCEPTED;
    assertThat(processor.consume(Batch.of(SequencedSpans.indexed("a", 0, 5))))
        .isEqualTo(Admission.ACCEPTED);

    assertThat(calls[0]).isEqualTo(2);
  }
}
