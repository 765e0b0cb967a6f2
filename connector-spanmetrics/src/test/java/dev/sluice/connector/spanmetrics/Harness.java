package dev.sluice.connector.spanmetrics;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.sluice.component.Admission;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.ConnectorOutput;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.config.ConfigException;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.testkit.ManualScheduler;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A {@code spanmetrics} connector configured from YAML, on a manual clock, feeding an output that
 * records (and parses with protobuf-java) each request it is handed and answers as told; and the
 * protobuf-java spans the tests send it.
 */
final class Harness {
  /** Unix time when the harness is made: the clock's zero, in timestamps. */
  static final long T0 = 1_767_225_600_000_000_000L;

  static final String INSTANCE = "6f1b7c2e-instance";

  final ManualScheduler scheduler = new ManualScheduler();
  final Output output = new Output();
  final SpanMetricsConfig config;
  final SpanMetricsConnector connector;
  private final long startNanos;

  Harness(String yaml) {
    try {
      config = SpanMetricsConfigTest.config(yaml);
    } catch (ConfigException e) {
      throw new AssertionError(e);
    }
    startNanos = scheduler.nanoTime();
    connector =
        new SpanMetricsConnector(
            new ComponentSettings(
                ComponentId.parse("spanmetrics"),
                ComponentKind.CONNECTOR,
                new MetricRegistry(),
                scheduler),
            config,
            output,
            INSTANCE,
            T0 - startNanos,
            42);
    connector.start();
  }

  /** Unix nanoseconds now on the harness's clock. */
  long unixNow() {
    return T0 + (scheduler.nanoTime() - startNanos);
  }

  /** Offers the request's spans; a refused batch is cleared here, as its sender would. */
  Admission send(ExportTraceServiceRequest request) {
    OtlpIndex index;
    try {
      index = new OtlpIndexer().index(Signal.TRACES, request.toByteArray());
    } catch (MalformedOtlpException e) {
      throw new AssertionError(e);
    }
    Batch batch = Batch.of(index);
    Admission admission = connector.consume(batch);
    if (admission != Admission.ACCEPTED) {
      batch.clear();
    }
    return admission;
  }

  /**
   * Moves the clock to the next flush, which runs; returns what it handed on, if anything. The
   * clock then reads the flush's time.
   */
  Optional<ExportMetricsServiceRequest> tick() {
    int before = output.requests.size();
    scheduler.advance(scheduler.pendingDelaysNanos().get(0));
    return output.requests.size() > before
        ? Optional.of(output.requests.get(output.requests.size() - 1))
        : Optional.empty();
  }

  /** {@link #tick()}, which must hand on a request. */
  ExportMetricsServiceRequest flush() {
    return tick().orElseThrow(() -> new AssertionError("the flush handed nothing on"));
  }

  void advance(Duration duration) {
    scheduler.advance(duration);
  }

  /** Records what it is handed; answers {@link #answer}. */
  static final class Output implements ConnectorOutput {
    final List<ExportMetricsServiceRequest> requests = new ArrayList<>();
    volatile Admission answer = Admission.ACCEPTED;
    volatile boolean throwNext;
    int offers;

    /** What was done with the sources: {@code add <units>}, {@code consume}, {@code release}. */
    final List<String> sourceEvents = new ArrayList<>();

    @Override
    public Sources sources() {
      return new Sources() {
        @Override
        public void add(Batch batch) {
          sourceEvents.add("add " + batch.unitCount());
        }

        @Override
        public void addAll(Sources other) {
          throw new UnsupportedOperationException("one Sources per connector here");
        }

        @Override
        public void release() {
          sourceEvents.add("release");
        }
      };
    }

    @Override
    public Admission consume(OtlpIndex request, Sources madeFrom) {
      sourceEvents.add("consume");
      return consume(request);
    }

    @Override
    public Signal signal() {
      return Signal.METRICS;
    }

    @Override
    public List<String> pipelines() {
      return List.of("metrics");
    }

    @Override
    public Admission consume(Batch batch) {
      throw new UnsupportedOperationException("spanmetrics builds its requests");
    }

    @Override
    public Admission consume(OtlpIndex request) {
      offers++;
      if (throwNext) {
        throwNext = false;
        throw new IllegalStateException("a pipeline broke its contract");
      }
      if (answer != Admission.ACCEPTED) {
        return answer;
      }
      byte[][] bytes = new byte[1][];
      request.readSource(
          (b, offset, length) -> {
            bytes[0] = Arrays.copyOfRange(b, offset, offset + length);
            return length;
          });
      try {
        requests.add(ExportMetricsServiceRequest.parseFrom(bytes[0]));
      } catch (InvalidProtocolBufferException e) {
        throw new AssertionError(e);
      }
      return Admission.ACCEPTED;
    }

    @Override
    public ConnectorOutput to(Collection<String> pipelines) {
      return this;
    }
  }

  // Building spans.

  static KeyValue attribute(String key, String value) {
    return KeyValue.newBuilder()
        .setKey(key)
        .setValue(AnyValue.newBuilder().setStringValue(value))
        .build();
  }

  static KeyValue attribute(String key, long value) {
    return KeyValue.newBuilder()
        .setKey(key)
        .setValue(AnyValue.newBuilder().setIntValue(value))
        .build();
  }

  static Resource resource(KeyValue... attributes) {
    return Resource.newBuilder().addAllAttributes(List.of(attributes)).build();
  }

  static Resource service(String name, KeyValue... more) {
    Resource.Builder r = Resource.newBuilder().addAttributes(attribute("service.name", name));
    return r.addAllAttributes(List.of(more)).build();
  }

  private static long ids = 1;

  /** A span of {@code durationNanos}, with fresh IDs, starting at a fixed time. */
  static Span.Builder span(String name, Span.SpanKind kind, long durationNanos) {
    long id = ids++;
    byte[] traceId = new byte[16];
    byte[] spanId = new byte[8];
    for (int i = 0; i < 8; i++) {
      traceId[15 - i] = (byte) (id >>> (8 * i));
      spanId[7 - i] = (byte) (id >>> (8 * i));
    }
    traceId[0] = 0x7f;
    long start = 1_700_000_000_000_000_000L;
    return Span.newBuilder()
        .setTraceId(ByteString.copyFrom(traceId))
        .setSpanId(ByteString.copyFrom(spanId))
        .setName(name)
        .setKind(kind)
        .setStartTimeUnixNano(start)
        .setEndTimeUnixNano(start + durationNanos);
  }

  static Span.Builder span(String name, long durationNanos) {
    return span(name, Span.SpanKind.SPAN_KIND_SERVER, durationNanos);
  }

  static Span.Builder error(Span.Builder span) {
    return span.setStatus(Status.newBuilder().setCode(Status.StatusCode.STATUS_CODE_ERROR));
  }

  static ExportTraceServiceRequest request(Resource resource, Span.Builder... spans) {
    return request(resource, InstrumentationScope.getDefaultInstance(), spans);
  }

  static ExportTraceServiceRequest request(
      Resource resource, InstrumentationScope scope, Span.Builder... spans) {
    ScopeSpans.Builder scopeSpans = ScopeSpans.newBuilder().setScope(scope);
    for (Span.Builder span : spans) {
      scopeSpans.addSpans(span);
    }
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder().setResource(resource).addScopeSpans(scopeSpans))
        .build();
  }

  // Reading metrics.

  /** The metric of that name in the request's only resource (or in the resource at {@code i}). */
  static Metric metric(ExportMetricsServiceRequest request, String name) {
    return metric(request.getResourceMetrics(0), name)
        .orElseThrow(() -> new AssertionError("no metric " + name + " in " + request));
  }

  static Optional<Metric> metric(ResourceMetrics resource, String name) {
    for (ScopeMetrics scope : resource.getScopeMetricsList()) {
      for (Metric metric : scope.getMetricsList()) {
        if (metric.getName().equals(name)) {
          return Optional.of(metric);
        }
      }
    }
    return Optional.empty();
  }

  /** Attributes as a map of their values as strings (ints in decimal, bools as true/false). */
  static Map<String, String> attributes(List<KeyValue> attributes) {
    Map<String, String> map = new LinkedHashMap<>();
    for (KeyValue kv : attributes) {
      AnyValue v = kv.getValue();
      String text =
          switch (v.getValueCase()) {
            case STRING_VALUE -> v.getStringValue();
            case INT_VALUE -> Long.toString(v.getIntValue());
            case BOOL_VALUE -> Boolean.toString(v.getBoolValue());
            case DOUBLE_VALUE -> Double.toString(v.getDoubleValue());
            default -> v.toString();
          };
      map.put(kv.getKey(), text);
    }
    return map;
  }
}
