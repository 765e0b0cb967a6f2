package dev.sluice.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchConsumer;
import dev.sluice.component.ConnectorOutput;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.MarshalContext;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.testkit.SequencedSpans;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a connector's output does with what it is handed: one batch per pipeline, all or refusal.
 */
class ConnectorPipelinesTest {
  private final MemoryBudget budget = new MemoryBudget(64L << 20, 1_000_000);

  /** A pipeline's first stage that keeps what it takes, or refuses with {@code answer}. */
  private static final class Stage implements BatchConsumer {
    final List<Batch> taken = new ArrayList<>();
    Admission answer = Admission.ACCEPTED;

    @Override
    public Admission consume(Batch batch) {
      if (answer == Admission.ACCEPTED) {
        taken.add(batch);
      }
      return answer;
    }

    List<Integer> numbers() {
      List<Integer> numbers = new ArrayList<>();
      for (Batch batch : taken) {
        MarshalContext context = new MarshalContext();
        OtlpMarshaler.marshal(batch, context);
        numbers.addAll(SequencedSpans.numbers(context.toByteArray()));
      }
      return numbers;
    }

    void clear() {
      taken.forEach(Batch::clear);
      taken.clear();
    }
  }

  private final Stage a = new Stage();
  private final Stage b = new Stage();

  private ConnectorPipelines output(Stage... stages) {
    Map<String, BatchConsumer> named = new LinkedHashMap<>();
    for (int i = 0; i < stages.length; i++) {
      named.put("traces/" + (char) ('a' + i), stages[i]);
    }
    return new ConnectorPipelines(Signal.TRACES, named, budget, new PipelineFailures());
  }

  /** A batch of spans 0..9, its request admitted to the budget as a receiver's would be. */
  private Batch admittedBatch() {
    OtlpIndex request = SequencedSpans.indexed("svc", 0, 10);
    assertThat(budget.tryAdmit(request)).isTrue();
    Batch batch = Batch.of(request);
    request.releaseHold();
    return batch;
  }

  @Test
  void eachPipelineGetsABatchOfItsOwnAndTheRequestIsFreedWhenBothLetGo() {
    ConnectorPipelines output = output(a, b);
    Batch batch = admittedBatch();

    assertThat(output.consume(batch)).isEqualTo(Admission.ACCEPTED);

    assertThat(batch.isEmpty()).isTrue();
    assertThat(a.taken).hasSize(1);
    assertThat(b.taken).hasSize(1);
    assertThat(a.taken.get(0)).isNotSameAs(b.taken.get(0));
    // One pipeline drops spans from its batch: the other's is untouched.
    a.taken.get(0).dropIf(item -> true);
    assertThat(a.numbers()).isEmpty();
    assertThat(b.numbers()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);

    a.clear();
    assertThat(budget.usedUnits()).isEqualTo(10);
    b.clear();
    assertThat(budget.usedUnits()).isZero();
    assertThat(budget.usedBytes()).isZero();
  }

  @Test
  void aRefusalLeavesTheBatchWithTheCaller() {
    ConnectorPipelines output = output(a, b);
    b.answer = Admission.FULL;
    Batch batch = admittedBatch();

    assertThat(output.consume(batch)).isEqualTo(Admission.FULL);

    assertThat(batch.unitCount()).isEqualTo(10);
    // The pipeline that took it keeps its copy, as when a receiver feeds two pipelines.
    assertThat(a.numbers()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
    a.clear();
    batch.clear();
    assertThat(budget.usedUnits()).isZero();
  }

  @Test
  void aPipelineThatThrowsIsAnsweredAsFailedAndKeepsNothing() {
    BatchConsumer throwing =
        batch -> {
          throw new IllegalStateException("broken processor");
        };
    ConnectorPipelines output =
        new ConnectorPipelines(
            Signal.TRACES, Map.of("traces/a", throwing), budget, new PipelineFailures());
    Batch batch = admittedBatch();

    assertThat(output.consume(batch)).isEqualTo(Admission.FAILED);
    assertThat(batch.unitCount()).isEqualTo(10);
    batch.clear();
    assertThat(budget.usedUnits()).isZero();
  }

  @Test
  void aBuiltRequestIsAdmittedToTheMemoryBudgetFirst() {
    MemoryBudget small = new MemoryBudget(64L << 20, 15);
    ConnectorOutput output =
        new ConnectorPipelines(Signal.TRACES, Map.of("traces/a", a), small, new PipelineFailures());

    assertThat(output.consume(SequencedSpans.indexed("svc", 0, 10))).isEqualTo(Admission.ACCEPTED);
    assertThat(small.usedUnits()).isEqualTo(10);
    // Five units are left: a second request of ten is refused, and nothing of it is held.
    assertThat(output.consume(SequencedSpans.indexed("svc", 10, 10))).isEqualTo(Admission.FULL);
    assertThat(a.numbers()).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
    a.clear();
    assertThat(small.usedUnits()).isZero();
  }

  @Test
  void routesToTheNamedPipelinesOnly() {
    ConnectorOutput output = output(a, b);
    assertThat(output.pipelines()).containsExactly("traces/a", "traces/b");

    ConnectorOutput toB = output.to(List.of("traces/b"));
    assertThat(toB.pipelines()).containsExactly("traces/b");
    assertThat(toB.consume(admittedBatch())).isEqualTo(Admission.ACCEPTED);
    assertThat(a.taken).isEmpty();
    assertThat(b.numbers()).hasSize(10);
    b.clear();

    assertThatThrownBy(() -> output.to(List.of("traces/b", "traces/c")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("not pipelines this connector feeds: traces/c (it feeds traces/a, traces/b)");
  }

  @Test
  void dataOfAnotherSignalIsRefusedAsAMistake() {
    ConnectorOutput output = output(a);
    assertThatThrownBy(() -> output.consume(new Batch(Signal.LOGS)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a connector feeding TRACES pipelines was handed a LOGS batch");
  }
}
