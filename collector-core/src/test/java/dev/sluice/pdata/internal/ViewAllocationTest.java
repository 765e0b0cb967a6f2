package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.ThreadMXBean;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchView;
import dev.sluice.pdata.ItemVisitor;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.edit.AttributeActions;
import dev.sluice.pdata.edit.AttributeValue;
import dev.sluice.pdata.view.AnyValueView;
import dev.sluice.pdata.view.ArrayCursor;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.DataPointView;
import dev.sluice.pdata.view.ExemplarView;
import dev.sluice.pdata.view.LogRecordView;
import dev.sluice.pdata.view.MetricView;
import dev.sluice.pdata.view.ResourceView;
import dev.sluice.pdata.view.ScopeView;
import dev.sluice.pdata.view.SpanEventView;
import dev.sluice.pdata.view.SpanLinkView;
import dev.sluice.pdata.view.SpanView;
import dev.sluice.testkit.RandomRequests;
import java.lang.management.ManagementFactory;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Visiting an indexed batch allocates nothing: every span, log record and data point is read
 * through the same few flyweights, every attribute (nested values included) through caller-made
 * cursors. Measured in bytes allocated on the calling thread around warm visits, not in time.
 */
class ViewAllocationTest {
  private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();
  private static final int WARM_UP_VISITS = 300;
  private static final int MEASURED_VISITS = 100;
  private static final int ROUNDS = 3;

  @BeforeAll
  static void allocationIsMeasurable() {
    assertThat(THREADS.isThreadAllocatedMemorySupported()).isTrue();
    THREADS.setThreadAllocatedMemoryEnabled(true);
    allocated();
    long before = allocated();
    assertThat(allocated() - before).isZero();
  }

  private static long allocated() {
    return THREADS.getCurrentThreadAllocatedBytes();
  }

  /** Reads every field a filter or the debug exporter would, and keeps a sum so none is dead. */
  private static final class Reader
      implements BatchView.SpanVisitor, BatchView.LogRecordVisitor, BatchView.DataPointVisitor {
    final AttributeCursor attributes = new AttributeCursor();
    final AttributeCursor nested = new AttributeCursor();
    final ArrayCursor elements = new ArrayCursor();
    final SpanEventView events = new SpanEventView();
    final SpanLinkView links = new SpanLinkView();
    final ExemplarView exemplars = new ExemplarView();
    final StringBuilder ids = new StringBuilder(64);
    final byte[] traceId = new byte[SpanView.TRACE_ID_BYTES];
    final byte[] keyBuffer = new byte[256];
    long sum;

    @Override
    public void visit(ResourceView resource, ScopeView scope, SpanView span) {
      headers(resource, scope);
      span.copyTraceId(traceId);
      sum += traceId[3] + span.traceIdHigh() + span.spanIdLong() + span.kind() + span.statusCode();
      sum += span.startTimeUnixNano() + span.name().length() + (span.nameEquals("GET") ? 1 : 0);
      readAll(span.attributes(attributes));
      span.events(events);
      while (events.next()) {
        sum += events.timeUnixNano() + events.name().length();
        readAll(events.attributes(attributes));
      }
      span.links(links);
      while (links.next()) {
        sum += links.spanIdLong();
        readAll(links.attributes(attributes));
      }
    }

    @Override
    public void visit(ResourceView resource, ScopeView scope, LogRecordView log) {
      headers(resource, scope);
      sum += log.timeUnixNano() + log.severityNumber() + log.severityText().length();
      readValue(log.body(), 0);
      readAll(log.attributes(attributes));
    }

    @Override
    public void visit(
        ResourceView resource, ScopeView scope, MetricView metric, DataPointView point) {
      headers(resource, scope);
      sum += metric.name().length() + metric.aggregationTemporality() + point.timeUnixNano();
      sum += (long) (point.doubleValue() + point.sum()) + point.intValue() + point.count();
      for (int i = 0; i < point.bucketCountsCount(); i++) {
        sum += point.bucketCount(i) + (long) point.explicitBound(i);
      }
      for (int i = 0; i < point.positiveBucketCountsCount(); i++) {
        sum += point.positiveBucketCount(i);
      }
      for (int i = 0; i < point.quantileValuesCount(); i++) {
        sum += (long) point.quantileValue(i);
      }
      readAll(point.attributes(attributes));
      sum += point.exemplarCount();
      point.exemplars(exemplars);
      while (exemplars.next()) {
        sum += exemplars.timeUnixNano() + (long) exemplars.doubleValue() + exemplars.intValue();
        sum += exemplars.traceIdHigh() + exemplars.traceIdLow() + exemplars.spanIdLong();
        ids.setLength(0);
        exemplars.traceIdHex(ids);
        exemplars.spanIdHex(ids);
        sum += ids.length() + (exemplars.hasSpanId() ? 1 : 0) + (exemplars.hasTraceId() ? 1 : 0);
        readAll(exemplars.filteredAttributes(attributes));
      }
    }

    private void headers(ResourceView resource, ScopeView scope) {
      if (resource.attributes(attributes).find("service.name")) {
        sum += attributes.value().stringValue().length();
      }
      sum += scope.name().length() + scope.version().length();
    }

    private void readAll(AttributeCursor cursor) {
      while (cursor.next()) {
        sum += cursor.key().copyTo(keyBuffer, 0);
        readValue(cursor.value(), 0);
      }
    }

    /** Nested values are read with the shared cursors one level deep, their scalars below that. */
    private void readValue(AnyValueView value, int depth) {
      switch (value.type()) {
        case STRING:
          sum += value.stringValue().length();
          break;
        case BOOL:
          sum += value.boolValue() ? 1 : 0;
          break;
        case INT:
          sum += value.intValue();
          break;
        case DOUBLE:
          sum += (long) value.doubleValue();
          break;
        case BYTES:
          sum += value.bytesLength();
          break;
        case ARRAY:
          if (depth == 0) {
            value.array(elements);
            while (elements.next()) {
              readValue(elements.value(), 1);
            }
          }
          break;
        case KVLIST:
          if (depth == 0) {
            value.kvlist(nested);
            while (nested.next()) {
              sum += nested.key().length();
              readValue(nested.value(), 1);
            }
          }
          break;
        default:
          break;
      }
    }
  }

  @Test
  void visitingEveryAttributeOfAThousandSpansAllocatesNothing() throws Exception {
    byte[] request = OtlpTestData.realisticTraces(2, 500).toByteArray();
    Batch batch = Batch.of(new OtlpIndexer().index(Signal.TRACES, request));
    assertThat(batch.unitCount()).isEqualTo(1000);

    assertVisitsAllocateNothing(batch);
  }

  @Test
  void visitingRichRandomRequestsOfEverySignalAllocatesNothing() throws Exception {
    for (Signal signal : Signal.values()) {
      Batch batch = new Batch(signal);
      Random random = new Random(signal.ordinal());
      for (int r = 0; r < 5; r++) {
        batch.add(
            new OtlpIndexer()
                .index(
                    signal,
                    RandomRequests.request(signal, random, RandomRequests.Sizes.DEFAULT, null)
                        .toByteArray()));
      }
      Batch cut = new Batch(signal);
      batch.moveTo(cut, batch.unitCount() / 3);
      cut.addAll(batch);

      assertVisitsAllocateNothing(cut);
    }
  }

  @Test
  void readingEachItemThroughItsViewsInAnEditVisitAllocatesNothing() throws Exception {
    for (Signal signal : Signal.values()) {
      Batch batch = new Batch(signal);
      Random random = new Random(signal.ordinal() + 10);
      for (int r = 0; r < 5; r++) {
        batch.add(
            new OtlpIndexer()
                .index(
                    signal,
                    RandomRequests.request(signal, random, RandomRequests.Sizes.DEFAULT, null)
                        .toByteArray()));
      }
      Reader reader = new Reader();
      ItemVisitor visitor =
          item -> {
            switch (item.signal()) {
              case TRACES:
                reader.visit(item.resourceView(), item.scopeView(), item.span());
                break;
              case LOGS:
                reader.visit(item.resourceView(), item.scopeView(), item.logRecord());
                break;
              default:
                reader.visit(
                    item.resourceView(), item.scopeView(), item.metric(), item.dataPoint());
                break;
            }
          };
      for (int i = 0; i < WARM_UP_VISITS; i++) {
        batch.visit(visitor);
      }
      long bytes = leastAllocated(() -> batch.visit(visitor));

      assertThat(bytes).as(MEASURED_VISITS + " edit visits of " + batch).isZero();
      assertThat(reader.sum).isNotZero();
      batch.clear();
    }
  }

  @Test
  void visitingABatchWithReplacedItemsAndHeadersAllocatesNothing() throws Exception {
    for (Signal signal : Signal.values()) {
      Batch batch = new Batch(signal);
      Random random = new Random(signal.ordinal() + 20);
      for (int r = 0; r < 3; r++) {
        batch.add(
            new OtlpIndexer()
                .index(
                    signal,
                    RandomRequests.request(signal, random, RandomRequests.Sizes.DEFAULT, null)
                        .toByteArray()));
      }
      AttributeActions editor =
          AttributeActions.builder().upsert("k", AttributeValue.string("v")).build();
      batch.visit(
          item -> {
            ActionVisitors.apply(item, editor);
            if (!item.resourceReplacedInThisVisit()) {
              item.editResource().apply(editor);
            }
            if (!item.scopeReplacedInThisVisit()) {
              item.editScope().apply(editor);
            }
          });

      assertVisitsAllocateNothing(batch);
      batch.clear();
    }
  }

  /**
   * Bytes allocated by {@value #MEASURED_VISITS} visits, the least of {@value #ROUNDS} rounds: an
   * allocation per visit or per item shows in every round, while the JIT's one-off work (a late
   * compilation that deoptimizes and materializes a scalar-replaced object) shows in one at most.
   */
  private static long leastAllocated(Runnable visit) {
    long least = Long.MAX_VALUE;
    for (int round = 0; round < ROUNDS; round++) {
      long before = allocated();
      for (int i = 0; i < MEASURED_VISITS; i++) {
        visit.run();
      }
      least = Math.min(least, allocated() - before);
    }
    return least;
  }

  private static void assertVisitsAllocateNothing(Batch batch) {
    BatchView views = new BatchView();
    Reader reader = new Reader();
    for (int i = 0; i < WARM_UP_VISITS; i++) {
      visit(views, batch, reader);
    }
    long bytes = leastAllocated(() -> visit(views, batch, reader));

    assertThat(bytes).as(MEASURED_VISITS + " visits of " + batch).isZero();
    assertThat(reader.sum).isNotZero();
  }

  private static void visit(BatchView views, Batch batch, Reader reader) {
    switch (batch.signal()) {
      case TRACES:
        views.forEachSpan(batch, reader);
        break;
      case LOGS:
        views.forEachLogRecord(batch, reader);
        break;
      default:
        views.forEachDataPoint(batch, reader);
        break;
    }
  }
}
