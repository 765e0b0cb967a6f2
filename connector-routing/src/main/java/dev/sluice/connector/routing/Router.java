package dev.sluice.connector.routing;

import dev.sluice.component.Admission;
import dev.sluice.component.Connector;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Batch;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The {@code routing} connector for one signal: splits each batch by route into one part per target
 * (the pipelines of a route, or the default pipelines) and hands each part to its target. Splitting
 * moves slices, never bytes: a run of items that go to one target stays one slice, and each item
 * keeps its resource and scope header.
 *
 * <p>Backpressure: the batch is {@link Admission#ACCEPTED} only when every target took its part.
 * Otherwise the answer is the refusal ({@link Admission#FAILED} first, else the last one), the
 * batch is left as it was and stays the caller's, and the parts are offered all the same: a target
 * that took its part keeps it, and gets it again when the sender retries the batch (at least once,
 * as when one receiver feeds several pipelines). Data that goes nowhere is counted only when the
 * batch is accepted, so a retry does not count it twice.
 *
 * <p>Thread-safe: each call takes a {@link RouteRun} of its own from a pool.
 */
final class Router implements Connector {
  private final RoutingTable table;
  private final RouteFailures failures;
  private final MetricRegistry.Counter unrouted;
  private final ConcurrentLinkedQueue<RouteRun> runs = new ConcurrentLinkedQueue<>();

  Router(RoutingTable table, RouteFailures failures, MetricRegistry.Counter unrouted) {
    this.table = table;
    this.failures = failures;
    this.unrouted = unrouted;
  }

  @Override
  public Admission consume(Batch batch) {
    if (batch.signal() != table.signal) {
      throw new IllegalArgumentException(
          "a routing connector of " + table.signal + " was handed a " + batch.signal() + " batch");
    }
    Batch[] parts = new Batch[table.targets.length + 1];
    for (int i = 0; i < parts.length; i++) {
      parts[i] = new Batch(table.signal);
    }
    try {
      split(batch, parts);
    } catch (RouteFailures.Refused e) {
      clear(parts, 0);
      return Admission.FAILED;
    } catch (RuntimeException | Error e) {
      clear(parts, 0);
      throw e;
    }
    Batch nowhere = parts[RouteRun.NOWHERE];
    long nowhereUnits = nowhere.unitCount();
    nowhere.clear();
    Admission result = Admission.ACCEPTED;
    int next = 1;
    try {
      for (; next < parts.length; next++) {
        Batch part = parts[next];
        if (part.unitCount() == 0) {
          part.clear(); // nothing for this target
          continue;
        }
        Admission admission = table.targets[next - 1].consume(part);
        if (admission != Admission.ACCEPTED) {
          part.clear(); // refused: it is still ours
          if (result != Admission.FAILED) {
            result = admission;
          }
        }
      }
    } finally {
      // Only when a target threw: the parts not offered yet are let go of.
      clear(parts, next + 1);
    }
    if (result == Admission.ACCEPTED) {
      unrouted.add(nowhereUnits);
      batch.clear(); // every target holds its own part
    }
    return result;
  }

  /** Puts each unit of {@code batch} in its part; {@code batch} is not changed. */
  private void split(Batch batch, Batch[] parts) {
    RouteRun run = runs.poll();
    if (run == null) {
      run = new RouteRun(table, failures);
    }
    try {
      run.start(batch.unitCount());
      batch.partitionInto(parts, run);
      for (RoutingTable.Route route : table.routes) {
        if (route.copy() && run.copyMatched(route.copyIndex())) {
          Batch[] copied = {new Batch(table.signal), new Batch(table.signal)};
          try {
            batch.partitionInto(copied, run.copyKey(route.copyIndex()));
            parts[route.target() + 1].addAll(copied[1]);
          } finally {
            clear(copied, 0);
          }
        }
      }
    } finally {
      run.finish();
      runs.offer(run);
    }
  }

  /** Clears the parts from {@code from} on; part 0 (data that goes nowhere) too. */
  private static void clear(Batch[] parts, int from) {
    parts[0].clear();
    for (int i = Math.max(from, 1); i < parts.length; i++) {
      parts[i].clear();
    }
  }
}
