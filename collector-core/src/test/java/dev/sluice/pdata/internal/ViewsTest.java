package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchView;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpJsonDecoder;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.pdata.view.ArrayCursor;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.testkit.RandomRequests;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every field the views read agrees with protobuf-java's parse of the same bytes: on the OTLP
 * specification's examples, on seeded random requests (every AnyValue variant, nested arrays and
 * key-value lists, unknown fields, empty blocks), and on batches cut between data points and merged
 * across requests (against protobuf-java's parse of the marshaled batch).
 */
class ViewsTest {
  private static final int RANDOM_REQUESTS = 150;

  @ParameterizedTest
  @CsvSource({
    "trace.json, TRACES",
    "metrics.json, METRICS",
    "logs.json, LOGS",
    "events.json, LOGS"
  })
  void specificationExamplesReadAsProtobufJavaParsesThem(String file, Signal signal)
      throws Exception {
    byte[] json;
    try (InputStream in = ViewsTest.class.getResourceAsStream("/otlp-examples/" + file)) {
      json = in.readAllBytes();
    }
    byte[] request = new OtlpJsonDecoder().decode(signal, json);

    List<String> views = render(Batch.of(new OtlpIndexer().index(signal, request)));

    assertThat(views).isNotEmpty().isEqualTo(reference(signal, request));
  }

  @Test
  void randomRequestsOfEverySignalReadAsProtobufJavaParsesThem() throws Exception {
    for (Signal signal : Signal.values()) {
      for (int seed = 0; seed < RANDOM_REQUESTS; seed++) {
        byte[] request =
            RandomRequests.request(signal, new Random(seed), RandomRequests.Sizes.DEFAULT, null)
                .toByteArray();

        List<String> views = render(Batch.of(new OtlpIndexer().index(signal, request)));

        assertThat(views).as(signal + " seed " + seed).isEqualTo(reference(signal, request));
      }
    }
  }

  @Test
  void batchesCutBetweenDataPointsShowOnlyTheirOwnPoints() throws Exception {
    for (int seed = 0; seed < RANDOM_REQUESTS; seed++) {
      byte[] request = RandomRequests.metrics(seed).toByteArray();
      OtlpIndex index = new OtlpIndexer().index(Signal.METRICS, request);
      Batch rest = Batch.of(index);
      int partUnits = 1 + seed % 4;
      List<String> pointsOfParts = new ArrayList<>();
      while (!rest.isEmpty()) {
        Batch part = new Batch(Signal.METRICS);
        rest.moveTo(part, partUnits);
        byte[] marshaled = OtlpMarshaler.toByteArray(part);

        assertThat(ViewText.metrics(part)).as("seed " + seed).isEqualTo(reference(part));
        assertThat(metricsWrittenByViews(part))
            .isEqualTo(allMetrics(ExportMetricsServiceRequest.parseFrom(marshaled)));
        pointsOfParts.addAll(ViewText.dataPoints(part));
      }
      assertThat(pointsOfParts)
          .as("the parts' points, in order, are the request's")
          .isEqualTo(ProtoText.dataPoints(ExportMetricsServiceRequest.parseFrom(request)));
    }
  }

  @Test
  void aMetricCutInThreeIsVisitedOncePerPart() throws Exception {
    byte[] request = OtlpTestData.metrics(new int[] {1}).toByteArray();
    OtlpIndex index = new OtlpIndexer().index(Signal.METRICS, request);
    Batch whole = Batch.of(index);
    int firstMetricPoints = index.dataPointCount(0);
    assertThat(firstMetricPoints).isGreaterThanOrEqualTo(3);
    Batch head = new Batch(Signal.METRICS);
    whole.moveTo(head, 1);
    Batch middle = new Batch(Signal.METRICS);
    whole.moveTo(middle, 1);

    List<Integer> counts = new ArrayList<>();
    List<Boolean> partial = new ArrayList<>();
    new BatchView()
        .forEachMetric(
            middle,
            (resource, scope, metric) -> {
              counts.add(metric.dataPointCount());
              partial.add(metric.isPartial());
            });

    assertThat(counts).containsExactly(1);
    assertThat(partial).containsExactly(true);
    assertThat(BatchView.itemCount(head)).isEqualTo(1);
    assertThat(BatchView.itemCount(whole)).isEqualTo(index.itemCount());
  }

  @Test
  void blockAndItemCountsAreThoseOfTheMarshaledBatch() throws Exception {
    for (Signal signal : Signal.values()) {
      Random random = new Random(signal.ordinal());
      RandomRequests.Headers shared =
          RandomRequests.headers(random, RandomRequests.Sizes.REPEATING, 3);
      for (int round = 0; round < 40; round++) {
        Batch batch = new Batch(signal);
        for (int r = 0; r < 3; r++) {
          batch.add(
              new OtlpIndexer()
                  .index(
                      signal,
                      RandomRequests.request(signal, random, RandomRequests.Sizes.REPEATING, shared)
                          .toByteArray()));
        }
        Batch part = new Batch(signal);
        batch.moveTo(part, batch.unitCount() / 2);
        for (Batch b : List.of(part, batch)) {
          byte[] marshaled = OtlpMarshaler.toByteArray(b);
          com.google.protobuf.Message parsed = RequestTree.parse(signal, marshaled);
          long[] expected = {
            RequestTree.resourceBlocks(parsed).size(),
            RequestTree.scopeBlockCount(parsed),
            RequestTree.itemCount(parsed)
          };

          assertThat(
                  new long[] {
                    BatchView.resourceBlockCount(b),
                    BatchView.scopeBlockCount(b),
                    BatchView.itemCount(b)
                  })
              .as(signal + " round " + round)
              .containsExactly(expected[0], expected[1], expected[2]);
          assertThat(render(b)).isEqualTo(reference(signal, marshaled));
        }
      }
    }
  }

  @Test
  void attributesOfEveryValueTypeIncludingNestedOnesReadInPlace() throws Exception {
    AnyValue nested =
        OtlpTestData.kvlist(
            OtlpTestData.attribute("deep", OtlpTestData.array(OtlpTestData.string("x"))),
            OtlpTestData.attribute("n", AnyValue.newBuilder().setIntValue(-1).build()));
    Span span =
        Span.newBuilder()
            .setTraceId(OtlpTestData.id(16, 1))
            .setSpanId(OtlpTestData.id(8, 2))
            .setName("GET /ünïcödé 😀")
            .addAttributes(OtlpTestData.attribute("s", OtlpTestData.string("v")))
            .addAttributes(
                OtlpTestData.attribute("b", AnyValue.newBuilder().setBoolValue(true).build()))
            .addAttributes(
                OtlpTestData.attribute(
                    "i", AnyValue.newBuilder().setIntValue(Long.MIN_VALUE).build()))
            .addAttributes(
                OtlpTestData.attribute("d", AnyValue.newBuilder().setDoubleValue(-0.5).build()))
            .addAttributes(
                OtlpTestData.attribute(
                    "x",
                    AnyValue.newBuilder()
                        .setBytesValue(ByteString.copyFrom(new byte[] {0, -1, 7}))
                        .build()))
            .addAttributes(
                OtlpTestData.attribute(
                    "a",
                    OtlpTestData.array(
                        OtlpTestData.string("e"), nested, AnyValue.getDefaultInstance())))
            .addAttributes(OtlpTestData.attribute("k", nested))
            .addAttributes(KeyValue.newBuilder().setKey("empty"))
            .addAttributes(OtlpTestData.attribute("s", OtlpTestData.string("second")))
            .build();
    ExportTraceServiceRequest request = traces(span);
    Batch batch = Batch.of(new OtlpIndexer().index(Signal.TRACES, request.toByteArray()));
    List<String> found = new ArrayList<>();
    List<String> types = new ArrayList<>();

    new BatchView()
        .forEachSpan(
            batch,
            (resource, scope, view) -> {
              AttributeCursor attributes = view.attributes(new AttributeCursor());
              while (attributes.next()) {
                types.add(attributes.key() + ":" + attributes.value().type());
              }
              assertThat(attributes.find("s")).isTrue();
              found.add(attributes.value().stringValue().asString());
              assertThat(attributes.find("k".getBytes())).isTrue();
              AttributeCursor inner = attributes.value().kvlist(new AttributeCursor());
              assertThat(inner.find("deep")).isTrue();
              ArrayCursor array = inner.value().array(new ArrayCursor());
              assertThat(array.next()).isTrue();
              found.add(array.value().stringValue().asString());
              assertThat(attributes.find("missing")).isFalse();
              assertThat(view.nameEquals("GET /ünïcödé 😀")).isTrue();
              assertThat(view.name().startsWith("GET /ünï")).isTrue();
              assertThat(view.name().startsWith("GET /üni")).isFalse();
              assertThat(view.name().contentEquals("GET /ünïcödé \uD83D")).isFalse();
              assertThat(view.name().length()).isEqualTo("GET /ünïcödé 😀".getBytes().length);
              byte[] copy = new byte[view.name().length()];
              view.name().copyTo(copy, 0);
              assertThat(new String(copy, java.nio.charset.StandardCharsets.UTF_8))
                  .isEqualTo(view.name().asString());
            });

    assertThat(types)
        .containsExactly(
            "s:STRING",
            "b:BOOL",
            "i:INT",
            "d:DOUBLE",
            "x:BYTES",
            "a:ARRAY",
            "k:KVLIST",
            "empty:EMPTY",
            "s:STRING");
    assertThat(found).as("find takes the first match").containsExactly("v", "x");
    assertThat(ViewText.spans(batch)).isEqualTo(ProtoText.spans(request));
  }

  @Test
  void idsAsLongsAreTheBigEndianHalvesOfTheBytes() throws Exception {
    byte[] traceId = new byte[16];
    for (int i = 0; i < 16; i++) {
      traceId[i] = (byte) (0xF0 + i);
    }
    Span span =
        Span.newBuilder()
            .setTraceId(ByteString.copyFrom(traceId))
            .setSpanId(ByteString.copyFrom(traceId, 8, 8))
            .build();
    Batch batch = Batch.of(new OtlpIndexer().index(Signal.TRACES, traces(span).toByteArray()));
    long[] read = new long[4];

    new BatchView()
        .forEachSpan(
            batch,
            (resource, scope, view) -> {
              read[0] = view.traceIdHigh();
              read[1] = view.traceIdLow();
              read[2] = view.spanIdLong();
              read[3] = view.hasParentSpanId() ? 1 : 0;
            });

    assertThat(read)
        .containsExactly(0xF0F1F2F3F4F5F6F7L, 0xF8F9FAFBFCFDFEFFL, 0xF8F9FAFBFCFDFEFFL, 0);
  }

  @Test
  void aBatchViewLetsGoOfTheRequestAfterTheVisit() throws Exception {
    BatchView views = new BatchView();
    java.lang.ref.WeakReference<byte[]> request = visitAndForget(views);

    for (int i = 0; i < 20 && request.get() != null; i++) {
      System.gc();
      Thread.sleep(10);
    }

    assertThat(request.get()).as("the request bytes, with only the BatchView alive").isNull();
    assertThat(views).isNotNull();
  }

  private static java.lang.ref.WeakReference<byte[]> visitAndForget(BatchView views)
      throws Exception {
    byte[] bytes = OtlpTestData.realisticTraces(1, 3).toByteArray();
    Batch batch = Batch.of(new OtlpIndexer().index(Signal.TRACES, bytes));
    int[] names = new int[1];
    views.forEachSpan(batch, (resource, scope, span) -> names[0] += span.name().length());
    assertThat(names[0]).isPositive();
    batch.clear();
    return new java.lang.ref.WeakReference<>(bytes);
  }

  @Test
  void visitingABatchOfAnotherSignalIsAProgrammingError() {
    Batch logs = new Batch(Signal.LOGS);

    assertThatThrownBy(() -> new BatchView().forEachSpan(logs, (r, s, span) -> {}))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static ExportTraceServiceRequest traces(Span span) {
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder()
                .setResource(Resource.getDefaultInstance())
                .addScopeSpans(ScopeSpans.newBuilder().addSpans(span)))
        .build();
  }

  private static List<String> render(Batch batch) {
    switch (batch.signal()) {
      case TRACES:
        return ViewText.spans(batch);
      case LOGS:
        return ViewText.logRecords(batch);
      default:
        List<String> lines = new ArrayList<>(ViewText.metrics(batch));
        lines.addAll(ViewText.dataPoints(batch));
        return lines;
    }
  }

  private static List<String> reference(Signal signal, byte[] request) throws Exception {
    switch (signal) {
      case TRACES:
        return ProtoText.spans(ExportTraceServiceRequest.parseFrom(request));
      case LOGS:
        return ProtoText.logRecords(ExportLogsServiceRequest.parseFrom(request));
      default:
        ExportMetricsServiceRequest metrics = ExportMetricsServiceRequest.parseFrom(request);
        List<String> lines = new ArrayList<>(ProtoText.metrics(metrics));
        lines.addAll(ProtoText.dataPoints(metrics));
        return lines;
    }
  }

  private static List<String> reference(Batch metricsBatch) throws Exception {
    return ProtoText.metrics(
        ExportMetricsServiceRequest.parseFrom(OtlpMarshaler.toByteArray(metricsBatch)));
  }

  private static List<Metric> metricsWrittenByViews(Batch batch) {
    List<Metric> metrics = new ArrayList<>();
    dev.sluice.pdata.internal.ProtoWriter out = new dev.sluice.pdata.internal.ProtoWriter();
    new BatchView()
        .forEachMetric(
            batch,
            (resource, scope, metric) -> {
              out.reset();
              metric.writeTo(out);
              try {
                metrics.add(Metric.parseFrom(out.toByteArray()));
              } catch (com.google.protobuf.InvalidProtocolBufferException e) {
                throw new AssertionError(e);
              }
            });
    return metrics;
  }

  private static List<Metric> allMetrics(ExportMetricsServiceRequest request) {
    List<Metric> metrics = new ArrayList<>();
    request
        .getResourceMetricsList()
        .forEach(r -> r.getScopeMetricsList().forEach(s -> metrics.addAll(s.getMetricsList())));
    return metrics;
  }
}
