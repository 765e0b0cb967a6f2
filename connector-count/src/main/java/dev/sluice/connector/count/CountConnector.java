package dev.sluice.connector.count;

import dev.sluice.component.Admission;
import dev.sluice.component.Connector;
import dev.sluice.component.ConnectorOutput;
import dev.sluice.connector.count.CountConfig.Section;
import dev.sluice.connector.count.EmissionClock.Interval;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import java.util.List;

/**
 * Counts the items of each batch (spans and span events, metrics and data points, or log records)
 * and hands the counts on as one metrics request, built with the data model's builder.
 *
 * <p>It keeps no counts between batches: what a batch counted goes out with that batch, and {@link
 * #consume} answers what the pipelines fed answered for it. When they refuse, the batch stays the
 * caller's unchanged and its counts are forgotten, so a batch the sender retries is counted once.
 * Reading a batch changes nothing in it.
 *
 * <p>Thread-safe: batches may be counted on several threads at once, each with its own compiled
 * conditions and tables.
 */
final class CountConnector implements Connector {
  private final Signal signal;
  private final ConnectorOutput output;
  private final EmissionClock clock;
  private final ThreadLocal<CountRun> runs;
  private final Object handingOn = new Object();

  CountConnector(
      Signal signal,
      List<MetricDef> defs,
      ConnectorOutput output,
      EmissionClock clock,
      ConditionFailures failures) {
    this.signal = signal;
    this.output = output;
    this.clock = clock;
    this.runs = ThreadLocal.withInitial(() -> new CountRun(defs, failures));
  }

  @Override
  public Admission consume(Batch batch) {
    if (batch.signal() != signal) {
      throw new IllegalArgumentException(
          "a count connector for " + signal + " was handed a " + batch.signal() + " batch");
    }
    CountRun run = runs.get();
    try {
      count(batch, run);
      if (run.nothingCounted()) {
        batch.clear();
        return Admission.ACCEPTED;
      }
      Admission answer = handOn(run, batch);
      if (answer == Admission.ACCEPTED) {
        batch.clear();
      }
      return answer;
    } finally {
      run.finish();
    }
  }

  /**
   * Claims the next interval and hands the counts on for it, with the batch they were counted from:
   * a logged request of it stays owed in the write-ahead log until its counts are delivered. One
   * batch's counts at a time, so that they leave in the order of their intervals: a consumer
   * accumulating the deltas of a series sees them in order. Counting, the costly part, is done
   * before, on each caller's thread at once.
   */
  private Admission handOn(CountRun run, Batch counted) {
    synchronized (handingOn) {
      Interval interval = clock.claim();
      OtlpIndex counts = run.build(interval.startNanos(), interval.endNanos());
      return output.consume(counts, counted);
    }
  }

  private void count(Batch batch, CountRun run) {
    switch (signal) {
      case TRACES -> batch.visit(run.spanVisitor);
      case METRICS -> {
        if (run.counts(Section.METRICS)) {
          batch.visitMetrics(run.metricVisitor);
        }
        if (run.counts(Section.DATA_POINTS)) {
          batch.visit(run.dataPointVisitor);
        }
      }
      case LOGS -> batch.visit(run.logRecordVisitor);
    }
  }
}
