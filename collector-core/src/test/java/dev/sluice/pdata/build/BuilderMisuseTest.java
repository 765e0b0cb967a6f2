package dev.sluice.pdata.build;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.pdata.build.DataPointWriter.ExemplarWriter;
import dev.sluice.pdata.build.LogsBuilder.LogRecordWriter;
import dev.sluice.pdata.build.MetricsBuilder.MetricWriter;
import dev.sluice.pdata.build.TracesBuilder.SpanWriter;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.internal.OtlpEnums.AggregationTemporality;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import org.junit.jupiter.api.Test;

/**
 * Misuse throws at the call that is wrong, with a message that says what to do instead, and leaves
 * the builder as it was: what cannot be written is refused, never written.
 */
class BuilderMisuseTest {
  private final TracesBuilder traces = new TracesBuilder();

  private SpanWriter span() {
    traces.resource();
    traces.scope();
    return traces.span();
  }

  @Test
  void itemsNeedAScopeBlockAndScopeBlocksAResourceBlock() {
    assertThatThrownBy(traces::span)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("a span belongs to a scope block: call scope() first");
    assertThatThrownBy(traces::scope)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("a scope block belongs to a resource block: call resource() first");
    traces.resource();
    assertThatThrownBy(traces::span)
        .hasMessage("a span belongs to a scope block: call scope() first");
    assertThatThrownBy(new LogsBuilder()::logRecord)
        .hasMessage("a log record belongs to a scope block: call scope() first");
    assertThatThrownBy(new MetricsBuilder()::metric)
        .hasMessage("a metric belongs to a scope block: call scope() first");
  }

  @Test
  void idsOfTheWrongLengthAreRefused() {
    SpanWriter span = span();
    assertThatThrownBy(() -> span.traceId(new byte[8]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a trace ID is 16 bytes, not 8");
    assertThatThrownBy(() -> span.spanId(new byte[16]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a span ID is 8 bytes, not 16");
    assertThatThrownBy(() -> span.parentSpanId(new byte[0]))
        .hasMessage("a parent span ID is 8 bytes, not 0");
    MetricWriter metric = metric().gauge();
    assertThatThrownBy(() -> metric.numberPoint().exemplar().traceId(new byte[15]))
        .hasMessage("a trace ID is 16 bytes, not 15");

    assertThat(traces.toByteArray()).isEqualTo(withOneEmptySpan());
  }

  @Test
  void enumNumbersOutOfRangeAreRefused() {
    SpanWriter span = span();
    assertThatThrownBy(() -> span.kind(6))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("SpanKind 6 is not one of 0 to 5 (OtlpEnums.SpanKind)");
    assertThatThrownBy(() -> span.status(3, ""))
        .hasMessage("StatusCode 3 is not one of 0 to 2 (OtlpEnums.StatusCode)");
    LogsBuilder logs = new LogsBuilder();
    logs.resource();
    logs.scope();
    assertThatThrownBy(() -> logs.logRecord().severityNumber(-1))
        .hasMessage("SeverityNumber -1 is not one of 0 to 24 (OtlpEnums.SeverityNumber)");
    MetricWriter metric = metric();
    assertThatThrownBy(() -> metric.sum(3, true))
        .hasMessage(
            "AggregationTemporality 3 is not one of 0 to 2 (OtlpEnums.AggregationTemporality)");

    assertThat(traces.toByteArray()).isEqualTo(withOneEmptySpan());
  }

  @Test
  void dataPointsMustBeOfTheMetricsKind() {
    MetricWriter metric = metric();
    assertThatThrownBy(metric::numberPoint)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "a data point needs its metric's kind first: call gauge(), sum(...), histogram(...),"
                + " exponentialHistogram(...) or summary()");
    metric.sum(AggregationTemporality.DELTA, false);
    assertThatThrownBy(metric::histogramPoint)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("a sum holds number data points, not histogram data points");
    assertThatThrownBy(metric::gauge)
        .hasMessage("a metric holds one kind of data, and this one is already a sum");
    DataPointWriter point = metric.numberPoint();
    assertThatThrownBy(() -> point.count(1))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("count is not a field of number data points");

    DataPointWriter summary = metric().summary().summaryPoint();
    assertThatThrownBy(summary::exemplar)
        .hasMessage("exemplar is not a field of summary data points");
    assertThatThrownBy(() -> summary.buckets(new double[0], new long[0]))
        .hasMessage("buckets is not a field of summary data points");

    DataPointWriter histogram =
        metric().histogram(AggregationTemporality.CUMULATIVE).histogramPoint();
    assertThatThrownBy(() -> histogram.buckets(new double[] {1, 2}, new long[] {3, 4}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "a histogram has one bucket count more than it has explicit bounds, or neither: 2"
                + " bounds and 2 counts");
    assertThatThrownBy(() -> histogram.scale(1))
        .hasMessage("scale is not a field of histogram data points");
  }

  @Test
  void anOpenValueStopsItsItemFromEndingUntilItIsClosed() throws Exception {
    SpanWriter span = span().name("first");
    ValueWriter attributes = span.attributes().put("a", 1).putArray("list").add("x");

    assertThatThrownBy(traces::span)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("an array value in the span attributes is still open: end() it first");
    assertThatThrownBy(traces::toByteArray)
        .hasMessage("an array value in the span attributes is still open: end() it first");
    // Nothing was ended: the span can be finished and the request written.
    attributes.add("y").end();
    span.name("first, finished");
    traces.span().name("second");

    ExportTraceServiceRequest request = ExportTraceServiceRequest.parseFrom(traces.toByteArray());
    var spans = request.getResourceSpans(0).getScopeSpans(0).getSpansList();
    assertThat(spans).extracting(s -> s.getName()).containsExactly("first, finished", "second");
    assertThat(spans.get(0).getAttributes(1).getValue().getArrayValue().getValuesCount())
        .isEqualTo(2);
  }

  @Test
  void valuesGoWhereTheirKindAllows() {
    SpanWriter span = span();
    ValueWriter attributes = span.attributes();
    assertThatThrownBy(() -> attributes.add("x"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "add(value) is for arrays, and the span attributes are a key-value list: use"
                + " put(key, value)");
    assertThatThrownBy(attributes::end)
        .hasMessage(
            "end() closes an array or key-value list value, and none is open in the span"
                + " attributes");
    attributes.putArray("list");
    assertThatThrownBy(() -> attributes.put("k", "v"))
        .hasMessage(
            "put(key, value) is for key-value lists, and the innermost open value in the span"
                + " attributes is an array: add(value) to it, or end() it first");
    attributes.addKvList();
    assertThatThrownBy(() -> attributes.add(1))
        .hasMessage(
            "add(value) is for arrays, and the innermost open value in the span attributes is a"
                + " key-value list: put(key, value) into it, or end() it first");

    LogsBuilder logs = new LogsBuilder();
    logs.resource();
    logs.scope();
    LogRecordWriter log = logs.logRecord();
    assertThatThrownBy(() -> log.arrayBody().put("k", "v"))
        .hasMessage(
            "put(key, value) is for key-value lists, and the innermost open value in the log"
                + " record body is an array: add(value) to it, or end() it first");
  }

  @Test
  void valuesNestAsDeepAsTheIndexerAcceptsAndNoDeeper() {
    MetricsBuilder metrics = new MetricsBuilder();
    metrics.resource();
    metrics.scope();
    // Exemplar attributes are the deepest; key-value lists nest three messages a level.
    ExemplarWriter exemplar =
        metrics.metric().histogram(AggregationTemporality.DELTA).histogramPoint().exemplar();
    ValueWriter values = exemplar.filteredAttributes();
    for (int level = 0; level < ValueWriter.MAX_NESTING; level++) {
      values.putKvList("level");
    }
    values.put("deepest", "value");
    assertThatThrownBy(() -> values.putKvList("too deep"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("array and key-value list values nest at most 30 deep");
    assertThatThrownBy(values::addArray)
        .hasMessage("array and key-value list values nest at most 30 deep");
    for (int level = 0; level < ValueWriter.MAX_NESTING; level++) {
      values.end();
    }

    OtlpIndex index = metrics.build();
    assertThat(index.unitCount()).isEqualTo(1);
  }

  @Test
  void writersOfEndedItemsAndFinishedRequestsRefuseWrites() {
    SpanWriter span = span();
    ValueWriter attributes = span.attributes();
    traces.scope();
    assertThatThrownBy(() -> span.name("late"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("no span is open: call span() first");
    assertThatThrownBy(() -> attributes.put("late", 1))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the span attributes can no longer be written: the span has ended");
    traces.toByteArray();
    assertThatThrownBy(traces::resource)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "the request is finished (toByteArray(), writeTo(), build() or encodedSize() was"
                + " called): reset() to build another");
    assertThatThrownBy(() -> traces.writeTo(new byte[traces.encodedSize() + 1], 2))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }

  private MetricWriter metric() {
    MetricsBuilder metrics = new MetricsBuilder();
    metrics.resource();
    metrics.scope();
    return metrics.metric();
  }

  private static byte[] withOneEmptySpan() {
    TracesBuilder builder = new TracesBuilder();
    builder.resource();
    builder.scope();
    builder.span();
    return builder.toByteArray();
  }
}
