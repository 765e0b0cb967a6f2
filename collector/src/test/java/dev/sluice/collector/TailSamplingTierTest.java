package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ComponentId;
import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.receiver.otlp.OtlpReceiver;
import dev.sluice.testkit.Await;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.exporter.otlp.trace.OtlpGrpcSpanExporter;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Tail sampling behind a trace-ID load-balancing tier, with real parts on loopback: the
 * OpenTelemetry Java SDK of three services ({@code frontend} calls {@code checkout}, which calls
 * {@code payments}; each service has its own SDK and exports on its own) sends traces to an agent
 * Sluice whose {@code loadbalancing} exporter routes by trace ID to two Sluices with {@code
 * tail_sampling} (keep errors, and a share of the rest), each exporting to its own sink. Every
 * trace's spans meet at one sampler, so every kept trace arrives whole at one sink, every trace
 * with an error is kept, and the share of the others kept is within its statistical bound.
 */
class TailSamplingTierTest {
  private static final int TRACES = 400;
  private static final int ERROR_EVERY = 8;
  private static final double PERCENT = 25;
  private static final String[] SERVICES = {"frontend", "checkout", "payments"};
  private static final long SHUTDOWN_NANOS = TimeUnit.SECONDS.toNanos(10);

  private static String samplerConfig(String sink) {
    return String.join(
        "\n",
        "receivers:",
        "  otlp:",
        "    protocols:",
        "      grpc:",
        "        endpoint: 127.0.0.1:0",
        "processors:",
        "  tail_sampling:",
        // Each service's SDK exports on its own thread: a trace's three spans may arrive a while
        // apart on a slow machine, and all must be in before the decision.
        "    decision_wait: 5s",
        "    policies:",
        "      - {name: errors, type: status_code, status_code: {status_codes: [ERROR]}}",
        "      - name: some",
        "        type: probabilistic",
        "        probabilistic: {sampling_percentage: " + PERCENT + "}",
        "exporters:",
        "  otlp:",
        "    endpoint: " + sink,
        "    tls:",
        "      insecure: true",
        "service:",
        "  telemetry:",
        "    metrics:",
        "      level: none",
        "  pipelines:",
        "    traces:",
        "      receivers: [otlp]",
        "      processors: [tail_sampling]",
        "      exporters: [otlp]",
        "");
  }

  private static String agentConfig(List<String> backends) {
    return String.join(
        "\n",
        "receivers:",
        "  otlp:",
        "    protocols:",
        "      grpc:",
        "        endpoint: 127.0.0.1:0",
        "exporters:",
        "  loadbalancing:",
        "    routing_key: traceID",
        "    protocol:",
        "      otlp:",
        "        tls:",
        "          insecure: true",
        "    resolver:",
        "      static:",
        "        hostnames: [" + String.join(", ", backends) + "]",
        "service:",
        "  telemetry:",
        "    metrics:",
        "      level: none",
        "  pipelines:",
        "    traces:",
        "      receivers: [otlp]",
        "      exporters: [loadbalancing]",
        "");
  }

  @Test
  void keptTracesArriveWholeErrorsAreAllKeptAndTheShareIsWithinItsBound() throws Exception {
    List<OtlpSink> sinks = List.of(OtlpSink.start(), OtlpSink.start());
    List<Collector> samplers = new ArrayList<>();
    Collector agent = null;
    try {
      List<String> backends = new ArrayList<>();
      for (OtlpSink sink : sinks) {
        Collector sampler =
            TestCollectors.start(samplerConfig(sink.endpoint()), Collector.Options.defaults());
        samplers.add(sampler);
        backends.add("127.0.0.1:" + grpcPort(sampler));
      }
      agent = TestCollectors.start(agentConfig(backends), Collector.Options.defaults());

      Set<String> errorTraces = send(grpcPort(agent));

      // Every trace is decided once at one sampler: wait for the decisions, then for the sinks.
      Await.until(
          "a decision on every trace", Duration.ofSeconds(60), () -> decisions(samplers) >= TRACES);
      long sampledSpans = 3 * sampledTraces(samplers);
      Await.until(
          "the sampled spans at the sinks",
          Duration.ofSeconds(60),
          () -> sinks.stream().mapToLong(OtlpSink::spans).sum() >= sampledSpans);

      Map<String, Set<String>> servicesByTrace = new HashMap<>();
      Map<String, Integer> sinkByTrace = new HashMap<>();
      for (int s = 0; s < sinks.size(); s++) {
        for (ExportTraceServiceRequest request : sinks.get(s).traces()) {
          for (ResourceSpans resource : request.getResourceSpansList()) {
            String service =
                resource.getResource().getAttributesList().stream()
                    .filter(a -> a.getKey().equals("service.name"))
                    .findFirst()
                    .orElseThrow()
                    .getValue()
                    .getStringValue();
            for (ScopeSpans scope : resource.getScopeSpansList()) {
              for (io.opentelemetry.proto.trace.v1.Span span : scope.getSpansList()) {
                String trace = HexFormat.of().formatHex(span.getTraceId().toByteArray());
                assertThat(
                        servicesByTrace.computeIfAbsent(trace, t -> new HashSet<>()).add(service))
                    .as("one span of %s per service", trace)
                    .isTrue();
                Integer before = sinkByTrace.put(trace, s);
                assertThat(before == null || before == s)
                    .as("trace %s at one sink", trace)
                    .isTrue();
              }
            }
          }
        }
      }
      assertThat(servicesByTrace.values()).allMatch(services -> services.size() == SERVICES.length);
      assertThat(servicesByTrace.keySet()).containsAll(errorTraces);
      long others = TRACES - errorTraces.size();
      long otherKept = servicesByTrace.size() - errorTraces.size();
      double mean = others * PERCENT / 100;
      double deviation = Math.sqrt(others * (PERCENT / 100) * (1 - PERCENT / 100));
      assertThat((double) otherKept).isBetween(mean - 5 * deviation, mean + 5 * deviation);
    } finally {
      if (agent != null) {
        agent.shutdown(SHUTDOWN_NANOS);
      }
      for (Collector sampler : samplers) {
        sampler.shutdown(SHUTDOWN_NANOS);
      }
      for (OtlpSink sink : sinks) {
        sink.close();
      }
    }
  }

  /**
   * Sends {@link #TRACES} traces of one span per service, each service through an SDK of its own;
   * returns the IDs of the traces whose last span has the status ERROR.
   */
  private static Set<String> send(int port) throws Exception {
    List<SdkTracerProvider> providers = new ArrayList<>();
    List<Tracer> tracers = new ArrayList<>();
    for (String service : SERVICES) {
      SdkTracerProvider provider =
          SdkTracerProvider.builder()
              .setResource(
                  Resource.create(Attributes.of(AttributeKey.stringKey("service.name"), service)))
              .addSpanProcessor(
                  BatchSpanProcessor.builder(
                          OtlpGrpcSpanExporter.builder()
                              .setEndpoint("http://127.0.0.1:" + port)
                              .build())
                      .setMaxExportBatchSize(64)
                      .build())
              .build();
      providers.add(provider);
      tracers.add(provider.get("shop." + service));
    }
    Set<String> errors = new HashSet<>();
    for (int t = 0; t < TRACES; t++) {
      Span frontend = tracers.get(0).spanBuilder("GET /checkout").startSpan();
      Span checkout =
          tracers
              .get(1)
              .spanBuilder("POST /orders")
              .setParent(Context.root().with(frontend))
              .startSpan();
      Span payments =
          tracers.get(2).spanBuilder("charge").setParent(Context.root().with(checkout)).startSpan();
      if (t % ERROR_EVERY == 0) {
        payments.setStatus(StatusCode.ERROR, "card declined");
        errors.add(payments.getSpanContext().getTraceId());
      }
      payments.end();
      checkout.end();
      frontend.end();
    }
    for (SdkTracerProvider provider : providers) {
      provider.forceFlush().join(30, TimeUnit.SECONDS);
      provider.shutdown().join(30, TimeUnit.SECONDS);
    }
    return errors;
  }

  private static int grpcPort(Collector collector) {
    return ((OtlpReceiver) collector.receiver(ComponentId.parse("otlp"))).grpcPort();
  }

  private static final Pattern GLOBAL =
      Pattern.compile(
          "otelcol_processor_tail_sampling_global_count_traces_sampled_total\\{[^}]*sampled=\"(true|false)\"[^}]*\\} (\\d+)");

  private static long decisions(List<Collector> samplers) {
    return count(samplers, null);
  }

  private static long sampledTraces(List<Collector> samplers) {
    return count(samplers, "true");
  }

  private static long count(List<Collector> samplers, String sampled) {
    long total = 0;
    for (Collector sampler : samplers) {
      Matcher m = GLOBAL.matcher(TestCollectors.prometheus(sampler));
      while (m.find()) {
        if (sampled == null || sampled.equals(m.group(1))) {
          total += Long.parseLong(m.group(2));
        }
      }
    }
    return total;
  }
}
