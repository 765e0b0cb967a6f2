package dev.sluice.pdata.internal;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchView;
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
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Every field the views read, as one line per item (and per data point), for comparing with {@link
 * ProtoText}'s rendering of protobuf-java's parse of the same bytes. Allocates freely: a test aid.
 */
final class ViewText {
  private static final HexFormat HEX = HexFormat.of();

  private ViewText() {}

  static List<String> spans(Batch batch) {
    List<String> lines = new ArrayList<>();
    new BatchView()
        .forEachSpan(
            batch,
            (resource, scope, span) ->
                lines.add(resource(resource) + " | " + scope(scope) + " | " + span(span)));
    return lines;
  }

  static List<String> logRecords(Batch batch) {
    List<String> lines = new ArrayList<>();
    new BatchView()
        .forEachLogRecord(
            batch,
            (resource, scope, log) ->
                lines.add(resource(resource) + " | " + scope(scope) + " | " + log(log)));
    return lines;
  }

  /** A line per metric part, then a line per data point of it. */
  static List<String> metrics(Batch batch) {
    List<String> lines = new ArrayList<>();
    BatchView views = new BatchView();
    DataPointView points = new DataPointView();
    views.forEachMetric(
        batch,
        (resource, scope, metric) -> {
          lines.add(resource(resource) + " | " + scope(scope) + " | " + metric(metric));
          metric.dataPoints(points);
          while (points.next()) {
            lines.add("  " + point(points));
          }
        });
    return lines;
  }

  /** The data points alone, as {@link BatchView#forEachDataPoint} hands them over. */
  static List<String> dataPoints(Batch batch) {
    List<String> lines = new ArrayList<>();
    new BatchView()
        .forEachDataPoint(
            batch,
            (resource, scope, metric, point) -> lines.add(metric.name() + ": " + point(point)));
    return lines;
  }

  static String resource(ResourceView resource) {
    return "resource "
        + attributes(resource.attributes(new AttributeCursor()))
        + " dropped="
        + resource.droppedAttributesCount()
        + " schema="
        + resource.schemaUrl();
  }

  static String scope(ScopeView scope) {
    return "scope "
        + scope.name()
        + "@"
        + scope.version()
        + " "
        + attributes(scope.attributes(new AttributeCursor()))
        + " dropped="
        + scope.droppedAttributesCount()
        + " schema="
        + scope.schemaUrl();
  }

  static String span(SpanView span) {
    byte[] traceId = new byte[16];
    byte[] spanId = new byte[8];
    byte[] parentId = new byte[8];
    StringBuilder text = new StringBuilder("span ");
    text.append(span.copyTraceId(traceId) ? HEX.formatHex(traceId) : "")
        .append(" ")
        .append(hexOfLongs(span.traceIdHigh(), span.traceIdLow(), span.copyTraceId(traceId)))
        .append(" ")
        .append(span.copySpanId(spanId) ? HEX.formatHex(spanId) : "")
        .append(" ")
        .append(span.copySpanId(spanId) ? String.format("%016x", span.spanIdLong()) : "")
        .append(" parent=")
        .append(span.copyParentSpanId(parentId) ? HEX.formatHex(parentId) : "")
        .append(span.hasParentSpanId() ? String.format("/%016x", span.parentSpanIdLong()) : "/")
        .append(" state=")
        .append(span.traceState())
        .append(" name=")
        .append(span.name())
        .append(" kind=")
        .append(span.kind())
        .append(" time=")
        .append(span.startTimeUnixNano())
        .append("..")
        .append(span.endTimeUnixNano())
        .append(" ")
        .append(attributes(span.attributes(new AttributeCursor())))
        .append(" dropped=")
        .append(span.droppedAttributesCount())
        .append(" events=[");
    SpanEventView events = span.events(new SpanEventView());
    int eventCount = events.count();
    while (events.next()) {
      text.append(events.timeUnixNano())
          .append(" ")
          .append(events.name())
          .append(" ")
          .append(attributes(events.attributes(new AttributeCursor())))
          .append(" dropped=")
          .append(events.droppedAttributesCount())
          .append("; ");
    }
    text.append("#")
        .append(eventCount)
        .append("] droppedEvents=")
        .append(span.droppedEventsCount());
    text.append(" links=[");
    SpanLinkView links = span.links(new SpanLinkView());
    while (links.next()) {
      boolean hasTrace = links.copyTraceId(traceId);
      text.append(hasTrace ? HEX.formatHex(traceId) : "")
          .append(" ")
          .append(hexOfLongs(links.traceIdHigh(), links.traceIdLow(), hasTrace))
          .append(" ")
          .append(links.copySpanId(spanId) ? HEX.formatHex(spanId) : "")
          .append(links.copySpanId(spanId) ? String.format("/%016x", links.spanIdLong()) : "/")
          .append(" state=")
          .append(links.traceState())
          .append(" ")
          .append(attributes(links.attributes(new AttributeCursor())))
          .append(" dropped=")
          .append(links.droppedAttributesCount())
          .append(" flags=")
          .append(links.flags())
          .append("; ");
    }
    text.append("] droppedLinks=")
        .append(span.droppedLinksCount())
        .append(" status=")
        .append(span.statusCode())
        .append(":")
        .append(span.statusMessage())
        .append(" flags=")
        .append(span.flags());
    return text.toString();
  }

  static String log(LogRecordView log) {
    byte[] traceId = new byte[16];
    byte[] spanId = new byte[8];
    boolean hasTrace = log.copyTraceId(traceId);
    return "log time="
        + log.timeUnixNano()
        + " observed="
        + log.observedTimeUnixNano()
        + " severity="
        + log.severityNumber()
        + ":"
        + log.severityText()
        + " body="
        + value(log.body())
        + " "
        + attributes(log.attributes(new AttributeCursor()))
        + " dropped="
        + log.droppedAttributesCount()
        + " flags="
        + log.flags()
        + " trace="
        + (hasTrace ? HEX.formatHex(traceId) : "")
        + " "
        + hexOfLongs(log.traceIdHigh(), log.traceIdLow(), hasTrace)
        + " span="
        + (log.copySpanId(spanId) ? HEX.formatHex(spanId) : "")
        + (log.copySpanId(spanId) ? String.format("/%016x", log.spanIdLong()) : "/")
        + " event="
        + log.eventName();
  }

  static String metric(MetricView metric) {
    return "metric "
        + metric.name()
        + " desc="
        + metric.description()
        + " unit="
        + metric.unit()
        + " "
        + metric.type()
        + " temporality="
        + metric.aggregationTemporality()
        + " monotonic="
        + metric.isMonotonic()
        + " metadata="
        + attributes(metric.metadata(new AttributeCursor()))
        + " points="
        + metric.dataPointCount();
  }

  static String point(DataPointView point) {
    StringBuilder text =
        new StringBuilder("point ")
            .append(point.startTimeUnixNano())
            .append("..")
            .append(point.timeUnixNano())
            .append(" flags=")
            .append(point.flags())
            .append(" ")
            .append(attributes(point.attributes(new AttributeCursor())));
    switch (point.type()) {
      case GAUGE:
      case SUM:
        text.append(point.isDouble() ? " d=" + point.doubleValue() : "")
            .append(point.isInt() ? " i=" + point.intValue() : "");
        break;
      case HISTOGRAM:
        text.append(" count=").append(point.count());
        text.append(point.hasSum() ? " sum=" + point.sum() : "");
        text.append(" buckets=[");
        for (int i = 0; i < point.bucketCountsCount(); i++) {
          text.append(point.bucketCount(i)).append(",");
        }
        text.append("] bounds=[");
        for (int i = 0; i < point.explicitBoundsCount(); i++) {
          text.append(point.explicitBound(i)).append(",");
        }
        text.append("]").append(minMax(point));
        break;
      case EXPONENTIAL_HISTOGRAM:
        text.append(" count=").append(point.count());
        text.append(point.hasSum() ? " sum=" + point.sum() : "");
        text.append(" scale=")
            .append(point.scale())
            .append(" zero=")
            .append(point.zeroCount())
            .append("/")
            .append(point.zeroThreshold())
            .append(" positive=")
            .append(point.positiveOffset())
            .append("[");
        for (int i = 0; i < point.positiveBucketCountsCount(); i++) {
          text.append(point.positiveBucketCount(i)).append(",");
        }
        text.append("] negative=").append(point.negativeOffset()).append("[");
        for (int i = 0; i < point.negativeBucketCountsCount(); i++) {
          text.append(point.negativeBucketCount(i)).append(",");
        }
        text.append("]").append(minMax(point));
        break;
      case SUMMARY:
        text.append(" count=").append(point.count()).append(" sum=").append(point.sum());
        text.append(" quantiles=[");
        for (int i = 0; i < point.quantileValuesCount(); i++) {
          text.append(point.quantile(i)).append(":").append(point.quantileValue(i)).append(",");
        }
        text.append("]");
        break;
      default:
        break;
    }
    return text.append(exemplars(point)).toString();
  }

  /** The exemplars, ending in their count: " exemplars=[...#n]". */
  private static String exemplars(DataPointView point) {
    StringBuilder text = new StringBuilder(" exemplars=[");
    ExemplarView exemplars = point.exemplars(new ExemplarView());
    while (exemplars.next()) {
      text.append(exemplars.timeUnixNano())
          .append(exemplars.isDouble() ? " d=" + exemplars.doubleValue() : "")
          .append(exemplars.isInt() ? " i=" + exemplars.intValue() : "")
          .append(" trace=");
      exemplars.traceIdHex(text);
      text.append(
              exemplars.hasTraceId()
                  ? String.format("/%016x%016x", exemplars.traceIdHigh(), exemplars.traceIdLow())
                  : "/")
          .append(" span=");
      exemplars.spanIdHex(text);
      text.append(exemplars.hasSpanId() ? String.format("/%016x", exemplars.spanIdLong()) : "/")
          .append(" ")
          .append(attributes(exemplars.filteredAttributes(new AttributeCursor())))
          .append("; ");
    }
    return text.append("#").append(point.exemplarCount()).append("]").toString();
  }

  private static String minMax(DataPointView point) {
    return (point.hasMin() ? " min=" + point.min() : "")
        + (point.hasMax() ? " max=" + point.max() : "");
  }

  static String attributes(AttributeCursor cursor) {
    StringBuilder text = new StringBuilder("{");
    int count = cursor.count();
    while (cursor.next()) {
      text.append(cursor.key())
          .append("(")
          .append(cursor.keyIndex())
          .append(")=")
          .append(value(cursor.value()))
          .append(", ");
    }
    return text.append("#").append(count).append("}").toString();
  }

  static String value(AnyValueView value) {
    switch (value.type()) {
      case STRING:
        return "s:" + value.stringValue().asString();
      case BOOL:
        return "b:" + value.boolValue();
      case INT:
        return "i:" + value.intValue();
      case DOUBLE:
        return "d:" + value.doubleValue();
      case BYTES:
        byte[] bytes = new byte[value.bytesLength()];
        value.copyBytes(bytes, 0);
        return "x:" + HEX.formatHex(bytes);
      case STRING_INDEX:
        return "si:" + value.stringIndex();
      case ARRAY:
        StringBuilder array = new StringBuilder("a[");
        ArrayCursor elements = value.array(new ArrayCursor());
        int count = elements.count();
        while (elements.next()) {
          array.append(value(elements.value())).append(", ");
        }
        return array.append("#").append(count).append("]").toString();
      case KVLIST:
        return "k" + attributes(value.kvlist(new AttributeCursor()));
      default:
        return "-";
    }
  }

  private static String hexOfLongs(long high, long low, boolean present) {
    return present ? String.format("%016x%016x", high, low) : "";
  }
}
