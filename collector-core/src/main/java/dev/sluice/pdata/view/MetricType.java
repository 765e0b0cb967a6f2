package dev.sluice.pdata.view;

import dev.sluice.pdata.internal.Internal;
import dev.sluice.pdata.internal.OtlpFields;

/** Which member of a {@code Metric}'s {@code data} oneof is set. */
public enum MetricType {
  /** No data field: a metric without data points. */
  EMPTY,
  GAUGE,
  SUM,
  HISTOGRAM,
  EXPONENTIAL_HISTOGRAM,
  SUMMARY;

  @Internal
  public static MetricType ofField(int dataField) {
    switch (dataField) {
      case OtlpFields.Metric.GAUGE:
        return GAUGE;
      case OtlpFields.Metric.SUM:
        return SUM;
      case OtlpFields.Metric.HISTOGRAM:
        return HISTOGRAM;
      case OtlpFields.Metric.EXPONENTIAL_HISTOGRAM:
        return EXPONENTIAL_HISTOGRAM;
      case OtlpFields.Metric.SUMMARY:
        return SUMMARY;
      default:
        return EMPTY;
    }
  }
}
