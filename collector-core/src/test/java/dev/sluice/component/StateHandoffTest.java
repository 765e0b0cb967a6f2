package dev.sluice.component;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.build.MetricsBuilder;
import dev.sluice.pdata.codec.OtlpIndex;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Queue;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** The backpressure rule of connectors that hand on state they keep. */
class StateHandoffTest {
  /** An output that answers as it is told, and keeps what it took. */
  private static final class ScriptedOutput implements ConnectorOutput {
    final Queue<Admission> answers = new ArrayDeque<>();
    final List<OtlpIndex> offered = new ArrayList<>();
    final List<Batch> held = new ArrayList<>();
    final List<Integer> heldAtOffer = new ArrayList<>();
    int releases;

    @Override
    public Sources sources() {
      return new Sources() {
        @Override
        public void add(Batch batch) {
          held.add(batch);
        }

        @Override
        public void addAll(Sources other) {
          throw new UnsupportedOperationException("one Sources per connector here");
        }

        @Override
        public void release() {
          held.clear();
          releases++;
        }
      };
    }

    @Override
    public Admission consume(OtlpIndex request, Sources madeFrom) {
      heldAtOffer.add(held.size());
      return consume(request);
    }

    @Override
    public Signal signal() {
      return Signal.METRICS;
    }

    @Override
    public List<String> pipelines() {
      return List.of("metrics");
    }

    @Override
    public Admission consume(Batch batch) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Admission consume(OtlpIndex request) {
      offered.add(request);
      return answers.remove();
    }

    @Override
    public ConnectorOutput to(Collection<String> pipelines) {
      return this;
    }
  }

  private static OtlpIndex request() {
    MetricsBuilder builder = new MetricsBuilder();
    builder.resource().attributes().put("service.name", "test");
    builder.scope().name("test");
    builder.metric().name("m").gauge().numberPoint().timeUnixNano(1).intValue(1);
    return builder.build();
  }

  private final ScriptedOutput output = new ScriptedOutput();
  private final StateHandoff handoff =
      new StateHandoff(output, Logger.getLogger("test"), "the test metrics");

  @Test
  void aRefusedHandOffIsRememberedUntilOneIsTaken() {
    output.answers.addAll(List.of(Admission.FULL, Admission.CLOSED, Admission.ACCEPTED));

    assertThat(handoff.handOn(StateHandoffTest::request)).isFalse();
    assertThat(handoff.refusing()).isTrue();
    assertThat(handoff.handOn(StateHandoffTest::request)).isFalse();
    assertThat(handoff.refusing()).isTrue();
    assertThat(handoff.handOn(StateHandoffTest::request)).isTrue();
    assertThat(handoff.refusing()).isFalse();
    assertThat(output.offered).hasSize(3);
  }

  @Test
  void whatCanNeverBeHandedOnIsDoneWith() {
    output.answers.addAll(List.of(Admission.FULL, Admission.FAILED));

    assertThat(handoff.handOn(StateHandoffTest::request)).isFalse();
    // A pipeline that failed on the request would fail again: the state is let go.
    assertThat(handoff.handOn(StateHandoffTest::request)).isTrue();
    assertThat(handoff.refusing()).isFalse();

    output.answers.add(Admission.FULL);
    assertThat(handoff.handOn(StateHandoffTest::request)).isFalse();
    // Larger than one request may be: the state is let go too.
    assertThat(
            handoff.handOn(
                () -> {
                  throw new IllegalStateException("over 64 MiB");
                }))
        .isTrue();
    assertThat(handoff.refusing()).isFalse();
  }

  @Test
  void nothingToHandOnIsTakenWithoutAsking() {
    assertThat(handoff.handOn(() -> null)).isTrue();
    assertThat(output.offered).isEmpty();
  }

  @Test
  void whatTheStateWasMadeFromGoesWithEachHandOffUntilOneIsTaken() {
    output.answers.addAll(List.of(Admission.FULL, Admission.ACCEPTED, Admission.ACCEPTED));
    handoff.madeFrom(new Batch(Signal.TRACES));
    handoff.madeFrom(new Batch(Signal.TRACES));

    assertThat(handoff.handOn(StateHandoffTest::request)).isFalse();
    assertThat(output.held).hasSize(2); // refused: still owed with the state
    assertThat(output.releases).isZero();
    assertThat(handoff.handOn(StateHandoffTest::request)).isTrue();
    assertThat(output.releases).isEqualTo(1);
    handoff.madeFrom(new Batch(Signal.TRACES));
    assertThat(handoff.handOn(StateHandoffTest::request)).isTrue();

    assertThat(output.heldAtOffer).containsExactly(2, 2, 1);
    assertThat(output.held).isEmpty();
  }
}
