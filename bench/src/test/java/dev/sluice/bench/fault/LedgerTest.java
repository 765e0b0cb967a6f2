package dev.sluice.bench.fault;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LedgerTest {
  @Test
  void keepsEachRequestsSpansByOutcomeAndCountsRefusalsByReason() {
    Ledger ledger = new Ledger();
    int ok = ledger.take(3);
    int refused = ledger.take(2);
    int unanswered = ledger.take(4);
    ledger.settle(ok, 3, Ledger.Outcome.OK);
    ledger.refusal("full");
    ledger.refusal("full");
    ledger.settle(refused, 2, Ledger.Outcome.REFUSED);
    ledger.settle(unanswered, 4, Ledger.Outcome.UNANSWERED);

    assertThat(ledger.next()).isEqualTo(9);
    assertThat(ledger.answeredOk().stream()).containsExactly(0, 1, 2);
    assertThat(ledger.refused().stream()).containsExactly(3, 4);
    assertThat(ledger.unanswered().stream()).containsExactly(5, 6, 7, 8);
    assertThat(ledger.okRequests()).isEqualTo(1);
    assertThat(ledger.refusals()).isEqualTo(2);
    assertThat(ledger.refusalReasons()).containsEntry("full", 2L);
  }
}
