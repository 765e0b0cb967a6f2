package dev.sluice.service;

import dev.sluice.pdata.Signal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a logged record's layout and routing mean in the current configuration. A record names
 * pipelines by their bits in the layout it was logged under ({@link LayoutsFile}); each goes to the
 * current durable pipeline of that name, and to none when no pipeline has that name now: a record
 * is never delivered to another pipeline than those it was logged for.
 *
 * <p>A record whose routing cannot be believed (its layout is unknown, because the layouts file is
 * missing or damaged; a bit past its layout's pipelines; a name that is now a pipeline of another
 * signal) goes to every current durable pipeline of its signal, and every durable exporter may owe
 * it: re-delivery, never loss.
 */
final class LayoutRoutes {
  /** No layout number is current yet (while the log is read at start). */
  static final int NO_LAYOUT = Integer.MIN_VALUE;

  private final List<String> currentPipelines;
  private final int[] consumersOfPipeline;
  private final int[] signalOfPipeline;
  private final int[] consumersOfCurrentBit;
  private final int allConsumers;
  private final Map<Integer, Map<String, List<String>>> known;
  // By known layout number: each bit's current pipeline, or -1 when none has its name now.
  private final Map<Integer, int[]> currentOfBit = new HashMap<>();
  private volatile int currentLayout = NO_LAYOUT;

  /**
   * @param current the durable pipelines now, with their durable exporters
   * @param known the layouts the layouts file holds, by number
   */
  LayoutRoutes(DurableLayout current, Map<Integer, Map<String, List<String>>> known) {
    this.currentPipelines = current.pipelines();
    this.consumersOfPipeline = new int[currentPipelines.size()];
    this.signalOfPipeline = new int[currentPipelines.size()];
    for (int now = 0; now < currentPipelines.size(); now++) {
      consumersOfPipeline[now] = current.consumersOfRouting(1 << now);
      Signal signal = LayoutsFile.signalOf(currentPipelines.get(now));
      signalOfPipeline[now] = signal == null ? -1 : signal.ordinal();
    }
    this.consumersOfCurrentBit = current.consumersOfBits();
    this.allConsumers = (int) ((1L << current.consumers().size()) - 1);
    this.known = Map.copyOf(known);
    known.forEach(
        (number, pipelines) -> {
          int[] map = new int[pipelines.size()];
          int bit = 0;
          for (String name : pipelines.keySet()) {
            map[bit++] = currentPipelines.indexOf(name);
          }
          currentOfBit.put(number, map);
        });
  }

  /** From now on, records of layout {@code number} are the current configuration's. */
  void current(int number) {
    currentLayout = number;
  }

  int currentLayout() {
    return currentLayout;
  }

  /** The layouts the file held, by number. */
  Map<Integer, Map<String, List<String>>> known() {
    return known;
  }

  /** The log's consumers (a bit per index) a record goes to. */
  int consumersOf(int layout, int routing, int signal) {
    if (layout == currentLayout) {
      int consumers = 0;
      for (int left = routing; left != 0; left &= left - 1) {
        int bit = Integer.numberOfTrailingZeros(left);
        if (bit < consumersOfCurrentBit.length) {
          consumers |= consumersOfCurrentBit[bit];
        }
      }
      return consumers;
    }
    if (!believable(layout, routing, signal)) {
      return allConsumers;
    }
    int[] map = currentOfBit.get(layout);
    int consumers = 0;
    for (int left = routing; left != 0; left &= left - 1) {
      int now = map[Integer.numberOfTrailingZeros(left)];
      if (now >= 0) {
        consumers |= consumersOfPipeline[now];
      }
    }
    return consumers;
  }

  /**
   * The current pipelines (a bit per index) a record goes to, those with a consumer of {@code owed}
   * among them.
   */
  int targets(int layout, int routing, int signal, int owed) {
    int targets = 0;
    if (layout == currentLayout || believable(layout, routing, signal)) {
      int[] map = layout == currentLayout ? null : currentOfBit.get(layout);
      for (int left = routing; left != 0; left &= left - 1) {
        int bit = Integer.numberOfTrailingZeros(left);
        int now = map == null ? (bit < currentPipelines.size() ? bit : -1) : map[bit];
        if (now >= 0 && (consumersOfPipeline[now] & owed) != 0) {
          targets |= 1 << now;
        }
      }
      return targets;
    }
    for (int now = 0; now < currentPipelines.size(); now++) {
      if (signalOfPipeline[now] == signal && (consumersOfPipeline[now] & owed) != 0) {
        targets |= 1 << now;
      }
    }
    return targets;
  }

  /**
   * Whether a record's routing says where it goes: its layout is known, each of its bits names a
   * pipeline of that layout, and none is now a pipeline of another signal (a pipeline's name
   * carries its signal, so only damage can say so).
   */
  boolean believable(int layout, int routing, int signal) {
    int[] map = currentOfBit.get(layout);
    if (map == null) {
      return false;
    }
    for (int left = routing; left != 0; left &= left - 1) {
      int bit = Integer.numberOfTrailingZeros(left);
      if (bit >= map.length) {
        return false;
      }
      int now = map[bit];
      if (now >= 0 && signalOfPipeline[now] >= 0 && signalOfPipeline[now] != signal) {
        return false;
      }
    }
    return true;
  }

  /**
   * The pipelines a believable record was logged for, each with its durable exporters then (null
   * when not recorded), by name.
   */
  List<Map.Entry<String, List<String>>> pipelinesOf(int layout, int routing) {
    List<Map.Entry<String, List<String>>> pipelines = new ArrayList<>();
    Map<String, List<String>> then = known.get(layout);
    if (then == null) {
      return pipelines;
    }
    List<Map.Entry<String, List<String>>> byBit = new ArrayList<>(then.entrySet());
    for (int left = routing; left != 0; left &= left - 1) {
      int bit = Integer.numberOfTrailingZeros(left);
      if (bit < byBit.size()) {
        pipelines.add(byBit.get(bit));
      }
    }
    return pipelines;
  }

  /** Whether a pipeline of that name is configured (durable) now. */
  boolean configured(String pipeline) {
    return currentPipelines.contains(pipeline);
  }
}
