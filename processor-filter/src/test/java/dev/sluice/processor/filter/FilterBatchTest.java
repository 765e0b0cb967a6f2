package dev.sluice.processor.filter;

import static dev.sluice.processor.filter.Otlp.gauge;
import static dev.sluice.processor.filter.Otlp.point;
import static dev.sluice.processor.filter.Otlp.resource;
import static dev.sluice.processor.filter.Otlp.scope;
import static dev.sluice.processor.filter.Otlp.span;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchFunction;
import dev.sluice.component.ComponentFactory;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.MarshalContext;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** The filter over batches as pipelines make them: several requests, metrics cut by a split. */
class FilterBatchTest {
  @Test
  void isFoundAsTheFilterProcessorType() {
    // As the configuration loader finds components.
    assertThat(
            ServiceLoader.load(ComponentFactory.class).stream()
                .map(ServiceLoader.Provider::get)
                .filter(f -> f.kind() == ComponentKind.PROCESSOR)
                .map(ComponentFactory::type))
        .contains("filter");
  }

  @Test
  void filtersABatchOfSeveralRequests() throws Exception {
    String yaml = "traces:\n  span:\n    - attributes[\"http.route\"] == \"/health\"\n";
    FilterConfig config = Otlp.config(yaml);
    BatchFunction<FilterConfig> filter =
        new FilterProcessorFactory()
            .createFunction(Otlp.settings(new MetricRegistry()), config, Signal.TRACES);
    Batch batch = Batch.of(new OtlpIndexer().index(Signal.TRACES, traces("a").toByteArray()));
    batch.add(new OtlpIndexer().index(Signal.TRACES, traces("b").toByteArray()));
    try {
      assertThat(filter.apply(batch, config)).isEqualTo(Admission.ACCEPTED);
      assertThat(batch.unitCount()).isEqualTo(4);
      List<String> kept = new ArrayList<>();
      for (ResourceSpans r :
          ExportTraceServiceRequest.parseFrom(write(batch)).getResourceSpansList()) {
        for (ScopeSpans s : r.getScopeSpansList()) {
          s.getSpansList()
              .forEach(
                  span ->
                      kept.add(
                          r.getResource().getAttributes(0).getValue().getStringValue()
                              + " "
                              + span.getName()));
        }
      }
      assertThat(kept)
          .containsExactly("a GET /users", "a POST /orders", "b GET /users", "b POST /orders");
    } finally {
      batch.clear();
    }
  }

  @Test
  void filtersTheDataPointsOfAMetricCutBetweenTwoBatches() throws Exception {
    String yaml = "metrics:\n  datapoint:\n    - attributes[\"host\"] == \"b\"\n";
    FilterConfig config = Otlp.config(yaml);
    BatchFunction<FilterConfig> filter =
        new FilterProcessorFactory()
            .createFunction(Otlp.settings(new MetricRegistry()), config, Signal.METRICS);
    ExportMetricsServiceRequest request =
        ExportMetricsServiceRequest.newBuilder()
            .addResourceMetrics(
                ResourceMetrics.newBuilder()
                    .setResource(resource("host"))
                    .addScopeMetrics(
                        ScopeMetrics.newBuilder()
                            .setScope(scope("host"))
                            .addMetrics(
                                gauge(
                                    "cpu",
                                    point("a", 1),
                                    point("b", 2),
                                    point("b", 3),
                                    point("c", 4)))
                            .addMetrics(gauge("memory", point("b", 5)))))
            .build();
    Batch whole = Batch.of(new OtlpIndexer().index(Signal.METRICS, request.toByteArray()));
    Batch front = new Batch(Signal.METRICS);
    // The cut falls inside "cpu": two of its points go to the front batch, two stay.
    whole.moveTo(front, 2);
    try {
      filter.apply(front, config);
      filter.apply(whole, config);
      assertThat(metrics(front)).containsExactly("cpu:a");
      // The back part of "cpu" keeps "c"; "memory" is left without points and is dropped.
      assertThat(metrics(whole)).containsExactly("cpu:c");
    } finally {
      front.clear();
      whole.clear();
    }
  }

  private static List<String> metrics(Batch batch) throws Exception {
    List<String> out = new ArrayList<>();
    for (ResourceMetrics r :
        ExportMetricsServiceRequest.parseFrom(write(batch)).getResourceMetricsList()) {
      for (ScopeMetrics s : r.getScopeMetricsList()) {
        for (Metric m : s.getMetricsList()) {
          m.getGauge()
              .getDataPointsList()
              .forEach(
                  p -> out.add(m.getName() + ":" + p.getAttributes(0).getValue().getStringValue()));
        }
      }
    }
    return out;
  }

  private static byte[] write(Batch batch) {
    MarshalContext context = new MarshalContext();
    OtlpMarshaler.marshal(batch, context);
    return context.toByteArray();
  }

  private static ExportTraceServiceRequest traces(String service) {
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder()
                .setResource(resource(service))
                .addScopeSpans(
                    ScopeSpans.newBuilder()
                        .setScope(scope("tomcat"))
                        .addSpans(span("GET /health", "/health"))
                        .addSpans(span("GET /users", "/users"))
                        .addSpans(span("POST /orders", "/orders"))))
        .build();
  }
}
