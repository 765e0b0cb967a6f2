package dev.sluice.connector.count;

import dev.sluice.connector.count.CountConfig.Section;
import dev.sluice.connector.count.CountValue.Entry;
import dev.sluice.ottl.EvalContext;
import dev.sluice.ottl.OttlCondition;
import dev.sluice.ottl.OttlEvaluationException;
import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.ItemVisitor;
import dev.sluice.pdata.build.DataPointWriter;
import dev.sluice.pdata.build.MetricsBuilder;
import dev.sluice.pdata.build.MetricsBuilder.MetricWriter;
import dev.sluice.pdata.build.ValueWriter;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.DataPointView;
import dev.sluice.pdata.view.LogRecordView;
import dev.sluice.pdata.view.MetricView;
import dev.sluice.pdata.view.SpanEventView;
import dev.sluice.pdata.view.SpanView;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One thread's counting: the conditions compiled for it, the item context and cursors, the counts
 * of the batch being counted, and the builder of the request that carries them. The visitors are
 * made once, so that counting items without attributes allocates nothing per item.
 *
 * <p>Counts are grouped by resource, a resource being known by its attributes: the blocks of a
 * batch with the same resource attributes (in any order) are counted together, as one series per
 * metric and set of attribute values.
 */
final class CountRun {
  /** The instrumentation scope of the emitted metrics. */
  static final String SCOPE_NAME = "dev.sluice.connector.count";

  /** A table of counts that grew past this many resources is not kept for the next batch. */
  private static final int MAX_RETAINED_RESOURCES = 1024;

  private final List<MetricDef> defs;
  private final OttlCondition.Evaluator[][] evaluators;
  private final ConditionFailures failures;

  // Where each section's metrics are in `defs`: [first, end).
  private final int[] firstDef = new int[Section.values().length];
  private final int[] endDef = new int[Section.values().length];

  private final EvalContext context = new EvalContext();
  private final AttributeCursor itemAttributes = new AttributeCursor();
  private final AttributeCursor scopeAttributes = new AttributeCursor();
  private final AttributeCursor resourceAttributes = new AttributeCursor();
  private final SpanEventView events = new SpanEventView();
  private final MetricsBuilder builder = new MetricsBuilder();

  private Map<List<Entry>, ResourceCounts> resources = new LinkedHashMap<>();
  private ResourceCounts current;
  private OtlpIndex currentRequest;
  private int currentResource = -1;

  // The metric last counted by the metric visit, so that the parts of one metric that slices cut
  // (and the marshaler writes as one) count once.
  private OtlpIndex lastMetricRequest;
  private int lastMetric = -1;

  final ItemVisitor spanVisitor = this::visitSpan;
  final ItemVisitor logRecordVisitor = this::visitLogRecord;
  final ItemVisitor metricVisitor = this::visitMetric;
  final ItemVisitor dataPointVisitor = this::visitDataPoint;

  /**
   * @param defs the metrics counted, grouped by section in the order of {@link Section}
   */
  CountRun(List<MetricDef> defs, ConditionFailures failures) {
    this.defs = defs;
    this.failures = failures;
    for (int d = 0; d < defs.size(); d++) {
      int section = defs.get(d).section().ordinal();
      if (firstDef[section] == endDef[section]) {
        firstDef[section] = d;
      } else if (endDef[section] != d) {
        throw new IllegalArgumentException("the metrics of a section must be listed together");
      }
      endDef[section] = d + 1;
    }
    this.evaluators = new OttlCondition.Evaluator[defs.size()][];
    for (Section section : Section.values()) {
      compileSection(section);
    }
  }

  /**
   * Compiles a section's conditions for this thread together, so that span conditions read each
   * span's attributes in one walk.
   */
  private void compileSection(Section section) {
    int from = firstDef[section.ordinal()];
    int to = endDef[section.ordinal()];
    List<OttlCondition> all = new ArrayList<>();
    for (int d = from; d < to; d++) {
      all.addAll(defs.get(d).conditions());
    }
    List<OttlCondition.Evaluator> compiled = OttlCondition.newEvaluators(all);
    int next = 0;
    for (int d = from; d < to; d++) {
      int count = defs.get(d).conditions().size();
      evaluators[d] = compiled.subList(next, next + count).toArray(new OttlCondition.Evaluator[0]);
      next += count;
    }
  }

  boolean counts(Section section) {
    return firstDef[section.ordinal()] < endDef[section.ordinal()];
  }

  /** Whether the batch counted gave no count at all. */
  boolean nothingCounted() {
    for (ResourceCounts counts : resources.values()) {
      if (counts.counted()) {
        return false;
      }
    }
    return true;
  }

  /** After a batch, counted or not: the counts are forgotten, the views let go of. */
  void finish() {
    context.clear();
    currentRequest = null;
    currentResource = -1;
    current = null;
    lastMetricRequest = null;
    lastMetric = -1;
    if (resources.size() > MAX_RETAINED_RESOURCES) {
      resources = new LinkedHashMap<>();
    } else {
      resources.clear();
    }
    builder.reset();
  }

  private void visitSpan(BatchItem item) {
    ResourceCounts counts = resourceOf(item);
    SpanView span = item.span();
    context.block(item).span(span);
    if (counts(Section.SPANS)) {
      countItem(Section.SPANS, item, counts, span.attributes(itemAttributes));
    }
    if (counts(Section.SPAN_EVENTS)) {
      span.events(events);
      context.spanEvent(events);
      while (events.next()) {
        countItem(Section.SPAN_EVENTS, item, counts, events.attributes(itemAttributes));
      }
    }
  }

  private void visitLogRecord(BatchItem item) {
    ResourceCounts counts = resourceOf(item);
    LogRecordView logRecord = item.logRecord();
    context.block(item).logRecord(logRecord);
    countItem(Section.LOGS, item, counts, logRecord.attributes(itemAttributes));
  }

  private void visitMetric(BatchItem item) {
    if (item.request() == lastMetricRequest && item.item() == lastMetric) {
      return; // another part of the metric just counted
    }
    lastMetricRequest = item.request();
    lastMetric = item.item();
    ResourceCounts counts = resourceOf(item);
    context.block(item).metric(item.metric());
    countItem(Section.METRICS, item, counts, null);
  }

  private void visitDataPoint(BatchItem item) {
    ResourceCounts counts = resourceOf(item);
    DataPointView point = item.dataPoint();
    context.block(item).metric(item.metric()).dataPoint(point);
    countItem(Section.DATA_POINTS, item, counts, point.attributes(itemAttributes));
  }

  /**
   * Counts one item (the context points at it) for each metric of {@code section}: under the values
   * of its attributes (an item that has no value and no default for one is not counted in that
   * metric), when a condition matches or there is none.
   *
   * @param attributes the item's attributes, or null for an item without (a metric)
   */
  private void countItem(
      Section section, BatchItem item, ResourceCounts counts, AttributeCursor attributes) {
    for (int d = firstDef[section.ordinal()]; d < endDef[section.ordinal()]; d++) {
      MetricDef def = defs.get(d);
      List<CountValue> values = null;
      if (def.countsByAttributes()) {
        values = valuesOf(def, item, counts, attributes);
        if (values == null) {
          continue;
        }
      }
      if (!matches(d, def)) {
        continue;
      }
      if (values == null) {
        counts.count(d);
      } else {
        counts.count(d, values);
      }
    }
  }

  /** Whether any condition of metric {@code d} matches; a failing condition does not. */
  private boolean matches(int d, MetricDef def) {
    OttlCondition.Evaluator[] conditions = evaluators[d];
    if (conditions.length == 0) {
      return true;
    }
    for (int i = 0; i < conditions.length; i++) {
      try {
        if (conditions[i].matches(context)) {
          return true;
        }
      } catch (OttlEvaluationException e) {
        failures.failed(def, def.conditions().get(i), e);
      }
    }
    return false;
  }

  /**
   * The values of the attributes {@code def} counts by, each from the item, else its scope, else
   * its resource, else the default; null when one has none of these.
   */
  private List<CountValue> valuesOf(
      MetricDef def, BatchItem item, ResourceCounts counts, AttributeCursor attributes) {
    int n = def.keys().size();
    CountValue[] values = new CountValue[n];
    for (int k = 0; k < n; k++) {
      byte[] key = def.utf8Keys().get(k);
      CountValue value = null;
      if (attributes != null && attributes.find(key)) {
        value = CountValue.read(attributes.value());
      } else if (item.scopeView().attributes(scopeAttributes).find(key)) {
        value = CountValue.read(scopeAttributes.value());
      } else {
        value = counts.attribute(def.keys().get(k));
        if (value == null) {
          value = def.defaults().get(k);
        }
      }
      if (value == null) {
        return null;
      }
      values[k] = value;
    }
    return List.of(values);
  }

  /** The counts of the item's resource, found by its attributes when the block changes. */
  private ResourceCounts resourceOf(BatchItem item) {
    if (item.request() == currentRequest && item.resource() == currentResource) {
      return current;
    }
    currentRequest = item.request();
    currentResource = item.resource();
    List<Entry> attributes = new ArrayList<>();
    AttributeCursor cursor = item.resourceView().attributes(resourceAttributes);
    while (cursor.next()) {
      attributes.add(new Entry(cursor.key().asString(), CountValue.read(cursor.value())));
    }
    List<Entry> key = new ArrayList<>(attributes);
    key.sort(Comparator.comparing(Entry::key));
    current = resources.get(key);
    if (current == null) {
      current = new ResourceCounts(List.copyOf(attributes), defs);
      resources.put(List.copyOf(key), current);
    }
    return current;
  }

  /**
   * Writes the counts as a metrics request: per resource with counts, one scope block of this
   * connector, and per metric with counts one delta, monotonic sum whose data points cover {@code
   * (startNanos, endNanos]}.
   */
  OtlpIndex build(long startNanos, long endNanos) {
    builder.reset();
    for (ResourceCounts counts : resources.values()) {
      if (!counts.counted()) {
        continue;
      }
      ValueWriter resource = builder.resource().attributes();
      for (Entry entry : counts.attributes) {
        CountValue.put(resource, entry.key(), entry.value());
      }
      builder.scope().name(SCOPE_NAME);
      for (int d = 0; d < defs.size(); d++) {
        if (counts.counted(d)) {
          writeMetric(d, counts, startNanos, endNanos);
        }
      }
    }
    return builder.build();
  }

  private void writeMetric(int d, ResourceCounts counts, long startNanos, long endNanos) {
    MetricDef def = defs.get(d);
    MetricWriter metric =
        builder
            .metric()
            .name(def.name())
            .description(def.description())
            .sum(MetricView.TEMPORALITY_DELTA, true);
    if (!def.countsByAttributes()) {
      metric
          .numberPoint()
          .startTimeUnixNano(startNanos)
          .timeUnixNano(endNanos)
          .intValue(counts.plainCount(d));
      return;
    }
    for (Map.Entry<List<CountValue>, long[]> count : counts.countsByValues(d).entrySet()) {
      DataPointWriter point =
          metric
              .numberPoint()
              .startTimeUnixNano(startNanos)
              .timeUnixNano(endNanos)
              .intValue(count.getValue()[0]);
      ValueWriter attributes = point.attributes();
      List<CountValue> values = count.getKey();
      for (int k = 0; k < values.size(); k++) {
        CountValue.put(attributes, def.keys().get(k), values.get(k));
      }
    }
  }
}
