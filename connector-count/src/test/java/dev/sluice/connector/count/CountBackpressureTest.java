package dev.sluice.connector.count;

import static dev.sluice.connector.count.Otlp.batch;
import static dev.sluice.connector.count.Otlp.counts;
import static dev.sluice.connector.count.Otlp.event;
import static dev.sluice.connector.count.Otlp.kv;
import static dev.sluice.connector.count.Otlp.metric;
import static dev.sluice.connector.count.Otlp.resource;
import static dev.sluice.connector.count.Otlp.scope;
import static dev.sluice.connector.count.Otlp.span;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import dev.sluice.component.Admission;
import dev.sluice.component.Connector;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpMarshaler;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The counts of a batch go out with it or not at all: when the metrics pipelines refuse them, the
 * batch stays the caller's unchanged and nothing of it is remembered, so the sender's retry of the
 * same batch is counted once.
 */
class CountBackpressureTest {
  private final Otlp.Fixture fixture = new Otlp.Fixture();

  private static Batch spans() throws Exception {
    return batch(
        Signal.TRACES,
        ExportTraceServiceRequest.newBuilder()
            .addResourceSpans(
                ResourceSpans.newBuilder()
                    .setResource(resource(kv("service.name", "shop")))
                    .addScopeSpans(
                        ScopeSpans.newBuilder()
                            .setScope(scope("lib"))
                            .addSpans(span("a", kv("env", "prod")))
                            .addSpans(span("b", kv("env", "dev")))
                            .addSpans(
                                span("c", kv("env", "prod")).toBuilder()
                                    .addEvents(event("e"))
                                    .build())))
            .build());
  }

  @ParameterizedTest
  @EnumSource(
      value = Admission.class,
      names = {"FULL", "CLOSED", "FAILED"})
  void aRefusalLeavesTheBatchUnchangedAndTheRetryIsCountedOnce(Admission refusal) throws Exception {
    Connector connector =
        fixture.connector(
            "spans:\n  by.env:\n    attributes: [{key: env}]\n  all: {}\n", Signal.TRACES);
    Batch batch = spans();
    byte[] before = OtlpMarshaler.toByteArray(batch);
    long units = batch.unitCount();
    try {
      fixture.output.answer(refusal);
      assertThat(connector.consume(batch)).isEqualTo(refusal);
      assertThat(connector.consume(batch)).isEqualTo(refusal);

      assertThat(fixture.output.refused()).isEqualTo(2);
      assertThat(fixture.output.accepted()).isEmpty();
      assertThat(batch.unitCount()).isEqualTo(units);
      assertThat(OtlpMarshaler.toByteArray(batch)).isEqualTo(before);

      fixture.output.answer(Admission.ACCEPTED);
      assertThat(connector.consume(batch)).isEqualTo(Admission.ACCEPTED);
    } finally {
      batch.clear();
    }

    ExportMetricsServiceRequest out = fixture.output.only();
    assertThat(counts(metric(out, "service.name", "shop", "by.env")))
        .containsExactly(entry("env=prod", 2L), entry("env=dev", 1L));
    assertThat(counts(metric(out, "service.name", "shop", "all"))).containsExactly(entry("", 3L));
    assertThat(counts(metric(out, "service.name", "shop", "trace.span.event.count")))
        .containsExactly(entry("", 1L));
  }
}
