package dev.sluice.processor.tailsampling;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The trace table against a {@code HashMap} under random adds and removes, with trace IDs from a
 * small range and few live at once, so that probe runs collide, wrap around the table's end, and
 * are shifted back by removals.
 */
class TraceTableTest {
  private record Id(long high, long low) {}

  @Test
  void findsWhatAHashMapFindsUnderRandomAddsAndRemoves() {
    for (long seed = 0; seed < 20; seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      TraceTable table = new TraceTable(4);
      Map<Id, TraceData> reference = new HashMap<>();
      List<TraceData> held = new ArrayList<>();
      for (int step = 0; step < 5_000; step++) {
        long high = random.nextInt(3);
        long low = random.nextInt(200);
        Id id = new Id(high, low);
        // Few traces live at once, so the table stays small (16 or 32 slots) and its probe runs
        // often wrap around its end.
        if (held.size() < 3 + random.nextInt(10) && !reference.containsKey(id)) {
          TraceData trace = new TraceData(high, low, 0, 0);
          table.add(trace);
          reference.put(id, trace);
          held.add(trace);
        } else if (!held.isEmpty()) {
          TraceData gone = held.remove(random.nextInt(held.size()));
          assertThat(table.remove(gone)).isTrue();
          reference.remove(new Id(gone.traceIdHigh, gone.traceIdLow));
          assertThat(table.remove(gone)).isFalse();
        }
        assertThat(table.size()).isEqualTo(reference.size());
        for (int probe = 0; probe < 4; probe++) {
          long h = random.nextInt(3);
          long l = random.nextInt(200);
          assertThat(table.get(h, l)).isSameAs(reference.get(new Id(h, l)));
        }
      }
      for (Map.Entry<Id, TraceData> entry : reference.entrySet()) {
        assertThat(table.get(entry.getKey().high(), entry.getKey().low()))
            .isSameAs(entry.getValue());
      }
    }
  }
}
