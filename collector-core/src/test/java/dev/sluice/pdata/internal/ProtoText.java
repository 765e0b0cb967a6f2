package dev.sluice.pdata.internal;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
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
import java.util.HexFormat;
import java.util.List;

/** {@link ViewText}'s rendering, from protobuf-java's message tree. */
final class ProtoText {
  private static final HexFormat HEX = HexFormat.of();

  private ProtoText() {}

  static List<String> spans(ExportTraceServiceRequest request) {
    List<String> lines = new ArrayList<>();
    for (ResourceSpans r : request.getResourceSpansList()) {
      for (ScopeSpans s : r.getScopeSpansList()) {
        for (Span span : s.getSpansList()) {
          lines.add(
              resource(r.getResource(), r.getSchemaUrl())
                  + " | "
                  + scope(s.getScope(), s.getSchemaUrl())
                  + " | "
                  + span(span));
        }
      }
    }
    return lines;
  }

  static List<String> logRecords(ExportLogsServiceRequest request) {
    List<String> lines = new ArrayList<>();
    for (ResourceLogs r : request.getResourceLogsList()) {
      for (ScopeLogs s : r.getScopeLogsList()) {
        for (LogRecord log : s.getLogRecordsList()) {
          lines.add(
              resource(r.getResource(), r.getSchemaUrl())
                  + " | "
                  + scope(s.getScope(), s.getSchemaUrl())
                  + " | "
                  + log(log));
        }
      }
    }
    return lines;
  }

  static List<String> metrics(ExportMetricsServiceRequest request) {
    List<String> lines = new ArrayList<>();
    for (ResourceMetrics r : request.getResourceMetricsList()) {
      for (ScopeMetrics s : r.getScopeMetricsList()) {
        for (Metric metric : s.getMetricsList()) {
          List<String> points = points(metric);
          lines.add(
              resource(r.getResource(), r.getSchemaUrl())
                  + " | "
                  + scope(s.getScope(), s.getSchemaUrl())
                  + " | "
                  + metric(metric, points.size()));
          for (String point : points) {
            lines.add("  " + point);
          }
        }
      }
    }
    return lines;
  }

  static List<String> dataPoints(ExportMetricsServiceRequest request) {
    List<String> lines = new ArrayList<>();
    for (ResourceMetrics r : request.getResourceMetricsList()) {
      for (ScopeMetrics s : r.getScopeMetricsList()) {
        for (Metric metric : s.getMetricsList()) {
          for (String point : points(metric)) {
            lines.add(metric.getName() + ": " + point);
          }
        }
      }
    }
    return lines;
  }

  static String resource(Resource resource, String schemaUrl) {
    return "resource "
        + attributes(resource.getAttributesList())
        + " dropped="
        + resource.getDroppedAttributesCount()
        + " schema="
        + schemaUrl;
  }

  static String scope(InstrumentationScope scope, String schemaUrl) {
    return "scope "
        + scope.getName()
        + "@"
        + scope.getVersion()
        + " "
        + attributes(scope.getAttributesList())
        + " dropped="
        + scope.getDroppedAttributesCount()
        + " schema="
        + schemaUrl;
  }

  static String span(Span span) {
    StringBuilder text = new StringBuilder("span ");
    text.append(hex(span.getTraceId()))
        .append(" ")
        .append(hex(span.getTraceId()))
        .append(" ")
        .append(hex(span.getSpanId()))
        .append(" ")
        .append(hex(span.getSpanId()))
        .append(" parent=")
        .append(hex(span.getParentSpanId()))
        .append("/")
        .append(hex(span.getParentSpanId()))
        .append(" state=")
        .append(span.getTraceState())
        .append(" name=")
        .append(span.getName())
        .append(" kind=")
        .append(span.getKindValue())
        .append(" time=")
        .append(span.getStartTimeUnixNano())
        .append("..")
        .append(span.getEndTimeUnixNano())
        .append(" ")
        .append(attributes(span.getAttributesList()))
        .append(" dropped=")
        .append(span.getDroppedAttributesCount())
        .append(" events=[");
    for (Span.Event event : span.getEventsList()) {
      text.append(event.getTimeUnixNano())
          .append(" ")
          .append(event.getName())
          .append(" ")
          .append(attributes(event.getAttributesList()))
          .append(" dropped=")
          .append(event.getDroppedAttributesCount())
          .append("; ");
    }
    text.append("#")
        .append(span.getEventsCount())
        .append("] droppedEvents=")
        .append(span.getDroppedEventsCount());
    text.append(" links=[");
    for (Span.Link link : span.getLinksList()) {
      text.append(hex(link.getTraceId()))
          .append(" ")
          .append(hex(link.getTraceId()))
          .append(" ")
          .append(hex(link.getSpanId()))
          .append("/")
          .append(hex(link.getSpanId()))
          .append(" state=")
          .append(link.getTraceState())
          .append(" ")
          .append(attributes(link.getAttributesList()))
          .append(" dropped=")
          .append(link.getDroppedAttributesCount())
          .append(" flags=")
          .append(link.getFlags())
          .append("; ");
    }
    text.append("] droppedLinks=")
        .append(span.getDroppedLinksCount())
        .append(" status=")
        .append(span.getStatus().getCodeValue())
        .append(":")
        .append(span.getStatus().getMessage())
        .append(" flags=")
        .append(span.getFlags());
    return text.toString();
  }

  static String log(LogRecord log) {
    return "log time="
        + log.getTimeUnixNano()
        + " observed="
        + log.getObservedTimeUnixNano()
        + " severity="
        + log.getSeverityNumberValue()
        + ":"
        + log.getSeverityText()
        + " body="
        + (log.hasBody() ? value(log.getBody()) : "-")
        + " "
        + attributes(log.getAttributesList())
        + " dropped="
        + log.getDroppedAttributesCount()
        + " flags="
        + log.getFlags()
        + " trace="
        + hex(log.getTraceId())
        + " "
        + hex(log.getTraceId())
        + " span="
        + hex(log.getSpanId())
        + "/"
        + hex(log.getSpanId())
        + " event="
        + log.getEventName();
  }

  static String metric(Metric metric, int points) {
    int temporality = 0;
    boolean monotonic = false;
    String type;
    switch (metric.getDataCase()) {
      case GAUGE:
        type = "GAUGE";
        break;
      case SUM:
        type = "SUM";
        temporality = metric.getSum().getAggregationTemporalityValue();
        monotonic = metric.getSum().getIsMonotonic();
        break;
      case HISTOGRAM:
        type = "HISTOGRAM";
        temporality = metric.getHistogram().getAggregationTemporalityValue();
        break;
      case EXPONENTIAL_HISTOGRAM:
        type = "EXPONENTIAL_HISTOGRAM";
        temporality = metric.getExponentialHistogram().getAggregationTemporalityValue();
        break;
      case SUMMARY:
        type = "SUMMARY";
        break;
      default:
        type = "EMPTY";
    }
    return "metric "
        + metric.getName()
        + " desc="
        + metric.getDescription()
        + " unit="
        + metric.getUnit()
        + " "
        + type
        + " temporality="
        + temporality
        + " monotonic="
        + monotonic
        + " metadata="
        + attributes(metric.getMetadataList())
        + " points="
        + points;
  }

  static List<String> points(Metric metric) {
    List<String> points = new ArrayList<>();
    switch (metric.getDataCase()) {
      case GAUGE:
        metric.getGauge().getDataPointsList().forEach(p -> points.add(number(p)));
        break;
      case SUM:
        metric.getSum().getDataPointsList().forEach(p -> points.add(number(p)));
        break;
      case HISTOGRAM:
        metric.getHistogram().getDataPointsList().forEach(p -> points.add(histogram(p)));
        break;
      case EXPONENTIAL_HISTOGRAM:
        metric
            .getExponentialHistogram()
            .getDataPointsList()
            .forEach(p -> points.add(exponential(p)));
        break;
      case SUMMARY:
        metric.getSummary().getDataPointsList().forEach(p -> points.add(summary(p)));
        break;
      default:
        break;
    }
    return points;
  }

  private static String head(long start, long time, int flags, List<KeyValue> attributes) {
    return "point " + start + ".." + time + " flags=" + flags + " " + attributes(attributes);
  }

  static String number(NumberDataPoint p) {
    String value = "";
    if (p.getValueCase() == NumberDataPoint.ValueCase.AS_DOUBLE) {
      value = " d=" + p.getAsDouble();
    } else if (p.getValueCase() == NumberDataPoint.ValueCase.AS_INT) {
      value = " i=" + p.getAsInt();
    }
    return head(p.getStartTimeUnixNano(), p.getTimeUnixNano(), p.getFlags(), p.getAttributesList())
        + value
        + exemplars(p.getExemplarsList());
  }

  static String histogram(HistogramDataPoint p) {
    StringBuilder text =
        new StringBuilder(
            head(
                p.getStartTimeUnixNano(),
                p.getTimeUnixNano(),
                p.getFlags(),
                p.getAttributesList()));
    text.append(" count=").append(p.getCount());
    text.append(p.hasSum() ? " sum=" + p.getSum() : "");
    text.append(" buckets=[");
    p.getBucketCountsList().forEach(c -> text.append(c).append(","));
    text.append("] bounds=[");
    p.getExplicitBoundsList().forEach(b -> text.append(b).append(","));
    text.append("]")
        .append(p.hasMin() ? " min=" + p.getMin() : "")
        .append(p.hasMax() ? " max=" + p.getMax() : "");
    return text.append(exemplars(p.getExemplarsList())).toString();
  }

  static String exponential(ExponentialHistogramDataPoint p) {
    StringBuilder text =
        new StringBuilder(
            head(
                p.getStartTimeUnixNano(),
                p.getTimeUnixNano(),
                p.getFlags(),
                p.getAttributesList()));
    text.append(" count=").append(p.getCount());
    text.append(p.hasSum() ? " sum=" + p.getSum() : "");
    text.append(" scale=")
        .append(p.getScale())
        .append(" zero=")
        .append(p.getZeroCount())
        .append("/")
        .append(p.getZeroThreshold())
        .append(" positive=")
        .append(p.getPositive().getOffset())
        .append("[");
    p.getPositive().getBucketCountsList().forEach(c -> text.append(c).append(","));
    text.append("] negative=").append(p.getNegative().getOffset()).append("[");
    p.getNegative().getBucketCountsList().forEach(c -> text.append(c).append(","));
    text.append("]")
        .append(p.hasMin() ? " min=" + p.getMin() : "")
        .append(p.hasMax() ? " max=" + p.getMax() : "");
    return text.append(exemplars(p.getExemplarsList())).toString();
  }

  static String summary(SummaryDataPoint p) {
    StringBuilder text =
        new StringBuilder(
            head(
                p.getStartTimeUnixNano(),
                p.getTimeUnixNano(),
                p.getFlags(),
                p.getAttributesList()));
    text.append(" count=").append(p.getCount()).append(" sum=").append(p.getSum());
    text.append(" quantiles=[");
    for (SummaryDataPoint.ValueAtQuantile q : p.getQuantileValuesList()) {
      text.append(q.getQuantile()).append(":").append(q.getValue()).append(",");
    }
    return text.append("]").append(exemplars(List.of())).toString();
  }

  /** A trace or span ID's hex when it has its length and is not all zeros, else "". */
  static String id(ByteString id, int length) {
    boolean zero = true;
    for (int i = 0; i < id.size(); i++) {
      zero &= id.byteAt(i) == 0;
    }
    return id.size() == length && !zero ? hex(id) : "";
  }

  static String exemplars(List<Exemplar> exemplars) {
    StringBuilder text = new StringBuilder(" exemplars=[");
    for (Exemplar e : exemplars) {
      String trace = id(e.getTraceId(), 16);
      String span = id(e.getSpanId(), 8);
      text.append(e.getTimeUnixNano())
          .append(e.getValueCase() == Exemplar.ValueCase.AS_DOUBLE ? " d=" + e.getAsDouble() : "")
          .append(e.getValueCase() == Exemplar.ValueCase.AS_INT ? " i=" + e.getAsInt() : "")
          .append(" trace=")
          .append(trace)
          .append("/")
          .append(trace)
          .append(" span=")
          .append(span)
          .append("/")
          .append(span)
          .append(" ")
          .append(attributes(e.getFilteredAttributesList()))
          .append("; ");
    }
    return text.append("#").append(exemplars.size()).append("]").toString();
  }

  static String attributes(List<KeyValue> attributes) {
    StringBuilder text = new StringBuilder("{");
    for (KeyValue kv : attributes) {
      text.append(kv.getKey())
          .append("(")
          .append(kv.getKeyStrindex())
          .append(")=")
          .append(kv.hasValue() ? value(kv.getValue()) : "-")
          .append(", ");
    }
    return text.append("#").append(attributes.size()).append("}").toString();
  }

  static String value(AnyValue value) {
    switch (value.getValueCase()) {
      case STRING_VALUE:
        return "s:" + value.getStringValue();
      case BOOL_VALUE:
        return "b:" + value.getBoolValue();
      case INT_VALUE:
        return "i:" + value.getIntValue();
      case DOUBLE_VALUE:
        return "d:" + value.getDoubleValue();
      case BYTES_VALUE:
        return "x:" + hex(value.getBytesValue());
      case STRING_VALUE_STRINDEX:
        return "si:" + value.getStringValueStrindex();
      case ARRAY_VALUE:
        StringBuilder array = new StringBuilder("a[");
        for (AnyValue element : value.getArrayValue().getValuesList()) {
          array.append(value(element)).append(", ");
        }
        return array
            .append("#")
            .append(value.getArrayValue().getValuesCount())
            .append("]")
            .toString();
      case KVLIST_VALUE:
        return "k" + attributes(value.getKvlistValue().getValuesList());
      default:
        return "-";
    }
  }

  private static String hex(ByteString bytes) {
    return HEX.formatHex(bytes.toByteArray());
  }
}
