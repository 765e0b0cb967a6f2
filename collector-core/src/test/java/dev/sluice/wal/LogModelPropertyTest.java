package dev.sluice.wal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random sequences of appends, acknowledgements, waits, clean restarts and power losses against a
 * model of what must survive. After every restart: each record that was answered as written and
 * that some consumer it was routed to had not finished is handed back, with that consumer owed;
 * nothing is handed back that was never appended (or with other bytes); and records come back in
 * increasing sequence order, each once.
 */
class LogModelPropertyTest {
  private static final Path DIRECTORY = Path.of("/simulated/log");
  private static final int CONSUMERS = 2;
  // Smaller than most records, so that most writes begin inside a block written before.
  private static final int ALIGNED_BLOCK_BYTES = 64;

  enum Kind {
    APPEND,
    DONE,
    WAIT,
    RESTART,
    CRASH
  }

  record Step(Kind kind, int size, int routing, int pick, int consumer) {}

  @Provide
  Arbitrary<List<Step>> scripts() {
    Arbitrary<Step> step =
        Combinators.combine(
                Arbitraries.frequencyOf(
                    net.jqwik.api.Tuple.of(10, Arbitraries.just(Kind.APPEND)),
                    net.jqwik.api.Tuple.of(6, Arbitraries.just(Kind.DONE)),
                    net.jqwik.api.Tuple.of(2, Arbitraries.just(Kind.WAIT)),
                    net.jqwik.api.Tuple.of(1, Arbitraries.just(Kind.RESTART)),
                    net.jqwik.api.Tuple.of(2, Arbitraries.just(Kind.CRASH))),
                Arbitraries.integers().between(0, 700),
                Arbitraries.integers().between(1, 3),
                Arbitraries.integers().between(0, 1000),
                Arbitraries.integers().between(0, CONSUMERS - 1))
            .as(Step::new);
    return step.list().ofMinSize(5).ofMaxSize(60);
  }

  /** What the model knows of one record. */
  private static final class Known {
    final String payload;
    int owed; // consumers not yet done
    boolean answered;

    Known(String payload, int owed) {
      this.payload = payload;
      this.owed = owed;
    }
  }

  @Property(tries = 60)
  void whatWasAnsweredAndIsOwedSurvivesEveryRestartAndCrash(
      @ForAll("scripts") List<Step> script, @ForAll long seed) throws Exception {
    run(script, new SimulatedDisk(seed));
  }

  /**
   * The same with writes aligned to blocks, as to a file opened with {@code O_DIRECT}: each write
   * starts again at the last partial block, so a crash can cut a write that began over answered
   * records.
   */
  @Property(tries = 60)
  void whatWasAnsweredSurvivesWhenWritesRewriteTheLastPartialBlock(
      @ForAll("scripts") List<Step> script, @ForAll long seed) throws Exception {
    run(script, new SimulatedDisk(seed, ALIGNED_BLOCK_BYTES));
  }

  private static void run(List<Step> script, SimulatedDisk disk) throws Exception {
    WalOptions options =
        new WalOptions(
            DIRECTORY,
            true,
            1 << 20,
            2048,
            0,
            64,
            List.of("a", "b"),
            (layout, routing, signal) -> routing);
    LogHarness harness = new LogHarness();
    WriteAheadLog log = harness.open(options, disk);
    Map<Long, Known> appended = new HashMap<>();
    TreeMap<Long, Known> live = new TreeMap<>(); // answered records some consumer still owes
    List<LogHarness.Answer> pending = new ArrayList<>();
    List<Long> pendingSequences = new ArrayList<>();
    int counter = 0;

    for (Step step : script) {
      switch (step.kind()) {
        case APPEND -> {
          String payload = "p" + counter++ + "-" + "x".repeat(step.size());
          LogHarness.Answer answer = new LogHarness.Answer();
          byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
          long sequence = log.append(bytes, 0, bytes.length, 0, step.routing(), 1, answer);
          if (sequence >= 0) {
            appended.put(sequence, new Known(payload, step.routing()));
            pending.add(answer);
            pendingSequences.add(sequence);
          }
        }
        case WAIT -> settle(pending, pendingSequences, appended, live);
        case DONE -> {
          settle(pending, pendingSequences, appended, live);
          if (!live.isEmpty()) {
            List<Long> sequences = new ArrayList<>(live.keySet());
            long sequence = sequences.get(step.pick() % sequences.size());
            Known known = live.get(sequence);
            log.done(step.consumer(), sequence);
            known.owed &= ~(1 << step.consumer());
            if (known.owed == 0) {
              live.remove(sequence);
            }
          }
        }
        case RESTART, CRASH -> {
          if (step.kind() == Kind.RESTART) {
            settle(pending, pendingSequences, appended, live);
            log.close();
          } else {
            // Answers given before the power went count; the others were never given.
            disk.crash();
            log.close(5_000);
            collectAnswered(pending, pendingSequences, appended, live);
            disk.restart();
          }
          log = harness.open(options, disk);
          check(harness.replayed, appended, live);
          live.clear();
          for (LogHarness.Replayed record : harness.replayed) {
            Known known = new Known(record.payload(), record.owed());
            known.answered = true;
            live.put(record.sequence(), known);
            appended.put(record.sequence(), known);
          }
        }
      }
    }
    settle(pending, pendingSequences, appended, live);
    log.close();
  }

  /** Waits for every pending answer. */
  private static void settle(
      List<LogHarness.Answer> pending,
      List<Long> sequences,
      Map<Long, Known> appended,
      TreeMap<Long, Known> live)
      throws Exception {
    for (LogHarness.Answer answer : pending) {
      try {
        answer.await();
      } catch (java.util.concurrent.ExecutionException e) {
        // refused: not owed
      }
    }
    collectAnswered(pending, sequences, appended, live);
  }

  /** Moves the appends answered as written into the model's live records. */
  private static void collectAnswered(
      List<LogHarness.Answer> pending,
      List<Long> sequences,
      Map<Long, Known> appended,
      TreeMap<Long, Known> live) {
    for (int i = 0; i < pending.size(); i++) {
      LogHarness.Answer answer = pending.get(i);
      if (answer.committed.isDone() && !answer.committed.isCompletedExceptionally()) {
        Known known = appended.get(sequences.get(i));
        known.answered = true;
        if (known.owed != 0) {
          live.put(sequences.get(i), known);
        }
      }
    }
    pending.clear();
    sequences.clear();
  }

  private static void check(
      List<LogHarness.Replayed> replayed, Map<Long, Known> appended, TreeMap<Long, Known> live) {
    Map<Long, LogHarness.Replayed> bySequence = new HashMap<>();
    long previous = -1;
    for (LogHarness.Replayed record : replayed) {
      assertThat(record.sequence()).as("replay order").isGreaterThan(previous);
      previous = record.sequence();
      Known known = appended.get(record.sequence());
      assertThat(known).as("replayed %s was appended", record.sequence()).isNotNull();
      assertThat(record.payload()).isEqualTo(known.payload);
      bySequence.put(record.sequence(), record);
    }
    for (Map.Entry<Long, Known> entry : live.entrySet()) {
      LogHarness.Replayed record = bySequence.get(entry.getKey());
      assertThat(record).as("answered and owed record %s survives", entry.getKey()).isNotNull();
      assertThat(record.owed() & entry.getValue().owed)
          .as("owed consumers of %s", entry.getKey())
          .isEqualTo(entry.getValue().owed);
    }
  }
}
