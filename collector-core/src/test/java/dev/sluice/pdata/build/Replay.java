package dev.sluice.pdata.build;

import com.google.protobuf.ByteString;
import dev.sluice.pdata.build.DataPointWriter.ExemplarWriter;
import dev.sluice.pdata.build.LogsBuilder.LogRecordWriter;
import dev.sluice.pdata.build.MetricsBuilder.MetricWriter;
import dev.sluice.pdata.build.RequestBuilder.ResourceWriter;
import dev.sluice.pdata.build.RequestBuilder.ScopeWriter;
import dev.sluice.pdata.build.TracesBuilder.EventWriter;
import dev.sluice.pdata.build.TracesBuilder.LinkWriter;
import dev.sluice.pdata.build.TracesBuilder.SpanWriter;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.EntityRef;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.metrics.v1.Exemplar;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.SummaryDataPoint;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;

/**
 * Writes the content of a protobuf-java request with a builder, the calls in a random order that a
 * caller could choose: each message's setters shuffled and interleaved with its attributes and
 * children (a span's attributes between its events, an event's attributes after a span setter),
 * block headers set before or after their items, fields at their default sometimes set and
 * sometimes not, a value sometimes set twice (the second wins), strings sometimes passed as {@link
 * StringBuilder}s.
 */
final class Replay {
  private final Random random;

  Replay(Random random) {
    this.random = random;
  }

  // Requests.

  void traces(ExportTraceServiceRequest request, TracesBuilder builder) {
    for (ResourceSpans block : request.getResourceSpansList()) {
      around(
          resource(builder.resource(), block.getResource(), block.getSchemaUrl()),
          () -> {
            for (ScopeSpans scopeBlock : block.getScopeSpansList()) {
              around(
                  scope(builder.scope(), scopeBlock.getScope(), scopeBlock.getSchemaUrl()),
                  () -> scopeBlock.getSpansList().forEach(span -> span(builder.span(), span)));
            }
          });
    }
  }

  void logs(ExportLogsServiceRequest request, LogsBuilder builder) {
    for (ResourceLogs block : request.getResourceLogsList()) {
      around(
          resource(builder.resource(), block.getResource(), block.getSchemaUrl()),
          () -> {
            for (ScopeLogs scopeBlock : block.getScopeLogsList()) {
              around(
                  scope(builder.scope(), scopeBlock.getScope(), scopeBlock.getSchemaUrl()),
                  () ->
                      scopeBlock
                          .getLogRecordsList()
                          .forEach(log -> logRecord(builder.logRecord(), log)));
            }
          });
    }
  }

  void metrics(ExportMetricsServiceRequest request, MetricsBuilder builder) {
    for (ResourceMetrics block : request.getResourceMetricsList()) {
      around(
          resource(builder.resource(), block.getResource(), block.getSchemaUrl()),
          () -> {
            for (ScopeMetrics scopeBlock : block.getScopeMetricsList()) {
              around(
                  scope(builder.scope(), scopeBlock.getScope(), scopeBlock.getSchemaUrl()),
                  () ->
                      scopeBlock
                          .getMetricsList()
                          .forEach(metric -> metric(builder.metric(), metric)));
            }
          });
    }
  }

  /** Runs a block's header steps before or after its children, at random. */
  private void around(List<Runnable> header, Runnable children) {
    boolean headerFirst = random.nextBoolean();
    if (headerFirst) {
      header.forEach(Runnable::run);
    }
    children.run();
    if (!headerFirst) {
      header.forEach(Runnable::run);
    }
  }

  // Headers: their steps, interleaved, to run now or after the block's children.

  private List<Runnable> resource(ResourceWriter writer, Resource resource, String schemaUrl) {
    Steps steps = new Steps();
    steps.group(attributes(writer::attributes, resource.getAttributesList()));
    steps.scalar(
        resource.getDroppedAttributesCount() != 0,
        () -> writer.droppedAttributesCount(resource.getDroppedAttributesCount()),
        () -> writer.droppedAttributesCount(random.nextInt()));
    List<Runnable> refs = new ArrayList<>();
    for (EntityRef ref : resource.getEntityRefsList()) {
      refs.add(
          () ->
              writer.entityRef(
                  text(ref.getSchemaUrl()),
                  text(ref.getType()),
                  ref.getIdKeysList(),
                  ref.getDescriptionKeysList()));
    }
    steps.group(refs);
    steps.scalar(
        !schemaUrl.isEmpty(), () -> writer.schemaUrl(text(schemaUrl)), () -> writer.schemaUrl("x"));
    return steps.interleaved();
  }

  private List<Runnable> scope(ScopeWriter writer, InstrumentationScope scope, String schemaUrl) {
    Steps steps = new Steps();
    steps.scalar(
        !scope.getName().isEmpty(),
        () -> writer.name(text(scope.getName())),
        () -> writer.name("x"));
    steps.scalar(
        !scope.getVersion().isEmpty(),
        () -> writer.version(text(scope.getVersion())),
        () -> writer.version("x"));
    steps.group(attributes(writer::attributes, scope.getAttributesList()));
    steps.scalar(
        scope.getDroppedAttributesCount() != 0,
        () -> writer.droppedAttributesCount(scope.getDroppedAttributesCount()),
        () -> writer.droppedAttributesCount(7));
    steps.scalar(
        !schemaUrl.isEmpty(), () -> writer.schemaUrl(text(schemaUrl)), () -> writer.schemaUrl("x"));
    return steps.interleaved();
  }

  // Traces.

  private void span(SpanWriter writer, Span span) {
    Steps steps = new Steps();
    steps.present(
        !span.getTraceId().isEmpty(),
        () -> writer.traceId(span.getTraceId().toByteArray()),
        () -> writer.traceId(new byte[16]));
    steps.present(
        !span.getSpanId().isEmpty(),
        () -> writer.spanId(span.getSpanId().toByteArray()),
        () -> writer.spanId(new byte[8]));
    steps.scalar(
        !span.getTraceState().isEmpty(),
        () -> writer.traceState(text(span.getTraceState())),
        () -> writer.traceState("x"));
    steps.present(
        !span.getParentSpanId().isEmpty(),
        () -> writer.parentSpanId(span.getParentSpanId().toByteArray()),
        () -> writer.parentSpanId(new byte[8]));
    steps.scalar(span.getFlags() != 0, () -> writer.flags(span.getFlags()), () -> writer.flags(1));
    steps.scalar(
        !span.getName().isEmpty(), () -> writer.name(text(span.getName())), () -> writer.name("x"));
    steps.scalar(
        span.getKindValue() != 0, () -> writer.kind(span.getKindValue()), () -> writer.kind(1));
    steps.scalar(
        span.getStartTimeUnixNano() != 0,
        () -> writer.startTimeUnixNano(span.getStartTimeUnixNano()),
        () -> writer.startTimeUnixNano(1));
    steps.scalar(
        span.getEndTimeUnixNano() != 0,
        () -> writer.endTimeUnixNano(span.getEndTimeUnixNano()),
        () -> writer.endTimeUnixNano(1));
    steps.group(attributes(writer::attributes, span.getAttributesList()));
    steps.scalar(
        span.getDroppedAttributesCount() != 0,
        () -> writer.droppedAttributesCount(span.getDroppedAttributesCount()),
        () -> writer.droppedAttributesCount(1));
    steps.scalar(
        span.getDroppedEventsCount() != 0,
        () -> writer.droppedEventsCount(span.getDroppedEventsCount()),
        () -> writer.droppedEventsCount(1));
    steps.scalar(
        span.getDroppedLinksCount() != 0,
        () -> writer.droppedLinksCount(span.getDroppedLinksCount()),
        () -> writer.droppedLinksCount(1));
    if (span.hasStatus()) {
      steps.add(
          () ->
              writer.status(span.getStatus().getCodeValue(), text(span.getStatus().getMessage())));
    }
    // Events and links: each one's steps together (the next one ends it), the two lists merged.
    List<List<Runnable>> events = new ArrayList<>();
    for (Span.Event event : span.getEventsList()) {
      events.add(event(writer, event));
    }
    List<List<Runnable>> links = new ArrayList<>();
    for (Span.Link link : span.getLinksList()) {
      links.add(link(writer, link));
    }
    steps.group(mergeWhole(random, events, links));
    steps.run();
  }

  private List<Runnable> event(SpanWriter span, Span.Event event) {
    EventWriter[] writer = new EventWriter[1];
    Steps steps = new Steps();
    steps.scalar(
        event.getTimeUnixNano() != 0,
        () -> writer[0].timeUnixNano(event.getTimeUnixNano()),
        () -> writer[0].timeUnixNano(1));
    steps.scalar(
        !event.getName().isEmpty(),
        () -> writer[0].name(text(event.getName())),
        () -> writer[0].name("x"));
    steps.group(attributes(() -> writer[0].attributes(), event.getAttributesList()));
    steps.scalar(
        event.getDroppedAttributesCount() != 0,
        () -> writer[0].droppedAttributesCount(event.getDroppedAttributesCount()),
        () -> writer[0].droppedAttributesCount(1));
    return begin(() -> writer[0] = span.event(), steps);
  }

  private List<Runnable> link(SpanWriter span, Span.Link link) {
    LinkWriter[] writer = new LinkWriter[1];
    Steps steps = new Steps();
    steps.present(
        !link.getTraceId().isEmpty(),
        () -> writer[0].traceId(link.getTraceId().toByteArray()),
        () -> writer[0].traceId(new byte[16]));
    steps.present(
        !link.getSpanId().isEmpty(),
        () -> writer[0].spanId(link.getSpanId().toByteArray()),
        () -> writer[0].spanId(new byte[8]));
    steps.scalar(
        !link.getTraceState().isEmpty(),
        () -> writer[0].traceState(text(link.getTraceState())),
        () -> writer[0].traceState("x"));
    steps.group(attributes(() -> writer[0].attributes(), link.getAttributesList()));
    steps.scalar(
        link.getDroppedAttributesCount() != 0,
        () -> writer[0].droppedAttributesCount(link.getDroppedAttributesCount()),
        () -> writer[0].droppedAttributesCount(1));
    steps.scalar(
        link.getFlags() != 0, () -> writer[0].flags(link.getFlags()), () -> writer[0].flags(1));
    return begin(() -> writer[0] = span.link(), steps);
  }

  // Logs.

  private void logRecord(LogRecordWriter writer, LogRecord log) {
    Steps steps = new Steps();
    steps.scalar(
        log.getTimeUnixNano() != 0,
        () -> writer.timeUnixNano(log.getTimeUnixNano()),
        () -> writer.timeUnixNano(1));
    steps.scalar(
        log.getObservedTimeUnixNano() != 0,
        () -> writer.observedTimeUnixNano(log.getObservedTimeUnixNano()),
        () -> writer.observedTimeUnixNano(1));
    steps.scalar(
        log.getSeverityNumberValue() != 0,
        () -> writer.severityNumber(log.getSeverityNumberValue()),
        () -> writer.severityNumber(9));
    steps.scalar(
        !log.getSeverityText().isEmpty(),
        () -> writer.severityText(text(log.getSeverityText())),
        () -> writer.severityText("x"));
    if (log.hasBody()) {
      steps.scalar(true, () -> body(writer, log.getBody()), () -> writer.body("replaced"));
    }
    steps.group(attributes(writer::attributes, log.getAttributesList()));
    steps.scalar(
        log.getDroppedAttributesCount() != 0,
        () -> writer.droppedAttributesCount(log.getDroppedAttributesCount()),
        () -> writer.droppedAttributesCount(1));
    steps.scalar(log.getFlags() != 0, () -> writer.flags(log.getFlags()), () -> writer.flags(1));
    steps.present(
        !log.getTraceId().isEmpty(),
        () -> writer.traceId(log.getTraceId().toByteArray()),
        () -> writer.traceId(new byte[16]));
    steps.present(
        !log.getSpanId().isEmpty(),
        () -> writer.spanId(log.getSpanId().toByteArray()),
        () -> writer.spanId(new byte[8]));
    steps.scalar(
        !log.getEventName().isEmpty(),
        () -> writer.eventName(text(log.getEventName())),
        () -> writer.eventName("x"));
    steps.run();
  }

  private void body(LogRecordWriter writer, AnyValue body) {
    switch (body.getValueCase()) {
      case STRING_VALUE -> writer.body(text(body.getStringValue()));
      case BOOL_VALUE -> writer.body(body.getBoolValue());
      case INT_VALUE -> writer.body(body.getIntValue());
      case DOUBLE_VALUE -> writer.body(body.getDoubleValue());
      case BYTES_VALUE -> writer.body(body.getBytesValue().toByteArray());
      case ARRAY_VALUE -> {
        ValueWriter values = writer.arrayBody();
        body.getArrayValue().getValuesList().forEach(value -> add(values, value));
        values.end();
      }
      case KVLIST_VALUE -> {
        ValueWriter values = writer.kvListBody();
        body.getKvlistValue().getValuesList().forEach(entry -> put(values, entry));
        values.end();
      }
      default -> writer.emptyBody();
    }
  }

  // Metrics.

  private void metric(MetricWriter writer, Metric metric) {
    Steps steps = new Steps();
    steps.scalar(
        !metric.getName().isEmpty(),
        () -> writer.name(text(metric.getName())),
        () -> writer.name("x"));
    steps.scalar(
        !metric.getDescription().isEmpty(),
        () -> writer.description(text(metric.getDescription())),
        () -> writer.description("x"));
    steps.scalar(
        !metric.getUnit().isEmpty(),
        () -> writer.unit(text(metric.getUnit())),
        () -> writer.unit("x"));
    steps.group(attributes(writer::metadata, metric.getMetadataList()));
    // The kind, then each data point's steps together.
    List<Runnable> data = new ArrayList<>();
    switch (metric.getDataCase()) {
      case GAUGE -> {
        data.add(writer::gauge);
        for (NumberDataPoint point : metric.getGauge().getDataPointsList()) {
          data.addAll(numberPoint(writer, point));
        }
      }
      case SUM -> {
        data.add(
            () ->
                writer.sum(
                    metric.getSum().getAggregationTemporalityValue(),
                    metric.getSum().getIsMonotonic()));
        for (NumberDataPoint point : metric.getSum().getDataPointsList()) {
          data.addAll(numberPoint(writer, point));
        }
      }
      case HISTOGRAM -> {
        data.add(() -> writer.histogram(metric.getHistogram().getAggregationTemporalityValue()));
        for (HistogramDataPoint point : metric.getHistogram().getDataPointsList()) {
          data.addAll(histogramPoint(writer, point));
        }
      }
      case EXPONENTIAL_HISTOGRAM -> {
        data.add(
            () ->
                writer.exponentialHistogram(
                    metric.getExponentialHistogram().getAggregationTemporalityValue()));
        for (ExponentialHistogramDataPoint point :
            metric.getExponentialHistogram().getDataPointsList()) {
          data.addAll(exponentialHistogramPoint(writer, point));
        }
      }
      case SUMMARY -> {
        data.add(writer::summary);
        for (SummaryDataPoint point : metric.getSummary().getDataPointsList()) {
          data.addAll(summaryPoint(writer, point));
        }
      }
      default -> {}
    }
    steps.group(data);
    steps.run();
  }

  private List<Runnable> numberPoint(MetricWriter metric, NumberDataPoint point) {
    DataPointWriter[] writer = new DataPointWriter[1];
    Steps steps =
        pointSteps(writer, point.getStartTimeUnixNano(), point.getTimeUnixNano(), point.getFlags());
    switch (point.getValueCase()) {
      case AS_DOUBLE -> steps.add(() -> writer[0].doubleValue(point.getAsDouble()));
      case AS_INT -> steps.add(() -> writer[0].intValue(point.getAsInt()));
      default -> {}
    }
    steps.group(attributes(() -> writer[0].attributes(), point.getAttributesList()));
    steps.group(exemplars(writer, point.getExemplarsList()));
    return begin(() -> writer[0] = metric.numberPoint(), steps);
  }

  private List<Runnable> histogramPoint(MetricWriter metric, HistogramDataPoint point) {
    DataPointWriter[] writer = new DataPointWriter[1];
    Steps steps =
        pointSteps(writer, point.getStartTimeUnixNano(), point.getTimeUnixNano(), point.getFlags());
    steps.scalar(
        point.getCount() != 0, () -> writer[0].count(point.getCount()), () -> writer[0].count(1));
    if (point.hasSum()) {
      steps.add(() -> writer[0].sum(point.getSum()));
    }
    if (point.hasMin()) {
      steps.add(() -> writer[0].min(point.getMin()));
    }
    if (point.hasMax()) {
      steps.add(() -> writer[0].max(point.getMax()));
    }
    double[] bounds = point.getExplicitBoundsList().stream().mapToDouble(d -> d).toArray();
    long[] counts = point.getBucketCountsList().stream().mapToLong(c -> c).toArray();
    steps.scalar(
        counts.length > 0,
        () -> writer[0].buckets(bounds, counts),
        () -> writer[0].buckets(new double[] {1}, new long[] {1, 2}));
    steps.group(attributes(() -> writer[0].attributes(), point.getAttributesList()));
    steps.group(exemplars(writer, point.getExemplarsList()));
    return begin(() -> writer[0] = metric.histogramPoint(), steps);
  }

  private List<Runnable> exponentialHistogramPoint(
      MetricWriter metric, ExponentialHistogramDataPoint point) {
    DataPointWriter[] writer = new DataPointWriter[1];
    Steps steps =
        pointSteps(writer, point.getStartTimeUnixNano(), point.getTimeUnixNano(), point.getFlags());
    steps.scalar(
        point.getCount() != 0, () -> writer[0].count(point.getCount()), () -> writer[0].count(1));
    if (point.hasSum()) {
      steps.add(() -> writer[0].sum(point.getSum()));
    }
    if (point.hasMin()) {
      steps.add(() -> writer[0].min(point.getMin()));
    }
    if (point.hasMax()) {
      steps.add(() -> writer[0].max(point.getMax()));
    }
    steps.scalar(
        point.getScale() != 0, () -> writer[0].scale(point.getScale()), () -> writer[0].scale(1));
    steps.scalar(
        point.getZeroCount() != 0,
        () -> writer[0].zeroCount(point.getZeroCount()),
        () -> writer[0].zeroCount(1));
    steps.scalar(
        Double.doubleToRawLongBits(point.getZeroThreshold()) != 0,
        () -> writer[0].zeroThreshold(point.getZeroThreshold()),
        () -> writer[0].zeroThreshold(1));
    if (point.hasPositive()) {
      ExponentialHistogramDataPoint.Buckets buckets = point.getPositive();
      steps.add(() -> writer[0].positive(buckets.getOffset(), counts(buckets)));
    }
    if (point.hasNegative()) {
      ExponentialHistogramDataPoint.Buckets buckets = point.getNegative();
      steps.add(() -> writer[0].negative(buckets.getOffset(), counts(buckets)));
    }
    steps.group(attributes(() -> writer[0].attributes(), point.getAttributesList()));
    steps.group(exemplars(writer, point.getExemplarsList()));
    return begin(() -> writer[0] = metric.exponentialHistogramPoint(), steps);
  }

  private static long[] counts(ExponentialHistogramDataPoint.Buckets buckets) {
    return buckets.getBucketCountsList().stream().mapToLong(c -> c).toArray();
  }

  private List<Runnable> summaryPoint(MetricWriter metric, SummaryDataPoint point) {
    DataPointWriter[] writer = new DataPointWriter[1];
    Steps steps =
        pointSteps(writer, point.getStartTimeUnixNano(), point.getTimeUnixNano(), point.getFlags());
    steps.scalar(
        point.getCount() != 0, () -> writer[0].count(point.getCount()), () -> writer[0].count(1));
    steps.scalar(
        Double.doubleToRawLongBits(point.getSum()) != 0,
        () -> writer[0].sum(point.getSum()),
        () -> writer[0].sum(1));
    List<Runnable> quantiles = new ArrayList<>();
    for (SummaryDataPoint.ValueAtQuantile quantile : point.getQuantileValuesList()) {
      quantiles.add(() -> writer[0].quantile(quantile.getQuantile(), quantile.getValue()));
    }
    steps.group(quantiles);
    steps.group(attributes(() -> writer[0].attributes(), point.getAttributesList()));
    return begin(() -> writer[0] = metric.summaryPoint(), steps);
  }

  /** The steps every kind of data point starts with: its times and flags. */
  private Steps pointSteps(DataPointWriter[] writer, long start, long time, int flags) {
    Steps steps = new Steps();
    steps.scalar(
        start != 0, () -> writer[0].startTimeUnixNano(start), () -> writer[0].startTimeUnixNano(1));
    steps.scalar(time != 0, () -> writer[0].timeUnixNano(time), () -> writer[0].timeUnixNano(1));
    steps.scalar(flags != 0, () -> writer[0].flags(flags), () -> writer[0].flags(1));
    return steps;
  }

  private List<Runnable> exemplars(DataPointWriter[] point, List<Exemplar> exemplars) {
    List<Runnable> all = new ArrayList<>();
    for (Exemplar exemplar : exemplars) {
      ExemplarWriter[] writer = new ExemplarWriter[1];
      Steps steps = new Steps();
      steps.scalar(
          exemplar.getTimeUnixNano() != 0,
          () -> writer[0].timeUnixNano(exemplar.getTimeUnixNano()),
          () -> writer[0].timeUnixNano(1));
      switch (exemplar.getValueCase()) {
        case AS_DOUBLE -> steps.add(() -> writer[0].doubleValue(exemplar.getAsDouble()));
        case AS_INT -> steps.add(() -> writer[0].intValue(exemplar.getAsInt()));
        default -> {}
      }
      ByteString spanId = exemplar.getSpanId();
      steps.present(
          !spanId.isEmpty(),
          () -> writer[0].spanId(spanId.toByteArray()),
          () -> writer[0].spanId(new byte[8]));
      ByteString traceId = exemplar.getTraceId();
      steps.present(
          !traceId.isEmpty(),
          () -> writer[0].traceId(traceId.toByteArray()),
          () -> writer[0].traceId(new byte[16]));
      steps.group(
          attributes(() -> writer[0].filteredAttributes(), exemplar.getFilteredAttributesList()));
      all.addAll(begin(() -> writer[0] = point[0].exemplar(), steps));
    }
    return all;
  }

  private List<Runnable> begin(Runnable begin, Steps steps) {
    List<Runnable> all = new ArrayList<>();
    all.add(begin);
    all.addAll(steps.interleaved());
    return all;
  }

  // Values.

  /** One step per attribute, each writing the whole entry through the owner's values. */
  private List<Runnable> attributes(Supplier<ValueWriter> values, List<KeyValue> attributes) {
    List<Runnable> steps = new ArrayList<>();
    for (KeyValue attribute : attributes) {
      steps.add(() -> put(values.get(), attribute));
    }
    return steps;
  }

  private void put(ValueWriter values, KeyValue entry) {
    CharSequence key = text(entry.getKey());
    AnyValue value = entry.getValue();
    switch (value.getValueCase()) {
      case STRING_VALUE -> values.put(key, text(value.getStringValue()));
      case BOOL_VALUE -> values.put(key, value.getBoolValue());
      case INT_VALUE -> values.put(key, value.getIntValue());
      case DOUBLE_VALUE -> values.put(key, value.getDoubleValue());
      case BYTES_VALUE -> values.put(key, value.getBytesValue().toByteArray());
      case ARRAY_VALUE -> {
        values.putArray(key);
        value.getArrayValue().getValuesList().forEach(element -> add(values, element));
        values.end();
      }
      case KVLIST_VALUE -> {
        values.putKvList(key);
        value.getKvlistValue().getValuesList().forEach(nested -> put(values, nested));
        values.end();
      }
      default -> values.putEmpty(key);
    }
  }

  private void add(ValueWriter values, AnyValue value) {
    switch (value.getValueCase()) {
      case STRING_VALUE -> values.add(text(value.getStringValue()));
      case BOOL_VALUE -> values.add(value.getBoolValue());
      case INT_VALUE -> values.add(value.getIntValue());
      case DOUBLE_VALUE -> values.add(value.getDoubleValue());
      case BYTES_VALUE -> values.add(value.getBytesValue().toByteArray());
      case ARRAY_VALUE -> {
        values.addArray();
        value.getArrayValue().getValuesList().forEach(element -> add(values, element));
        values.end();
      }
      case KVLIST_VALUE -> {
        values.addKvList();
        value.getKvlistValue().getValuesList().forEach(nested -> put(values, nested));
        values.end();
      }
      default -> values.addEmpty();
    }
  }

  /** The string, sometimes as another {@link CharSequence}. */
  private CharSequence text(String value) {
    return random.nextInt(4) == 0 ? new StringBuilder(value) : value;
  }

  /** Merges lists of whole items (each a list of steps) keeping each list's order. */
  static List<Runnable> mergeWhole(
      Random random, List<List<Runnable>> first, List<List<Runnable>> second) {
    List<List<Runnable>> whole = new ArrayList<>();
    int i = 0;
    int j = 0;
    while (i < first.size() || j < second.size()) {
      boolean takeFirst =
          j == second.size()
              || (i < first.size()
                  && random.nextInt(first.size() - i + second.size() - j) < first.size() - i);
      whole.add(takeFirst ? first.get(i++) : second.get(j++));
    }
    List<Runnable> flat = new ArrayList<>();
    whole.forEach(flat::addAll);
    return flat;
  }

  private static List<Runnable> merge(Random random, List<List<Runnable>> groups) {
    int[] next = new int[groups.size()];
    int remaining = 0;
    for (List<Runnable> group : groups) {
      remaining += group.size();
    }
    List<Runnable> merged = new ArrayList<>(remaining);
    while (remaining > 0) {
      // Each remaining step equally likely to come next: a uniform interleaving.
      int pick = random.nextInt(remaining);
      for (int g = 0; g < groups.size(); g++) {
        int left = groups.get(g).size() - next[g];
        if (pick < left) {
          merged.add(groups.get(g).get(next[g]++));
          break;
        }
        pick -= left;
      }
      remaining--;
    }
    return merged;
  }

  /** A message's steps: single setters and ordered groups, run in a random interleaving. */
  private final class Steps {
    private final List<List<Runnable>> groups = new ArrayList<>();

    void add(Runnable step) {
      groups.add(List.of(step));
    }

    void group(List<Runnable> steps) {
      groups.add(steps);
    }

    /**
     * A setter whose value may be the field's default: then it is called or not, at random. A set
     * value is sometimes preceded by another one, which it must replace.
     */
    void scalar(boolean set, Runnable step, Runnable other) {
      if (set || random.nextBoolean()) {
        if (random.nextInt(8) == 0) {
          groups.add(List.of(other, step));
        } else {
          add(step);
        }
      }
    }

    /** A setter of a field that has no default to set (an ID): called only when present. */
    void present(boolean set, Runnable step, Runnable other) {
      if (set) {
        scalar(true, step, other);
      }
    }

    List<Runnable> interleaved() {
      return merge(random, groups);
    }

    void run() {
      interleaved().forEach(Runnable::run);
    }
  }
}
