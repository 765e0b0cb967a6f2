package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchView;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.ValueText;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link ValueText#goString}: every value type read through a view, as Go's AsString writes it. */
class GoStringOfViewsTest {
  private static KeyValue kv(String key, AnyValue value) {
    return KeyValue.newBuilder().setKey(key).setValue(value).build();
  }

  @Test
  void everyTypeReadsAsGoWritesIt() throws Exception {
    AnyValue map =
        AnyValue.newBuilder()
            .setKvlistValue(
                KeyValueList.newBuilder()
                    .addValues(kv("b", AnyValue.newBuilder().setIntValue(2).build()))
                    .addValues(kv("a", AnyValue.newBuilder().setStringValue("<x>").build())))
            .build();
    List<KeyValue> attributes =
        List.of(
            kv("string", AnyValue.newBuilder().setStringValue("héllo").build()),
            kv("bool", AnyValue.newBuilder().setBoolValue(true).build()),
            kv("int", AnyValue.newBuilder().setIntValue(-42).build()),
            kv("double", AnyValue.newBuilder().setDoubleValue(1.5e-7).build()),
            kv(
                "bytes",
                AnyValue.newBuilder()
                    .setBytesValue(ByteString.copyFrom(new byte[] {1, 2, (byte) 0xff}))
                    .build()),
            kv(
                "array",
                AnyValue.newBuilder()
                    .setArrayValue(
                        ArrayValue.newBuilder()
                            .addValues(AnyValue.newBuilder().setStringValue("x"))
                            .addValues(AnyValue.newBuilder().setDoubleValue(0.5)))
                    .build()),
            kv("map", map),
            kv("empty", AnyValue.getDefaultInstance()));
    ExportMetricsServiceRequest request =
        ExportMetricsServiceRequest.newBuilder()
            .addResourceMetrics(
                ResourceMetrics.newBuilder()
                    .addScopeMetrics(
                        ScopeMetrics.newBuilder()
                            .addMetrics(
                                Metric.newBuilder()
                                    .setName("m")
                                    .setGauge(
                                        Gauge.newBuilder()
                                            .addDataPoints(
                                                NumberDataPoint.newBuilder()
                                                    .setAsInt(1)
                                                    .addAllAttributes(attributes))))))
            .build();
    Batch batch = Batch.of(new OtlpIndexer().index(Signal.METRICS, request.toByteArray()));
    AttributeCursor cursor = new AttributeCursor();
    List<String> texts = new ArrayList<>();

    new BatchView()
        .forEachDataPoint(
            batch,
            (resource, scope, metric, point) -> {
              point.attributes(cursor);
              while (cursor.next()) {
                texts.add(cursor.key().asString() + "=" + ValueText.goString(cursor.value()));
              }
            });
    batch.clear();

    assertThat(texts)
        .containsExactly(
            "string=héllo",
            "bool=true",
            "int=-42",
            "double=1.5e-7",
            "bytes=AQL/",
            "array=[\"x\",0.5]",
            "map={\"a\":\"\\u003cx\\u003e\",\"b\":2}",
            "empty=");
  }
}
