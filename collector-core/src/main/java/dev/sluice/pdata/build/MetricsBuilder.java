package dev.sluice.pdata.build;

import dev.sluice.pdata.Signal;
import dev.sluice.pdata.internal.OtlpEnums.AggregationTemporality;
import dev.sluice.pdata.internal.OtlpFields.Metric;
import dev.sluice.pdata.internal.OtlpFields.MetricData;
import dev.sluice.pdata.internal.OtlpFields.ScopeBlock;
import dev.sluice.pdata.internal.OtlpFields.Sum;
import dev.sluice.pdata.internal.ProtoWriter;

/**
 * Writes an {@code ExportMetricsServiceRequest}: resource blocks, scope blocks and metrics with
 * their data points. A metric's kind ({@link MetricWriter#gauge() gauge}, {@link MetricWriter#sum
 * sum}, {@link MetricWriter#histogram histogram}, {@link MetricWriter#exponentialHistogram
 * exponential histogram} or {@link MetricWriter#summary() summary}) is set once, before its data
 * points, which must be of the kind it holds.
 *
 * <pre>{@code
 * MetricsBuilder metrics = new MetricsBuilder();     // once per thread, reused
 * metrics.resource().attributes().put("service.name", "checkout");
 * metrics.scope().name("dev.sluice.spanmetrics");
 * MetricWriter calls = metrics.metric().name("calls").unit("{call}")
 *     .sum(MetricView.TEMPORALITY_CUMULATIVE, true);
 * calls.numberPoint().startTimeUnixNano(start).timeUnixNano(now).intValue(42)
 *     .attributes().put("span.name", "GET /users/{id}");
 * metrics.metric().name("duration").unit("ms")
 *     .histogram(MetricView.TEMPORALITY_CUMULATIVE)
 *     .histogramPoint().timeUnixNano(now).count(42).sum(1234.5)
 *     .buckets(new double[] {10, 100}, new long[] {30, 10, 2});
 * Batch batch = Batch.of(metrics.build());
 * }</pre>
 *
 * See {@link RequestBuilder} for the rules every builder follows.
 */
public final class MetricsBuilder extends RequestBuilder {
  /** The data message a metric holds, and the kind of its data points. */
  private enum Data {
    GAUGE(Metric.GAUGE, "a gauge", DataPointWriter.Kind.NUMBER),
    SUM(Metric.SUM, "a sum", DataPointWriter.Kind.NUMBER),
    HISTOGRAM(Metric.HISTOGRAM, "a histogram", DataPointWriter.Kind.HISTOGRAM),
    EXPONENTIAL_HISTOGRAM(
        Metric.EXPONENTIAL_HISTOGRAM,
        "an exponential histogram",
        DataPointWriter.Kind.EXPONENTIAL_HISTOGRAM),
    SUMMARY(Metric.SUMMARY, "a summary", DataPointWriter.Kind.SUMMARY);

    final int field;

    /** With its article, for messages. */
    final String kindName;

    final DataPointWriter.Kind points;

    Data(int field, String kindName, DataPointWriter.Kind points) {
      this.field = field;
      this.kindName = kindName;
      this.points = points;
    }
  }

  private final MetricWriter metric = new MetricWriter();

  public MetricsBuilder() {
    super(Signal.METRICS, "metric");
  }

  /** Begins a metric in the current scope block, ending the metric before. */
  public MetricWriter metric() {
    beginItem();
    metric.start();
    return metric;
  }

  @Override
  void endItem() {
    if (metric.open) {
      metric.end(items);
    }
  }

  @Override
  void dropItem() {
    metric.close();
  }

  /** The metric begun last; its data points are begun from it. */
  public final class MetricWriter {
    private final ProtoWriter name = new ProtoWriter(64);
    private final ProtoWriter description = new ProtoWriter(64);
    private final ProtoWriter unit = new ProtoWriter(16);
    private final ValueWriter metadata = new ValueWriter("metric", "metadata");
    private Data data;
    private int aggregationTemporality;
    private boolean monotonic;
    private final ProtoWriter points = new ProtoWriter(256);
    private final DataPointWriter point = new DataPointWriter();
    private boolean open;

    MetricWriter() {}

    public MetricWriter name(CharSequence name) {
      checkOpen();
      this.name.reset();
      Fields.string(this.name, Metric.NAME, name);
      return this;
    }

    public MetricWriter description(CharSequence description) {
      checkOpen();
      this.description.reset();
      Fields.string(this.description, Metric.DESCRIPTION, description);
      return this;
    }

    public MetricWriter unit(CharSequence unit) {
      checkOpen();
      this.unit.reset();
      Fields.string(this.unit, Metric.UNIT, unit);
      return this;
    }

    /** The metric's {@code metadata}: key-value pairs about the metric, not about its points. */
    public ValueWriter metadata() {
      checkOpen();
      return metadata;
    }

    /** Makes the metric a {@code Gauge}, of number data points. */
    public MetricWriter gauge() {
      return data(Data.GAUGE, 0, false);
    }

    /**
     * Makes the metric a {@code Sum}, of number data points.
     *
     * @param aggregationTemporality {@link
     *     dev.sluice.pdata.view.MetricView#AGGREGATION_TEMPORALITY_DELTA} or {@link
     *     dev.sluice.pdata.view.MetricView#AGGREGATION_TEMPORALITY_CUMULATIVE}
     */
    public MetricWriter sum(int aggregationTemporality, boolean monotonic) {
      return data(Data.SUM, aggregationTemporality, monotonic);
    }

    /** Makes the metric a {@code Histogram}, of histogram data points. */
    public MetricWriter histogram(int aggregationTemporality) {
      return data(Data.HISTOGRAM, aggregationTemporality, false);
    }

    /** Makes the metric an {@code ExponentialHistogram}, of exponential histogram data points. */
    public MetricWriter exponentialHistogram(int aggregationTemporality) {
      return data(Data.EXPONENTIAL_HISTOGRAM, aggregationTemporality, false);
    }

    /** Makes the metric a {@code Summary}, of summary data points. */
    public MetricWriter summary() {
      return data(Data.SUMMARY, 0, false);
    }

    /** Begins a number data point of this gauge or sum, ending the data point before. */
    public DataPointWriter numberPoint() {
      return point(DataPointWriter.Kind.NUMBER);
    }

    /** Begins a histogram data point of this histogram, ending the data point before. */
    public DataPointWriter histogramPoint() {
      return point(DataPointWriter.Kind.HISTOGRAM);
    }

    /** Begins a data point of this exponential histogram, ending the data point before. */
    public DataPointWriter exponentialHistogramPoint() {
      return point(DataPointWriter.Kind.EXPONENTIAL_HISTOGRAM);
    }

    /** Begins a summary data point of this summary, ending the data point before. */
    public DataPointWriter summaryPoint() {
      return point(DataPointWriter.Kind.SUMMARY);
    }

    private MetricWriter data(Data data, int aggregationTemporality, boolean monotonic) {
      checkOpen();
      if (this.data != null) {
        throw new IllegalStateException(
            "a metric holds one kind of data, and this one is already " + this.data.kindName);
      }
      this.aggregationTemporality =
          Fields.checkEnum(
              aggregationTemporality, AggregationTemporality.CUMULATIVE, "AggregationTemporality");
      this.monotonic = monotonic;
      this.data = data;
      return this;
    }

    private DataPointWriter point(DataPointWriter.Kind kind) {
      checkOpen();
      if (data == null) {
        throw new IllegalStateException(
            "a data point needs its metric's kind first: call gauge(), sum(...), histogram(...),"
                + " exponentialHistogram(...) or summary()");
      }
      if (data.points != kind) {
        throw new IllegalStateException(
            data.kindName
                + " holds "
                + data.points.pointName
                + " data points, not "
                + kind.pointName
                + " data points");
      }
      point.end(points);
      point.start(kind);
      return point;
    }

    void start() {
      name.reset();
      description.reset();
      unit.reset();
      metadata.start(Metric.METADATA);
      data = null;
      aggregationTemporality = 0;
      monotonic = false;
      points.reset();
      open = true;
    }

    void end(ProtoWriter out) {
      point.end(points);
      metadata.checkClosed();
      int mark = out.beginLengthDelimited(ScopeBlock.ITEMS);
      Fields.copy(out, name);
      Fields.copy(out, description);
      Fields.copy(out, unit);
      if (data != null) {
        int dataMark = out.beginLengthDelimited(data.field);
        Fields.copy(out, points);
        // Zero and false for the kinds that do not have these fields.
        Fields.uint32(out, MetricData.AGGREGATION_TEMPORALITY, aggregationTemporality);
        Fields.bool(out, Sum.IS_MONOTONIC, monotonic);
        out.endLengthDelimited(dataMark);
      }
      Fields.copy(out, metadata.bytes());
      out.endLengthDelimited(mark);
      close();
    }

    void close() {
      point.close();
      metadata.close();
      open = false;
    }

    private void checkOpen() {
      if (!open) {
        throw new IllegalStateException("no metric is open: call metric() first");
      }
    }
  }
}
