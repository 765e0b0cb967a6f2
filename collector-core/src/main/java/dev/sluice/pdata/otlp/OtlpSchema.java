package dev.sluice.pdata.otlp;

import static dev.sluice.pdata.otlp.FieldKind.BOOL;
import static dev.sluice.pdata.otlp.FieldKind.BYTES;
import static dev.sluice.pdata.otlp.FieldKind.DOUBLE;
import static dev.sluice.pdata.otlp.FieldKind.FIXED32;
import static dev.sluice.pdata.otlp.FieldKind.FIXED64;
import static dev.sluice.pdata.otlp.FieldKind.INT32;
import static dev.sluice.pdata.otlp.FieldKind.INT64;
import static dev.sluice.pdata.otlp.FieldKind.SFIXED64;
import static dev.sluice.pdata.otlp.FieldKind.SINT32;
import static dev.sluice.pdata.otlp.FieldKind.STRING;
import static dev.sluice.pdata.otlp.FieldKind.UINT32;
import static dev.sluice.pdata.otlp.FieldKind.UINT64;

import java.util.ArrayList;
import java.util.List;

/**
 * Every message reachable from the three OTLP export requests, as of opentelemetry-proto 1.11. One
 * table drives validation, error paths and JSON transcoding; a test checks it against the
 * descriptors that protobuf-java generates from the same proto files.
 */
public final class OtlpSchema {
  private OtlpSchema() {}

  // common/v1
  public static final MessageSchema ANY_VALUE = new MessageSchema("AnyValue");
  public static final MessageSchema ARRAY_VALUE = new MessageSchema("ArrayValue");
  public static final MessageSchema KEY_VALUE_LIST = new MessageSchema("KeyValueList");
  public static final MessageSchema KEY_VALUE = new MessageSchema("KeyValue");
  public static final MessageSchema INSTRUMENTATION_SCOPE =
      new MessageSchema("InstrumentationScope");
  public static final MessageSchema ENTITY_REF = new MessageSchema("EntityRef");

  // resource/v1
  public static final MessageSchema RESOURCE = new MessageSchema("Resource");

  // trace/v1
  public static final MessageSchema TRACES_REQUEST = new MessageSchema("ExportTraceServiceRequest");
  public static final MessageSchema RESOURCE_SPANS = new MessageSchema("ResourceSpans");
  public static final MessageSchema SCOPE_SPANS = new MessageSchema("ScopeSpans");
  public static final MessageSchema SPAN = new MessageSchema("Span");
  public static final MessageSchema SPAN_EVENT = new MessageSchema("Span.Event");
  public static final MessageSchema SPAN_LINK = new MessageSchema("Span.Link");
  public static final MessageSchema STATUS = new MessageSchema("Status");

  // logs/v1
  public static final MessageSchema LOGS_REQUEST = new MessageSchema("ExportLogsServiceRequest");
  public static final MessageSchema RESOURCE_LOGS = new MessageSchema("ResourceLogs");
  public static final MessageSchema SCOPE_LOGS = new MessageSchema("ScopeLogs");
  public static final MessageSchema LOG_RECORD = new MessageSchema("LogRecord");

  // metrics/v1
  public static final MessageSchema METRICS_REQUEST =
      new MessageSchema("ExportMetricsServiceRequest");
  public static final MessageSchema RESOURCE_METRICS = new MessageSchema("ResourceMetrics");
  public static final MessageSchema SCOPE_METRICS = new MessageSchema("ScopeMetrics");
  public static final MessageSchema METRIC = new MessageSchema("Metric");
  public static final MessageSchema GAUGE = new MessageSchema("Gauge");
  public static final MessageSchema SUM = new MessageSchema("Sum");
  public static final MessageSchema HISTOGRAM = new MessageSchema("Histogram");
  public static final MessageSchema EXPONENTIAL_HISTOGRAM =
      new MessageSchema("ExponentialHistogram");
  public static final MessageSchema SUMMARY = new MessageSchema("Summary");
  public static final MessageSchema NUMBER_DATA_POINT = new MessageSchema("NumberDataPoint");
  public static final MessageSchema HISTOGRAM_DATA_POINT = new MessageSchema("HistogramDataPoint");
  public static final MessageSchema EXPONENTIAL_HISTOGRAM_DATA_POINT =
      new MessageSchema("ExponentialHistogramDataPoint");
  public static final MessageSchema BUCKETS =
      new MessageSchema("ExponentialHistogramDataPoint.Buckets");
  public static final MessageSchema SUMMARY_DATA_POINT = new MessageSchema("SummaryDataPoint");
  public static final MessageSchema VALUE_AT_QUANTILE =
      new MessageSchema("SummaryDataPoint.ValueAtQuantile");
  public static final MessageSchema EXEMPLAR = new MessageSchema("Exemplar");

  private static final List<String> SPAN_KIND =
      List.of(
          "SPAN_KIND_UNSPECIFIED",
          "SPAN_KIND_INTERNAL",
          "SPAN_KIND_SERVER",
          "SPAN_KIND_CLIENT",
          "SPAN_KIND_PRODUCER",
          "SPAN_KIND_CONSUMER");
  private static final List<String> STATUS_CODE =
      List.of("STATUS_CODE_UNSET", "STATUS_CODE_OK", "STATUS_CODE_ERROR");
  private static final List<String> AGGREGATION_TEMPORALITY =
      List.of(
          "AGGREGATION_TEMPORALITY_UNSPECIFIED",
          "AGGREGATION_TEMPORALITY_DELTA",
          "AGGREGATION_TEMPORALITY_CUMULATIVE");
  private static final List<String> SEVERITY_NUMBER = severityNumbers();

  static {
    ANY_VALUE.define(
        oneof(1, "string_value", STRING),
        oneof(2, "bool_value", BOOL),
        oneof(3, "int_value", INT64),
        oneof(4, "double_value", DOUBLE),
        oneofMessage(5, "array_value", ARRAY_VALUE),
        oneofMessage(6, "kvlist_value", KEY_VALUE_LIST),
        oneof(7, "bytes_value", BYTES),
        oneof(8, "string_value_strindex", INT32));
    ARRAY_VALUE.define(repeated(1, "values", ANY_VALUE));
    KEY_VALUE_LIST.define(repeated(1, "values", KEY_VALUE));
    KEY_VALUE.define(
        scalar(1, "key", STRING), message(2, "value", ANY_VALUE), scalar(3, "key_strindex", INT32));
    INSTRUMENTATION_SCOPE.define(
        scalar(1, "name", STRING),
        scalar(2, "version", STRING),
        repeated(3, "attributes", KEY_VALUE),
        scalar(4, "dropped_attributes_count", UINT32));
    ENTITY_REF.define(
        scalar(1, "schema_url", STRING),
        scalar(2, "type", STRING),
        repeatedScalar(3, "id_keys", STRING),
        repeatedScalar(4, "description_keys", STRING));
    RESOURCE.define(
        repeated(1, "attributes", KEY_VALUE),
        scalar(2, "dropped_attributes_count", UINT32),
        repeated(3, "entity_refs", ENTITY_REF));

    TRACES_REQUEST.define(repeated(1, "resource_spans", RESOURCE_SPANS));
    RESOURCE_SPANS.define(
        message(1, "resource", RESOURCE),
        repeated(2, "scope_spans", SCOPE_SPANS),
        scalar(3, "schema_url", STRING));
    SCOPE_SPANS.define(
        message(1, "scope", INSTRUMENTATION_SCOPE),
        repeated(2, "spans", SPAN),
        scalar(3, "schema_url", STRING));
    SPAN.define(
        id(1, "trace_id", 16),
        id(2, "span_id", 8),
        scalar(3, "trace_state", STRING),
        id(4, "parent_span_id", 8),
        scalar(16, "flags", FIXED32),
        scalar(5, "name", STRING),
        enumeration(6, "kind", SPAN_KIND),
        scalar(7, "start_time_unix_nano", FIXED64),
        scalar(8, "end_time_unix_nano", FIXED64),
        repeated(9, "attributes", KEY_VALUE),
        scalar(10, "dropped_attributes_count", UINT32),
        repeated(11, "events", SPAN_EVENT),
        scalar(12, "dropped_events_count", UINT32),
        repeated(13, "links", SPAN_LINK),
        scalar(14, "dropped_links_count", UINT32),
        message(15, "status", STATUS));
    SPAN_EVENT.define(
        scalar(1, "time_unix_nano", FIXED64),
        scalar(2, "name", STRING),
        repeated(3, "attributes", KEY_VALUE),
        scalar(4, "dropped_attributes_count", UINT32));
    SPAN_LINK.define(
        id(1, "trace_id", 16),
        id(2, "span_id", 8),
        scalar(3, "trace_state", STRING),
        repeated(4, "attributes", KEY_VALUE),
        scalar(5, "dropped_attributes_count", UINT32),
        scalar(6, "flags", FIXED32));
    STATUS.define(scalar(2, "message", STRING), enumeration(3, "code", STATUS_CODE));

    LOGS_REQUEST.define(repeated(1, "resource_logs", RESOURCE_LOGS));
    RESOURCE_LOGS.define(
        message(1, "resource", RESOURCE),
        repeated(2, "scope_logs", SCOPE_LOGS),
        scalar(3, "schema_url", STRING));
    SCOPE_LOGS.define(
        message(1, "scope", INSTRUMENTATION_SCOPE),
        repeated(2, "log_records", LOG_RECORD),
        scalar(3, "schema_url", STRING));
    LOG_RECORD.define(
        scalar(1, "time_unix_nano", FIXED64),
        scalar(11, "observed_time_unix_nano", FIXED64),
        enumeration(2, "severity_number", SEVERITY_NUMBER),
        scalar(3, "severity_text", STRING),
        message(5, "body", ANY_VALUE),
        repeated(6, "attributes", KEY_VALUE),
        scalar(7, "dropped_attributes_count", UINT32),
        scalar(8, "flags", FIXED32),
        id(9, "trace_id", 16),
        id(10, "span_id", 8),
        scalar(12, "event_name", STRING));

    METRICS_REQUEST.define(repeated(1, "resource_metrics", RESOURCE_METRICS));
    RESOURCE_METRICS.define(
        message(1, "resource", RESOURCE),
        repeated(2, "scope_metrics", SCOPE_METRICS),
        scalar(3, "schema_url", STRING));
    SCOPE_METRICS.define(
        message(1, "scope", INSTRUMENTATION_SCOPE),
        repeated(2, "metrics", METRIC),
        scalar(3, "schema_url", STRING));
    METRIC.define(
        scalar(OtlpFields.Metric.NAME, "name", STRING),
        scalar(OtlpFields.Metric.DESCRIPTION, "description", STRING),
        scalar(OtlpFields.Metric.UNIT, "unit", STRING),
        oneofMessage(OtlpFields.Metric.GAUGE, "gauge", GAUGE),
        oneofMessage(OtlpFields.Metric.SUM, "sum", SUM),
        oneofMessage(OtlpFields.Metric.HISTOGRAM, "histogram", HISTOGRAM),
        oneofMessage(
            OtlpFields.Metric.EXPONENTIAL_HISTOGRAM,
            "exponential_histogram",
            EXPONENTIAL_HISTOGRAM),
        oneofMessage(OtlpFields.Metric.SUMMARY, "summary", SUMMARY),
        repeated(OtlpFields.Metric.METADATA, "metadata", KEY_VALUE));
    GAUGE.define(repeated(OtlpFields.MetricData.DATA_POINTS, "data_points", NUMBER_DATA_POINT));
    SUM.define(
        repeated(OtlpFields.MetricData.DATA_POINTS, "data_points", NUMBER_DATA_POINT),
        enumeration(
            OtlpFields.MetricData.AGGREGATION_TEMPORALITY,
            "aggregation_temporality",
            AGGREGATION_TEMPORALITY),
        scalar(OtlpFields.MetricData.IS_MONOTONIC, "is_monotonic", BOOL));
    HISTOGRAM.define(
        repeated(OtlpFields.MetricData.DATA_POINTS, "data_points", HISTOGRAM_DATA_POINT),
        enumeration(
            OtlpFields.MetricData.AGGREGATION_TEMPORALITY,
            "aggregation_temporality",
            AGGREGATION_TEMPORALITY));
    EXPONENTIAL_HISTOGRAM.define(
        repeated(
            OtlpFields.MetricData.DATA_POINTS, "data_points", EXPONENTIAL_HISTOGRAM_DATA_POINT),
        enumeration(
            OtlpFields.MetricData.AGGREGATION_TEMPORALITY,
            "aggregation_temporality",
            AGGREGATION_TEMPORALITY));
    SUMMARY.define(repeated(OtlpFields.MetricData.DATA_POINTS, "data_points", SUMMARY_DATA_POINT));
    NUMBER_DATA_POINT.define(
        repeated(7, "attributes", KEY_VALUE),
        scalar(2, "start_time_unix_nano", FIXED64),
        scalar(3, "time_unix_nano", FIXED64),
        oneof(4, "as_double", DOUBLE),
        oneof(6, "as_int", SFIXED64),
        repeated(5, "exemplars", EXEMPLAR),
        scalar(8, "flags", UINT32));
    HISTOGRAM_DATA_POINT.define(
        repeated(9, "attributes", KEY_VALUE),
        scalar(2, "start_time_unix_nano", FIXED64),
        scalar(3, "time_unix_nano", FIXED64),
        scalar(4, "count", FIXED64),
        oneof(5, "sum", DOUBLE),
        repeatedScalar(6, "bucket_counts", FIXED64),
        repeatedScalar(7, "explicit_bounds", DOUBLE),
        repeated(8, "exemplars", EXEMPLAR),
        scalar(10, "flags", UINT32),
        oneof(11, "min", DOUBLE),
        oneof(12, "max", DOUBLE));
    EXPONENTIAL_HISTOGRAM_DATA_POINT.define(
        repeated(1, "attributes", KEY_VALUE),
        scalar(2, "start_time_unix_nano", FIXED64),
        scalar(3, "time_unix_nano", FIXED64),
        scalar(4, "count", FIXED64),
        oneof(5, "sum", DOUBLE),
        scalar(6, "scale", SINT32),
        scalar(7, "zero_count", FIXED64),
        message(8, "positive", BUCKETS),
        message(9, "negative", BUCKETS),
        scalar(10, "flags", UINT32),
        repeated(11, "exemplars", EXEMPLAR),
        oneof(12, "min", DOUBLE),
        oneof(13, "max", DOUBLE),
        scalar(14, "zero_threshold", DOUBLE));
    BUCKETS.define(scalar(1, "offset", SINT32), repeatedScalar(2, "bucket_counts", UINT64));
    SUMMARY_DATA_POINT.define(
        repeated(7, "attributes", KEY_VALUE),
        scalar(2, "start_time_unix_nano", FIXED64),
        scalar(3, "time_unix_nano", FIXED64),
        scalar(4, "count", FIXED64),
        scalar(5, "sum", DOUBLE),
        repeated(6, "quantile_values", VALUE_AT_QUANTILE),
        scalar(8, "flags", UINT32));
    VALUE_AT_QUANTILE.define(scalar(1, "quantile", DOUBLE), scalar(2, "value", DOUBLE));
    EXEMPLAR.define(
        repeated(7, "filtered_attributes", KEY_VALUE),
        scalar(2, "time_unix_nano", FIXED64),
        oneof(3, "as_double", DOUBLE),
        oneof(6, "as_int", SFIXED64),
        id(4, "span_id", 8),
        id(5, "trace_id", 16));
  }

  /** Every message type above, for tests and tools that walk the whole schema. */
  public static List<MessageSchema> all() {
    return List.of(
        ANY_VALUE,
        ARRAY_VALUE,
        KEY_VALUE_LIST,
        KEY_VALUE,
        INSTRUMENTATION_SCOPE,
        ENTITY_REF,
        RESOURCE,
        TRACES_REQUEST,
        RESOURCE_SPANS,
        SCOPE_SPANS,
        SPAN,
        SPAN_EVENT,
        SPAN_LINK,
        STATUS,
        LOGS_REQUEST,
        RESOURCE_LOGS,
        SCOPE_LOGS,
        LOG_RECORD,
        METRICS_REQUEST,
        RESOURCE_METRICS,
        SCOPE_METRICS,
        METRIC,
        GAUGE,
        SUM,
        HISTOGRAM,
        EXPONENTIAL_HISTOGRAM,
        SUMMARY,
        NUMBER_DATA_POINT,
        HISTOGRAM_DATA_POINT,
        EXPONENTIAL_HISTOGRAM_DATA_POINT,
        BUCKETS,
        SUMMARY_DATA_POINT,
        VALUE_AT_QUANTILE,
        EXEMPLAR);
  }

  private static List<String> severityNumbers() {
    List<String> names = new ArrayList<>();
    names.add("SEVERITY_NUMBER_UNSPECIFIED");
    for (String level : List.of("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL")) {
      names.add("SEVERITY_NUMBER_" + level);
      for (int i = 2; i <= 4; i++) {
        names.add("SEVERITY_NUMBER_" + level + i);
      }
    }
    return List.copyOf(names);
  }

  private static FieldSchema scalar(int number, String name, FieldKind kind) {
    return new FieldSchema(number, name, kind, false, false, 0, List.of(), null);
  }

  private static FieldSchema oneof(int number, String name, FieldKind kind) {
    return new FieldSchema(number, name, kind, false, true, 0, List.of(), null);
  }

  private static FieldSchema repeatedScalar(int number, String name, FieldKind kind) {
    return new FieldSchema(number, name, kind, true, false, 0, List.of(), null);
  }

  private static FieldSchema enumeration(int number, String name, List<String> names) {
    return new FieldSchema(number, name, FieldKind.ENUM, false, false, 0, names, null);
  }

  private static FieldSchema id(int number, String name, int bytes) {
    return new FieldSchema(number, name, BYTES, false, false, bytes, List.of(), null);
  }

  private static FieldSchema message(int number, String name, MessageSchema type) {
    return new FieldSchema(number, name, FieldKind.MESSAGE, false, true, 0, List.of(), type);
  }

  private static FieldSchema oneofMessage(int number, String name, MessageSchema type) {
    return message(number, name, type);
  }

  private static FieldSchema repeated(int number, String name, MessageSchema type) {
    return new FieldSchema(number, name, FieldKind.MESSAGE, true, false, 0, List.of(), type);
  }
}
