package dev.sluice.pdata.otlp;

/**
 * Field numbers that Sluice's code depends on, grouped per message. The three signals share the
 * shape of their outer levels, so one set of numbers serves traces, metrics and logs.
 */
public final class OtlpFields {
  private OtlpFields() {}

  /** {@code Export{Trace,Metrics,Logs}ServiceRequest}. */
  public static final class Request {
    /** {@code resource_spans}, {@code resource_metrics}, {@code resource_logs}. */
    public static final int RESOURCE_BLOCKS = 1;

    private Request() {}
  }

  /** {@code Resource{Spans,Metrics,Logs}}. */
  public static final class ResourceBlock {
    public static final int RESOURCE = 1;

    /** {@code scope_spans}, {@code scope_metrics}, {@code scope_logs}. */
    public static final int SCOPE_BLOCKS = 2;

    public static final int SCHEMA_URL = 3;

    private ResourceBlock() {}
  }

  /** {@code Scope{Spans,Metrics,Logs}}. */
  public static final class ScopeBlock {
    public static final int SCOPE = 1;

    /** {@code spans}, {@code metrics}, {@code log_records}. */
    public static final int ITEMS = 2;

    public static final int SCHEMA_URL = 3;

    private ScopeBlock() {}
  }

  /** {@code Metric}: the {@code data} oneof holds the data points. */
  public static final class Metric {
    public static final int NAME = 1;
    public static final int DESCRIPTION = 2;
    public static final int UNIT = 3;
    public static final int GAUGE = 5;
    public static final int SUM = 7;
    public static final int HISTOGRAM = 9;
    public static final int EXPONENTIAL_HISTOGRAM = 10;
    public static final int SUMMARY = 11;
    public static final int METADATA = 12;

    private Metric() {}

    /** Whether the field is one of the {@code data} oneof's members. */
    public static boolean isData(int fieldNumber) {
      return fieldNumber == GAUGE
          || fieldNumber == SUM
          || fieldNumber == HISTOGRAM
          || fieldNumber == EXPONENTIAL_HISTOGRAM
          || fieldNumber == SUMMARY;
    }
  }

  /**
   * {@code Gauge}, {@code Sum}, {@code Histogram}, {@code ExponentialHistogram}, {@code Summary}.
   */
  public static final class MetricData {
    public static final int DATA_POINTS = 1;
    public static final int AGGREGATION_TEMPORALITY = 2;

    /** {@code Sum.is_monotonic}. */
    public static final int IS_MONOTONIC = 3;

    private MetricData() {}
  }
}
