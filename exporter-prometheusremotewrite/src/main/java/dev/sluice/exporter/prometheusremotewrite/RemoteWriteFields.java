package dev.sluice.exporter.prometheusremotewrite;

/**
 * Field numbers of the remote-write messages: {@code prometheus.WriteRequest} (1.0, Prometheus'
 * {@code prompb/types.proto} and {@code remote.proto}) and {@code io.prometheus.write.v2.Request}
 * (2.0). The tests decode what is written with classes generated from those files.
 */
final class RemoteWriteFields {
  private RemoteWriteFields() {}

  /** {@code prometheus.WriteRequest}. */
  static final class WriteRequest {
    static final int TIMESERIES = 1;
    static final int METADATA = 3;

    private WriteRequest() {}
  }

  /** {@code prometheus.TimeSeries}. */
  static final class TimeSeries {
    static final int LABELS = 1;
    static final int SAMPLES = 2;
    static final int EXEMPLARS = 3;
    static final int HISTOGRAMS = 4;

    private TimeSeries() {}
  }

  /** {@code prometheus.Label}. */
  static final class Label {
    static final int NAME = 1;
    static final int VALUE = 2;

    private Label() {}
  }

  /** {@code prometheus.Sample} and {@code io.prometheus.write.v2.Sample}. */
  static final class Sample {
    static final int VALUE = 1;
    static final int TIMESTAMP = 2;

    /** 2.0 only. */
    static final int START_TIMESTAMP = 3;

    private Sample() {}
  }

  /** {@code prometheus.Exemplar} and {@code io.prometheus.write.v2.Exemplar}. */
  static final class Exemplar {
    static final int LABELS = 1;
    static final int VALUE = 2;
    static final int TIMESTAMP = 3;

    private Exemplar() {}
  }

  /** {@code prometheus.Histogram} and {@code io.prometheus.write.v2.Histogram}. */
  static final class Histogram {
    static final int COUNT_INT = 1;
    static final int SUM = 3;
    static final int SCHEMA = 4;
    static final int ZERO_THRESHOLD = 5;
    static final int ZERO_COUNT_INT = 6;
    static final int NEGATIVE_SPANS = 8;
    static final int NEGATIVE_DELTAS = 9;
    static final int POSITIVE_SPANS = 11;
    static final int POSITIVE_DELTAS = 12;
    static final int RESET_HINT = 14;
    static final int TIMESTAMP = 15;

    /** 2.0 only. */
    static final int START_TIMESTAMP = 17;

    /** {@code ResetHint.GAUGE}: a gauge histogram, where counter resets do not happen. */
    static final int RESET_HINT_GAUGE = 3;

    private Histogram() {}
  }

  /** {@code prometheus.BucketSpan} and {@code io.prometheus.write.v2.BucketSpan}. */
  static final class BucketSpan {
    static final int OFFSET = 1;
    static final int LENGTH = 2;

    private BucketSpan() {}
  }

  /** {@code prometheus.MetricMetadata}. */
  static final class MetricMetadata {
    static final int TYPE = 1;
    static final int METRIC_FAMILY_NAME = 2;
    static final int HELP = 4;
    static final int UNIT = 5;

    static final int COUNTER = 1;
    static final int GAUGE = 2;
    static final int HISTOGRAM = 3;
    static final int SUMMARY = 5;

    private MetricMetadata() {}
  }

  /** {@code io.prometheus.write.v2.Request}. */
  static final class RequestV2 {
    static final int SYMBOLS = 4;
    static final int TIMESERIES = 5;

    private RequestV2() {}
  }

  /** {@code io.prometheus.write.v2.TimeSeries}. */
  static final class TimeSeriesV2 {
    static final int LABELS_REFS = 1;
    static final int SAMPLES = 2;
    static final int HISTOGRAMS = 3;
    static final int EXEMPLARS = 4;
    static final int METADATA = 5;

    private TimeSeriesV2() {}
  }

  /** {@code io.prometheus.write.v2.Metadata}. */
  static final class MetadataV2 {
    static final int TYPE = 1;
    static final int HELP_REF = 3;
    static final int UNIT_REF = 4;

    static final int COUNTER = 1;
    static final int GAUGE = 2;
    static final int HISTOGRAM = 3;
    static final int SUMMARY = 5;
    static final int INFO = 6;
    static final int STATESET = 7;

    private MetadataV2() {}
  }
}
