package dev.sluice.processor.resource;

import static dev.sluice.testkit.AttributeRequests.gauge;
import static dev.sluice.testkit.AttributeRequests.integer;
import static dev.sluice.testkit.AttributeRequests.kv;
import static dev.sluice.testkit.AttributeRequests.log;
import static dev.sluice.testkit.AttributeRequests.logs;
import static dev.sluice.testkit.AttributeRequests.metrics;
import static dev.sluice.testkit.AttributeRequests.resource;
import static dev.sluice.testkit.AttributeRequests.sha256;
import static dev.sluice.testkit.AttributeRequests.span;
import static dev.sluice.testkit.AttributeRequests.str;
import static dev.sluice.testkit.AttributeRequests.traces;
import static dev.sluice.testkit.AttributeRequests.withUnknownField;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Message;
import dev.sluice.component.Admission;
import dev.sluice.component.BatchConsumer;
import dev.sluice.component.BatchFunction;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Processor;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.config.ConfigBinder;
import dev.sluice.config.ConfigException;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The resource processor's conformance table: a configuration, a request built with protobuf-java,
 * and the request expected out, parsed back with protobuf-java.
 */
class ResourceConformanceTest {
  private static final ComponentSettings SETTINGS =
      new ComponentSettings(
          ComponentId.parse("resource"), ComponentKind.PROCESSOR, new MetricRegistry());

  record Case(String name, String yaml, Message input, Message expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static final Resource SHOP =
      resource(kv("service.name", str("shop")), kv("pid", integer(42)));

  private static String attributes(String... lines) {
    return "attributes:\n" + String.join("\n", lines) + "\n";
  }

  /** One resource with two scope blocks of one span each. */
  private static ExportTraceServiceRequest twoScopes(Resource resource) {
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder()
                .setResource(resource)
                .addScopeSpans(
                    ScopeSpans.newBuilder()
                        .setScope(InstrumentationScope.newBuilder().setName("a"))
                        .addSpans(span("s1", List.of())))
                .addScopeSpans(
                    ScopeSpans.newBuilder()
                        .setScope(InstrumentationScope.newBuilder().setName("b"))
                        .addSpans(span("s2", List.of()))))
        .build();
  }

  /** Two resource blocks, each with one span. */
  private static ExportTraceServiceRequest twoResources(Resource first, Resource second) {
    ExportTraceServiceRequest a = traces(first, span("s1", List.of()));
    ExportTraceServiceRequest b = traces(second, span("s2", List.of()));
    return a.toBuilder().addResourceSpans(b.getResourceSpans(0)).build();
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case(
            "upsert, insert on an existing key and delete of a missing key",
            attributes(
                "  - {key: env, value: prod, action: upsert}",
                "  - {key: service.name, value: other, action: insert}",
                "  - {key: missing, action: delete}"),
            traces(SHOP, span("s", List.of())),
            traces(
                resource(
                    kv("service.name", str("shop")),
                    kv("pid", integer(42)),
                    kv("env", str("prod"))),
                span("s", List.of()))),
        new Case(
            "hash of an int resource attribute",
            attributes("  - {key: pid, action: hash}"),
            traces(SHOP, span("s", List.of())),
            traces(
                resource(kv("service.name", str("shop")), kv("pid", str(sha256(42L)))),
                span("s", List.of()))),
        new Case(
            "a change to one resource shared by two scopes is made once and seen by both",
            attributes("  - {key: pid, action: hash}", "  - {key: n, value: 1, action: insert}"),
            twoScopes(SHOP),
            twoScopes(
                resource(
                    kv("service.name", str("shop")),
                    kv("pid", str(sha256(42L))),
                    kv("n", integer(1))))),
        new Case(
            "two resources of one request change each on its own",
            attributes("  - {key: service.name, action: hash}"),
            twoResources(SHOP, resource(kv("service.name", str("cart")))),
            twoResources(
                resource(kv("service.name", str(sha256("shop"))), kv("pid", integer(42))),
                resource(kv("service.name", str(sha256("cart")))))),
        new Case(
            "unknown fields of the resource and of its block are kept",
            attributes("  - {key: env, value: prod, action: upsert}"),
            ExportTraceServiceRequest.newBuilder()
                .addResourceSpans(
                    withUnknownField(
                        traces(withUnknownField(SHOP), span("s", List.of())).getResourceSpans(0)))
                .build(),
            ExportTraceServiceRequest.newBuilder()
                .addResourceSpans(
                    withUnknownField(
                        traces(
                                withUnknownField(
                                    SHOP.toBuilder().addAttributes(kv("env", str("prod"))).build()),
                                span("s", List.of()))
                            .getResourceSpans(0)))
                .build()),
        new Case(
            "log records' resources",
            attributes("  - {key: service.name, value: renamed, action: update}"),
            logs(SHOP, log("a", List.of()), log("b", List.of())),
            logs(
                resource(kv("service.name", str("renamed")), kv("pid", integer(42))),
                log("a", List.of()),
                log("b", List.of()))),
        new Case(
            "metrics' resources",
            attributes("  - {key: pid, action: convert, converted_type: string}"),
            metrics(SHOP, gauge("g", List.of(), List.of())),
            metrics(
                resource(kv("service.name", str("shop")), kv("pid", str("42"))),
                gauge("g", List.of(), List.of()))),
        new Case(
            "the resource of metrics without data points",
            attributes("  - {key: env, value: prod, action: insert}"),
            metrics(
                SHOP, io.opentelemetry.proto.metrics.v1.Metric.newBuilder().setName("m").build()),
            metrics(
                SHOP.toBuilder().addAttributes(kv("env", str("prod"))).build(),
                io.opentelemetry.proto.metrics.v1.Metric.newBuilder().setName("m").build())));
  }

  private static ResourceConfig bind(String yaml) throws ConfigException {
    return new ConfigBinder()
        .bind(yaml, "resource.yaml", ResourceConfig.class, ResourceConfig.DEFAULT);
  }

  private static Signal signalOf(Message request) {
    if (request instanceof ExportTraceServiceRequest) {
      return Signal.TRACES;
    }
    return request instanceof ExportLogsServiceRequest ? Signal.LOGS : Signal.METRICS;
  }

  private static Message parse(Signal signal, byte[] bytes) throws Exception {
    return switch (signal) {
      case TRACES -> ExportTraceServiceRequest.parseFrom(bytes);
      case LOGS -> ExportLogsServiceRequest.parseFrom(bytes);
      case METRICS -> ExportMetricsServiceRequest.parseFrom(bytes);
    };
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void producesWhatTheGoCollectorProduces(Case c) throws Exception {
    ResourceConfig config = bind(c.yaml());
    Signal signal = signalOf(c.input());
    BatchFunction<ResourceConfig> function =
        new ResourceProcessorFactory().createFunction(SETTINGS, config, signal);
    Batch batch = Batch.of(new OtlpIndexer().index(signal, c.input().toByteArray()));

    assertThat(function.apply(batch, config)).isEqualTo(Admission.ACCEPTED);

    byte[] output = OtlpMarshaler.toByteArray(batch);
    batch.clear();
    assertThat(parse(signal, output)).isEqualTo(c.expected());
  }

  @Test
  void aResourceSplitAcrossTwoSlicesOfOneBatchIsChangedOnce() throws Exception {
    ResourceConfig config = bind(attributes("  - {key: pid, action: hash}"));
    byte[] request = traces(SHOP, span("a", List.of()), span("b", List.of())).toByteArray();
    Batch batch = Batch.of(new OtlpIndexer().index(Signal.TRACES, request));
    Batch split = new Batch(Signal.TRACES);
    batch.moveTo(split, 1);
    split.addAll(batch);

    new ResourceProcessorFactory()
        .createFunction(SETTINGS, config, Signal.TRACES)
        .apply(split, config);

    byte[] output = OtlpMarshaler.toByteArray(split);
    split.clear();
    batch.clear();
    assertThat(ExportTraceServiceRequest.parseFrom(output))
        .isEqualTo(
            traces(
                resource(kv("service.name", str("shop")), kv("pid", str(sha256(42L)))),
                span("a", List.of()),
                span("b", List.of())));
  }

  @Test
  void aBatchRefusedAndOfferedAgainIsHashedOnce() throws Exception {
    List<byte[]> taken = new ArrayList<>();
    int[] refusals = {1};
    BatchConsumer next =
        batch -> {
          if (refusals[0]-- > 0) {
            return Admission.FULL;
          }
          taken.add(OtlpMarshaler.toByteArray(batch));
          batch.clear();
          return Admission.ACCEPTED;
        };
    Processor stage =
        new ResourceProcessorFactory()
            .create(
                SETTINGS, bind(attributes("  - {key: pid, action: hash}")), Signal.TRACES, next);
    Batch batch =
        Batch.of(
            new OtlpIndexer()
                .index(Signal.TRACES, traces(SHOP, span("s", List.of())).toByteArray()));

    assertThat(stage.consume(batch)).isEqualTo(Admission.FULL);
    assertThat(stage.consume(batch)).isEqualTo(Admission.ACCEPTED);

    assertThat(ExportTraceServiceRequest.parseFrom(taken.get(0)))
        .isEqualTo(
            traces(
                resource(kv("service.name", str("shop")), kv("pid", str(sha256(42L)))),
                span("s", List.of())));
  }

  @Test
  void refusesAConfigurationWithoutAttributes() {
    assertThatThrownBy(() -> bind("attributes: []\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("attributes: missing required field \"attributes\"");
  }

  @Test
  void reportsAWrongActionAtItsIndex() {
    assertThatThrownBy(() -> bind(attributes("  - {key: a, action: extract}")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(
            "attributes[0].pattern: missing required field \"pattern\" for action \"extract\"");
  }
}
