package dev.sluice.connector.routing;

import dev.sluice.ottl.EvalContext;
import dev.sluice.ottl.OttlCondition;
import dev.sluice.ottl.OttlEvaluationException;
import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.PartKey;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One thread's routing of one batch at a time: the conditions compiled for it, and the {@link
 * PartKey} that sends each span, log record or data point to its part. Part 0 is for data that goes
 * nowhere (no route matched and there are no default pipelines); target {@code t} is part {@code t
 * + 1}.
 *
 * <p>An item is tried against the routes in order, as the Collector moves data route by route: the
 * first {@code move} route it matches takes it; each {@code copy} route it matches before that gets
 * it too, recorded per unit for {@link #copyKey}; with no {@code move} match it goes to the default
 * pipelines. A resource route (and a request route, on the metadata of the request the block came
 * in) is evaluated once per resource block, a metric route once per metric, whatever the number of
 * units they hold; when every route is a resource route, the whole decision is made once per block.
 *
 * <p>The key keeps state, so a run serves one thread at a time (the connector keeps a pool).
 */
final class RouteRun implements PartKey {
  static final int NOWHERE = 0;

  private static final byte UNKNOWN = 0;
  private static final byte MATCHED = 1;
  private static final byte NOT_MATCHED = 2;

  private final RoutingTable table;
  private final RouteFailures failures;
  private final OttlCondition.Evaluator[] evaluators;
  private final EvalContext context = new EvalContext();

  // What the resource and metric routes decided for the block and the metric last seen.
  private final byte[] resourceDecisions;
  private final byte[] metricDecisions;
  private OtlpIndex blockRequest;
  private int block = -1;
  private OtlpIndex metricRequest;
  private int metric = -1;
  private boolean blockDecided;
  private int blockPart;
  private final long[] blockCopies;

  // The units of the batch in the order the partition asks about them, and per unit the copy routes
  // it matched (a bit per copy route).
  private final int copyWords;
  private long[] copies = new long[0];
  private long[] copiesMatched;
  private int unit;
  private boolean unitPrepared;

  RouteRun(RoutingTable table, RouteFailures failures) {
    this.table = table;
    this.failures = failures;
    List<OttlCondition> compiled = new ArrayList<>();
    for (RoutingTable.Route route : table.routes) {
      if (route.condition().condition() != null) {
        compiled.add(route.condition().condition());
      }
    }
    // Compiled together, span conditions read a span's attributes in one walk.
    List<OttlCondition.Evaluator> shared = OttlCondition.newEvaluators(compiled);
    this.evaluators = new OttlCondition.Evaluator[table.routes.length];
    int next = 0;
    for (int r = 0; r < table.routes.length; r++) {
      if (table.routes[r].condition().condition() != null) {
        evaluators[r] = shared.get(next++);
      }
    }
    this.resourceDecisions = new byte[table.routes.length];
    this.metricDecisions = new byte[table.routes.length];
    this.copyWords = (table.copyRoutes + Long.SIZE - 1) / Long.SIZE;
    this.blockCopies = new long[copyWords];
    this.copiesMatched = new long[copyWords];
  }

  /** Before a batch of {@code units} units. */
  void start(long units) {
    unit = 0;
    blockRequest = null;
    metricRequest = null;
    blockDecided = false;
    if (copyWords > 0) {
      long needed = units * copyWords;
      if (needed > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("a batch too large to route: " + units + " units");
      }
      if (copies.length < needed) {
        copies = new long[(int) needed];
      } else {
        Arrays.fill(copies, 0, (int) needed, 0L);
      }
      Arrays.fill(copiesMatched, 0L);
    }
  }

  /** After a batch: lets go of it. */
  void finish() {
    context.clear();
    blockRequest = null;
    metricRequest = null;
  }

  /** Whether some unit matched copy route {@code copyIndex}. */
  boolean copyMatched(int copyIndex) {
    return (copiesMatched[copyIndex / Long.SIZE] & (1L << copyIndex)) != 0;
  }

  /**
   * A key that puts each unit the last {@link #partOf} pass matched with copy route {@code
   * copyIndex} in part 1, the others in part 0. It must be asked about the same batch, which is not
   * changed in between, so that it is asked about the same units in the same order.
   */
  PartKey copyKey(int copyIndex) {
    int word = copyIndex / Long.SIZE;
    long bit = 1L << copyIndex;
    int[] next = {0};
    return item -> (copies[next[0]++ * copyWords + word] & bit) != 0 ? 1 : 0;
  }

  @Override
  public int partOf(BatchItem item) {
    int at = unit++;
    unitPrepared = false;
    if (item.request() != blockRequest || item.resource() != block) {
      blockRequest = item.request();
      block = item.resource();
      Arrays.fill(resourceDecisions, UNKNOWN);
      blockDecided = false;
    }
    if (table.perResourceBlock && blockDecided) {
      recordCopies(at, blockCopies);
      return blockPart;
    }
    if (table.signal == Signal.METRICS
        && (item.request() != metricRequest || item.item() != metric)) {
      metricRequest = item.request();
      metric = item.item();
      Arrays.fill(metricDecisions, UNKNOWN);
    }
    if (table.perResourceBlock) {
      Arrays.fill(blockCopies, 0L);
      blockPart = decide(item, at, blockCopies);
      blockDecided = true;
      recordCopies(at, blockCopies);
      return blockPart;
    }
    return decide(item, at, null);
  }

  /** The part of the unit {@code at}; the copy routes it matches go to {@code into} or its row. */
  private int decide(BatchItem item, int at, long[] into) {
    RoutingTable.Route[] routes = table.routes;
    for (int r = 0; r < routes.length; r++) {
      RoutingTable.Route route = routes[r];
      if (!matches(r, route, item)) {
        continue;
      }
      if (!route.copy()) {
        return route.target() + 1;
      }
      int copyIndex = route.copyIndex();
      long bit = 1L << copyIndex;
      if (into != null) {
        into[copyIndex / Long.SIZE] |= bit;
      } else {
        copies[at * copyWords + copyIndex / Long.SIZE] |= bit;
      }
      copiesMatched[copyIndex / Long.SIZE] |= bit;
    }
    return table.defaultTarget == RoutingTable.NO_TARGET ? NOWHERE : table.defaultTarget + 1;
  }

  private void recordCopies(int at, long[] blockRow) {
    if (copyWords > 0) {
      System.arraycopy(blockRow, 0, copies, at * copyWords, copyWords);
    }
  }

  private boolean matches(int r, RoutingTable.Route route, BatchItem item) {
    byte[] decisions =
        switch (route.context()) {
          case RESOURCE, REQUEST -> resourceDecisions;
          case METRIC -> metricDecisions;
          default -> null;
        };
    if (decisions != null && decisions[r] != UNKNOWN) {
      return decisions[r] == MATCHED;
    }
    boolean matched = evaluate(r, route, item);
    if (decisions != null) {
      decisions[r] = matched ? MATCHED : NOT_MATCHED;
    }
    return matched;
  }

  private boolean evaluate(int r, RoutingTable.Route route, BatchItem item) {
    if (route.context() == RouteContext.REQUEST) {
      return route.condition().matches(item.request().metadata());
    }
    OttlCondition.Evaluator evaluator = evaluators[r];
    if (evaluator == null) {
      return true;
    }
    prepare(item);
    try {
      return evaluator.matches(context);
    } catch (OttlEvaluationException e) {
      failures.failed(route.condition(), e);
      return false;
    }
  }

  /** Points the context at the unit, once per unit, whatever the routes' contexts. */
  private void prepare(BatchItem item) {
    if (unitPrepared) {
      return;
    }
    unitPrepared = true;
    context.block(item);
    switch (table.signal) {
      case TRACES -> context.span(item.span());
      case LOGS -> context.logRecord(item.logRecord());
      case METRICS -> context.metric(item.metric()).dataPoint(item.dataPoint());
    }
  }
}
