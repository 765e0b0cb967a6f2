package dev.sluice.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.pdata.Signal;
import dev.sluice.testkit.AllocationBound;
import dev.sluice.testkit.FuzzerHooks;
import dev.sluice.wal.WriteAheadLog;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;

/**
 * Coverage-guided fuzzing of the layouts file and of the file of the earlier format: any bytes as
 * their content. Only {@link LayoutsFile.DamagedException} escapes, reading costs within {@link
 * AllocationBound}, what is read says exactly what the file says (written again, it is the same
 * bytes, so nothing is misread), and no record the log owes loses its way to a configured exporter
 * or goes to another pipeline than it was logged for: with its layout unknown it goes to every
 * durable pipeline of its signal, with it read to the configured pipelines its routing names, and
 * never to a pipeline of another signal.
 *
 * <p>Regression inputs: {@code
 * src/test/resources/dev/sluice/service/LayoutsFileFuzzTestInputs/<method>/}. Fuzzing: {@code
 * bench/fuzz.sh LayoutsFileFuzzTest 5m}.
 */
class LayoutsFileFuzzTest {
  private static final DurableLayout CURRENT = current();
  private static final int ALL_CONSUMERS = (1 << CURRENT.consumers().size()) - 1;
  private static final int ROUTING_BITS = LayoutsFile.MAX_PIPELINES;

  private static DurableLayout current() {
    Map<String, List<String>> pipelines = new LinkedHashMap<>();
    pipelines.put("traces/a", List.of("x"));
    pipelines.put("logs", List.of("z"));
    pipelines.put("traces/b", List.of("x", "y"));
    pipelines.put("metrics", List.of("w"));
    return new DurableLayout(pipelines);
  }

  @BeforeAll
  static void warmUp() throws Exception {
    checkLayouts(LayoutsFile.format(Map.of(3, CURRENT.exportersOfPipeline())));
    checkLayouts(new byte[] {(byte) 0xFF, '\n', '\n'});
    checkFormer(LayoutsFile.formatFormer(CURRENT.exportersOfPipeline()));
    checkFormer("traces/b\tx\nlogs".getBytes(StandardCharsets.UTF_8));
  }

  @FuzzTest
  void layoutsFile(byte[] input) throws Exception {
    checkLayouts(input);
  }

  @FuzzTest
  void formerFile(byte[] input) throws Exception {
    checkFormer(input);
  }

  static void checkLayouts(byte[] input) throws Exception {
    @SuppressWarnings("unchecked")
    Map<Integer, Map<String, List<String>>> read =
        (Map<Integer, Map<String, List<String>>>)
            parsed(() -> LayoutsFile.parse(input), "layouts file", input.length);
    if (read != null) {
      assertThat(LayoutsFile.format(read)).isEqualTo(input);
    }
    assertRoutingKeepsItsPipelines(read == null ? Map.of() : read);
  }

  static void checkFormer(byte[] input) throws Exception {
    @SuppressWarnings("unchecked")
    Map<String, List<String>> read =
        (Map<String, List<String>>)
            parsed(() -> LayoutsFile.parseFormer(input), "former pipelines file", input.length);
    if (read != null) {
      assertFormerWritesBackTo(read, input);
    }
    assertRoutingKeepsItsPipelines(
        read == null ? Map.of() : Map.of(WriteAheadLog.FORMER_LAYOUT, read));
  }

  /** What {@code parse} read, or null when it found damage; anything else fails. */
  private static Object parsed(java.util.concurrent.Callable<Object> parse, String what, int length)
      throws Exception {
    Object[] read = new Object[1];
    AllocationBound.Call call = () -> read[0] = parse.call();
    AllocationBound.Outcome measured = AllocationBound.measure(call);
    if (measured.allocatedBytes() > AllocationBound.limitFor(length)) {
      // The first pass through a path loads its classes, once per JVM.
      for (int pass = 0; pass < 2; pass++) {
        measured = FuzzerHooks.measurePaused(call);
      }
    }
    Exception thrown = measured.thrown();
    if (thrown != null && !(thrown instanceof LayoutsFile.DamagedException)) {
      throw new AssertionError("escaped the reader: " + thrown, thrown);
    }
    FuzzerHooks.assertWithin(measured, what, length);
    return thrown == null ? read[0] : null;
  }

  /** A list read from a file of the earlier format says what the file says. */
  private static void assertFormerWritesBackTo(Map<String, List<String>> read, byte[] input) {
    Map<String, List<String>> nonNull = new LinkedHashMap<>();
    read.forEach((name, exporters) -> nonNull.put(name, exporters == null ? List.of() : exporters));
    byte[] checked = LayoutsFile.formatFormer(nonNull);
    if (!Arrays.equals(checked, input)) {
      // A file written before the header: its lines as they are, a bare name for unknown exporters.
      List<String> lines = new ArrayList<>();
      read.forEach(
          (name, exporters) ->
              lines.add(exporters == null ? name : name + "\t" + String.join("\t", exporters)));
      assertThat(String.join("\n", lines).getBytes(StandardCharsets.UTF_8)).isEqualTo(input);
    }
  }

  private static void assertRoutingKeepsItsPipelines(
      Map<Integer, Map<String, List<String>>> known) {
    LayoutRoutes routes = new LayoutRoutes(CURRENT, known);
    List<String> current = CURRENT.pipelines();
    List<Integer> layouts = new ArrayList<>(known.keySet());
    layouts.add(12345); // a layout the file does not have
    for (int layout : layouts) {
      List<String> old =
          known.containsKey(layout) ? new ArrayList<>(known.get(layout).keySet()) : List.of();
      for (Signal signal : Signal.values()) {
        int ofSignal = 0;
        for (int now = 0; now < current.size(); now++) {
          if (LayoutsFile.signalOf(current.get(now)) == signal) {
            ofSignal |= 1 << now;
          }
        }
        for (int bit = 0; bit < ROUTING_BITS; bit++) {
          int routing = 1 << bit;
          int targets = routes.targets(layout, routing, signal.ordinal(), ALL_CONSUMERS);
          int consumers = routes.consumersOf(layout, routing, signal.ordinal());
          assertThat(targets & ~ofSignal)
              .as("bit %d of a %s record goes to a pipeline of another signal", bit, signal)
              .isZero();
          int named = bit < old.size() ? current.indexOf(old.get(bit)) : -1;
          boolean unknown = !known.containsKey(layout) || bit >= old.size();
          if (unknown) {
            assertThat(targets).as("unknown: bit %d, %s", bit, signal).isEqualTo(ofSignal);
            assertThat(consumers).isEqualTo(ALL_CONSUMERS);
          } else if (named >= 0 && (ofSignal & (1 << named)) != 0) {
            // The pipeline of its name, and no other.
            assertThat(targets)
                .as("bit %d names %s, of a %s record", bit, old.get(bit), signal)
                .isEqualTo(1 << named);
            assertThat(consumers).isEqualTo(CURRENT.consumersOfRouting(1 << named));
          } else if (named >= 0) {
            // A pipeline of another signal by that name: the routing is not believed.
            assertThat(targets).isEqualTo(ofSignal);
          } else {
            // A pipeline no longer configured: owed to none, delivered to none.
            assertThat(targets).isZero();
            assertThat(consumers).isZero();
          }
        }
      }
    }
  }
}
