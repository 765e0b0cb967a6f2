package dev.sluice.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.component.Admission;
import dev.sluice.component.BatchConsumer;
import dev.sluice.pdata.otlp.Signal;
import dev.sluice.testkit.AllocationBound;
import dev.sluice.testkit.FuzzerHooks;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;

/**
 * Coverage-guided fuzzing of the pipelines file: any bytes as its content. Only {@link
 * PipelinesFile.DamagedException} escapes, reading costs within {@link AllocationBound}, a file
 * read as a list says exactly that list (it writes back to the same bytes, so nothing is misread),
 * and no record the log owes loses its way to a configured exporter: with the file unknown it goes
 * to every durable pipeline of its signal, with it read to every configured pipeline its routing
 * names, and never to a pipeline of another signal.
 *
 * <p>Regression inputs: {@code
 * src/test/resources/dev/sluice/service/PipelinesFileFuzzTestInputs/pipelinesFile/}. Fuzzing:
 * {@code bench/fuzz.sh PipelinesFileFuzzTest#pipelinesFile 5m}.
 */
class PipelinesFileFuzzTest {
  private static final DurableLayout CURRENT = current();
  private static final Map<String, BatchConsumer> STAGES = stages();
  private static final int ALL_CONSUMERS = (1 << CURRENT.consumers().size()) - 1;
  private static final int ROUTING_BITS = PipelinesFile.MAX_PIPELINES;

  private static DurableLayout current() {
    Map<String, List<String>> pipelines = new LinkedHashMap<>();
    pipelines.put("traces/a", List.of("x"));
    pipelines.put("logs", List.of("z"));
    pipelines.put("traces/b", List.of("x", "y"));
    pipelines.put("metrics", List.of("w"));
    return new DurableLayout(pipelines);
  }

  private static Map<String, BatchConsumer> stages() {
    Map<String, BatchConsumer> stages = new LinkedHashMap<>();
    for (String pipeline : CURRENT.pipelines()) {
      stages.put(pipeline, batch -> Admission.ACCEPTED);
    }
    return stages;
  }

  @BeforeAll
  static void warmUp() throws Exception {
    check(PipelinesFile.format(CURRENT.exportersOfPipeline()));
    check("traces/b\tx\nlogs".getBytes(StandardCharsets.UTF_8));
    check(new byte[] {(byte) 0xFF, '\n', '\n'});
  }

  @FuzzTest
  void pipelinesFile(byte[] input) throws Exception {
    check(input);
  }

  static void check(byte[] input) throws Exception {
    Object[] read = new Object[1];
    AllocationBound.Call parse = () -> read[0] = PipelinesFile.parse(input);
    AllocationBound.Outcome measured = AllocationBound.measure(parse);
    if (measured.allocatedBytes() > AllocationBound.limitFor(input.length)) {
      // The first pass through a path loads its classes, once per JVM.
      for (int pass = 0; pass < 2; pass++) {
        measured = FuzzerHooks.measurePaused(parse);
      }
    }
    Exception thrown = measured.thrown();
    if (thrown != null && !(thrown instanceof PipelinesFile.DamagedException)) {
      throw new AssertionError("escaped the reader: " + thrown, thrown);
    }
    FuzzerHooks.assertWithin(measured, "pipelines file", input.length);
    @SuppressWarnings("unchecked")
    Map<String, List<String>> previous =
        thrown == null ? (Map<String, List<String>>) read[0] : null;
    if (previous != null) {
      assertWritesBackTo(previous, input);
    }
    assertRoutingKeepsEveryConfiguredPipeline(previous);
  }

  /** A list read from a file says what the file says: written again, it is the same bytes. */
  private static void assertWritesBackTo(Map<String, List<String>> previous, byte[] input) {
    byte[] checked = PipelinesFile.format(nonNull(previous));
    if (!Arrays.equals(checked, input)) {
      // A file written before the header: its lines as they are, a bare name for unknown exporters.
      List<String> lines = new ArrayList<>();
      previous.forEach(
          (name, exporters) ->
              lines.add(exporters == null ? name : name + "\t" + String.join("\t", exporters)));
      assertThat(String.join("\n", lines).getBytes(StandardCharsets.UTF_8)).isEqualTo(input);
    }
  }

  private static Map<String, List<String>> nonNull(Map<String, List<String>> previous) {
    Map<String, List<String>> copy = new LinkedHashMap<>();
    previous.forEach(
        (name, exporters) -> copy.put(name, exporters == null ? List.of() : exporters));
    return copy;
  }

  private static void assertRoutingKeepsEveryConfiguredPipeline(
      Map<String, List<String>> previous) {
    DurableReplay replay = new DurableReplay(null, null, CURRENT, previous, STAGES);
    List<String> current = CURRENT.pipelines();
    List<String> old = previous == null ? List.of() : new ArrayList<>(previous.keySet());
    int[] consumersOfBits = replay.consumersOfOldBits();
    for (Signal signal : Signal.values()) {
      int ofSignal = 0;
      for (int now = 0; now < current.size(); now++) {
        if (PipelinesFile.signalOf(current.get(now)) == signal) {
          ofSignal |= 1 << now;
        }
      }
      for (int bit = 0; bit < ROUTING_BITS; bit++) {
        int routing = 1 << bit;
        int targets = replay.targetPipelines(routing, signal.ordinal(), ALL_CONSUMERS);
        assertThat(targets & ~ofSignal)
            .as("bit %d of a %s record goes to a pipeline of another signal", bit, signal)
            .isZero();
        int named = bit < old.size() ? current.indexOf(old.get(bit)) : -1;
        if (previous == null) {
          assertThat(targets).as("unknown: bit %d, %s", bit, signal).isEqualTo(ofSignal);
          assertThat(consumersOfBits[bit]).isEqualTo(ALL_CONSUMERS);
        } else if (named >= 0 && (ofSignal & (1 << named)) != 0) {
          assertThat(targets & (1 << named))
              .as("bit %d names %s, of a %s record", bit, old.get(bit), signal)
              .isNotZero();
          int consumers = CURRENT.consumersOfRouting(1 << named);
          assertThat(consumersOfBits[bit] & consumers).isEqualTo(consumers);
        } else if (named >= 0) {
          // A pipeline of another signal by that name: the routing is not believed.
          assertThat(targets).isEqualTo(ofSignal);
        }
      }
    }
  }
}
