package dev.sluice.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.internal.ActionVisitors;
import dev.sluice.testkit.SequencedSpans;
import org.junit.jupiter.api.Test;

/**
 * Replacement bytes written by edits count against the budget and are given back with the batch.
 */
class MemoryBudgetEditTest {
  @Test
  void editedBatchesCountTheirReplacementsAndTheBudgetIsEmptyOnceTheyAreCleared() {
    MemoryBudget budget = new MemoryBudget(1 << 24, 1_000_000);
    OtlpIndex request = SequencedSpans.indexed("svc", 0, 200);
    assertThat(budget.tryAdmit(request)).isTrue();
    Batch first = Batch.of(request);
    Batch second = Batch.of(request);
    request.releaseHold();
    long admitted = budget.usedBytes();

    first.visit(ActionVisitors.upsert("env", "prod"));
    second.visit(ActionVisitors.delete("nothing.here"));
    Batch part = new Batch(Signal.TRACES);
    first.moveTo(part, 150);
    part.dropIf(item -> item.item() % 3 == 0);

    assertThat(budget.usedBytes()).isGreaterThan(admitted);
    first.clear();
    second.clear();
    assertThat(budget.usedBytes()).isGreaterThan(admitted);
    part.clear();
    assertThat(budget.usedBytes()).isZero();
    assertThat(budget.usedUnits()).isZero();
  }
}
