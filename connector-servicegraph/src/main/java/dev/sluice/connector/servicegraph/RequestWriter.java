package dev.sluice.connector.servicegraph;

import dev.sluice.pdata.build.DataPointWriter;
import dev.sluice.pdata.build.MetricsBuilder;
import dev.sluice.pdata.build.ValueWriter;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.view.MetricView;
import java.util.List;

/**
 * Builds the metrics request a flush hands on, with a {@link MetricsBuilder}, as the Collector's
 * connector builds it: one resource without attributes, one scope named {@code
 * traces_service_graph}, and the cumulative {@code traces_service_graph_request_total} and {@code
 * traces_service_graph_request_failed_total} sums and the {@code
 * traces_service_graph_request_server} and {@code traces_service_graph_request_client} latency
 * histograms (unit {@code s}), a data point per series, every one starting when the connector was
 * made. Allocates (strings for attributes): it runs once per flush, not per span.
 */
final class RequestWriter {
  static final String SCOPE_NAME = "traces_service_graph";
  static final String REQUEST_TOTAL = "traces_service_graph_request_total";
  static final String REQUEST_FAILED_TOTAL = "traces_service_graph_request_failed_total";
  static final String REQUEST_SERVER = "traces_service_graph_request_server";
  static final String REQUEST_CLIENT = "traces_service_graph_request_client";
  static final String SECONDS = "s";
  static final String OVERFLOW_ATTRIBUTE = "otel.metric.overflow";

  private final SeriesTable series;
  private final List<String> dimensions;
  private final MetricsBuilder metrics = new MetricsBuilder();

  RequestWriter(SeriesTable series, List<String> dimensions) {
    this.series = series;
    this.dimensions = dimensions;
  }

  /**
   * The request of every series, with data points from {@code startUnixNanos} to {@code
   * timeUnixNanos}; null when there is no series.
   */
  OtlpIndex write(long startUnixNanos, long timeUnixNanos) {
    if (series.size() == 0) {
      return null;
    }
    metrics.reset();
    try {
      metrics.resource();
      metrics.scope().name(SCOPE_NAME);
      MetricsBuilder.MetricWriter total =
          metrics.metric().name(REQUEST_TOTAL).sum(MetricView.TEMPORALITY_CUMULATIVE, true);
      for (int i = 0; i < series.size(); i++) {
        Series s = series.get(i);
        point(total.numberPoint().intValue(s.requests), s, startUnixNanos, timeUnixNanos);
      }
      MetricsBuilder.MetricWriter failed = null;
      for (int i = 0; i < series.size(); i++) {
        Series s = series.get(i);
        if (s.failedRequests == 0) {
          continue;
        }
        if (failed == null) {
          failed =
              metrics
                  .metric()
                  .name(REQUEST_FAILED_TOTAL)
                  .sum(MetricView.TEMPORALITY_CUMULATIVE, true);
        }
        point(failed.numberPoint().intValue(s.failedRequests), s, startUnixNanos, timeUnixNanos);
      }
      latency(REQUEST_SERVER, true, startUnixNanos, timeUnixNanos);
      latency(REQUEST_CLIENT, false, startUnixNanos, timeUnixNanos);
      return metrics.build();
    } finally {
      metrics.reset();
    }
  }

  private void latency(String name, boolean server, long startUnixNanos, long timeUnixNanos) {
    MetricsBuilder.MetricWriter metric = metrics.metric().name(name).unit(SECONDS);
    if (series.exponential()) {
      metric.exponentialHistogram(MetricView.TEMPORALITY_CUMULATIVE);
    } else {
      metric.histogram(MetricView.TEMPORALITY_CUMULATIVE);
    }
    for (int i = 0; i < series.size(); i++) {
      Series s = series.get(i);
      Series.Latency latency = server ? s.server : s.client;
      DataPointWriter point;
      if (latency.exponential == null) {
        point =
            metric
                .histogramPoint()
                .count(latency.count)
                .sum(latency.sum)
                .buckets(series.bounds(), latency.bucketCounts);
      } else {
        point = latency.exponential.writeTo(metric);
      }
      point(point, s, startUnixNanos, timeUnixNanos);
    }
  }

  private void point(DataPointWriter point, Series s, long startUnixNanos, long timeUnixNanos) {
    point.startTimeUnixNano(startUnixNanos).timeUnixNano(timeUnixNanos);
    ValueWriter attributes = point.attributes();
    if (s.overflow()) {
      attributes.put(OVERFLOW_ATTRIBUTE, true);
      return;
    }
    Series.Key key = s.key;
    attributes.put("client", key.client());
    attributes.put("server", key.server());
    attributes.put("connection_type", key.connectionType());
    attributes.put("failed", key.failed());
    for (int d = 0; d < dimensions.size(); d++) {
      String client = key.dimensions().get(2 * d);
      if (client != null) {
        attributes.put("client_" + dimensions.get(d), client);
      }
      String server = key.dimensions().get(2 * d + 1);
      if (server != null) {
        attributes.put("server_" + dimensions.get(d), server);
      }
    }
    if (key.virtualNode() != null) {
      attributes.put("virtual_node", key.virtualNode());
    }
  }
}
