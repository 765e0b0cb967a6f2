package dev.sluice.connector.servicegraph;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.sluice.component.Admission;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.ConnectorOutput;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.config.ConfigBinder;
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
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Metric;
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
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A {@code servicegraph} connector configured from YAML, on a manual clock, feeding an output that
 * records (and parses with protobuf-java) each request it is handed and answers as told; and the
 * protobuf-java spans the tests send it.
 */
final class Harness {
  /** Unix time when the harness is made: the clock's zero, in timestamps. */
  static final long T0 = 1_767_225_600_000_000_000L;

  static final long MS = 1_000_000L;

  final ManualScheduler scheduler = new ManualScheduler();
  final MetricRegistry registry = new MetricRegistry();
  final Output output = new Output();
  final ServiceGraphConfig config;
  final ServiceGraphConnector connector;
  private final long startNanos;

  Harness(String yaml) {
    config = config(yaml);
    startNanos = scheduler.nanoTime();
    connector =
        new ServiceGraphConnector(
            new ComponentSettings(
                ComponentId.parse("servicegraph"), ComponentKind.CONNECTOR, registry, scheduler),
            config,
            output,
            T0 - startNanos);
    connector.start();
  }

  static ServiceGraphConfig config(String yaml) {
    try {
      return bind(yaml);
    } catch (ConfigException e) {
      throw new AssertionError(e);
    }
  }

  static ServiceGraphConfig bind(String yaml) throws ConfigException {
    return new ConfigBinder()
        .bind(yaml, "servicegraph.yaml", ServiceGraphConfig.class, ServiceGraphConfig.DEFAULT);
  }

  /** Unix nanoseconds now on the harness's clock. */
  long unixNow() {
    return T0 + (scheduler.nanoTime() - startNanos);
  }

  long counter(String name) {
    return registry.counter(name, "", "connector", "servicegraph").get();
  }

  /** Offers the request's spans; a refused batch is cleared here, as its sender would. */
  Admission send(ExportTraceServiceRequest request) {
    return send(index(request));
  }

  /** {@link #send(ExportTraceServiceRequest)} of an indexed request, to ask after it later. */
  Admission send(OtlpIndex request) {
    Batch batch = Batch.of(request);
    Admission admission = connector.consume(batch);
    if (admission != Admission.ACCEPTED) {
      batch.clear();
    }
    return admission;
  }

  static Batch batch(ExportTraceServiceRequest request) {
    return Batch.of(index(request));
  }

  static OtlpIndex index(ExportTraceServiceRequest request) {
    try {
      return new OtlpIndexer().index(Signal.TRACES, request.toByteArray());
    } catch (MalformedOtlpException e) {
      throw new AssertionError(e);
    }
  }

  /** Moves the clock to the next flush, which runs; returns what it handed on, if anything. */
  Optional<ExportMetricsServiceRequest> tick() {
    int before = output.requests.size();
    scheduler.advance(config.metricsFlushInterval());
    return output.requests.size() > before
        ? Optional.of(output.requests.get(output.requests.size() - 1))
        : Optional.empty();
  }

  ExportMetricsServiceRequest flush() {
    return tick().orElseThrow(() -> new AssertionError("the flush handed nothing on"));
  }

  void advance(Duration duration) {
    scheduler.advance(duration);
  }

  /**
   * Records what it is handed, and which requests each request taken was made from; answers {@link
   * #answer}. The requests any of its {@link Sources} hold are those the connector keeps owed.
   */
  static final class Output implements ConnectorOutput {
    final List<ExportMetricsServiceRequest> requests = new ArrayList<>();

    /** For each request taken (as {@link #requests}), the requests it was made from. */
    final List<Set<OtlpIndex>> madeFrom = new ArrayList<>();

    final List<HeldSources> sources = new ArrayList<>();
    volatile Admission answer = Admission.ACCEPTED;
    int offers;

    /** Sources that hold the requests of the batches added, by identity. */
    final class HeldSources implements Sources {
      final Set<OtlpIndex> held = Collections.newSetFromMap(new IdentityHashMap<>());

      @Override
      public void add(Batch batch) {
        for (int i = 0; i < batch.sliceCount(); i++) {
          held.add(batch.requestOf(i));
        }
      }

      @Override
      public void addAll(Sources other) {
        held.addAll(((HeldSources) other).held);
      }

      @Override
      public void release() {
        held.clear();
      }
    }

    @Override
    public Sources sources() {
      HeldSources made = new HeldSources();
      sources.add(made);
      return made;
    }

    /** Whether the connector keeps {@code request} owed: one of its sources holds it. */
    boolean owed(OtlpIndex request) {
      return sources.stream().anyMatch(s -> s.held.contains(request));
    }

    /** The requests taken that were made from {@code request}. */
    List<ExportMetricsServiceRequest> madeFrom(OtlpIndex request) {
      List<ExportMetricsServiceRequest> made = new ArrayList<>();
      for (int i = 0; i < madeFrom.size(); i++) {
        if (madeFrom.get(i).contains(request)) {
          made.add(requests.get(i));
        }
      }
      return made;
    }

    @Override
    public Admission consume(OtlpIndex request, Sources from) {
      int before = requests.size();
      Admission answer = consume(request);
      if (requests.size() > before) {
        Set<OtlpIndex> copy = Collections.newSetFromMap(new IdentityHashMap<>());
        copy.addAll(((HeldSources) from).held);
        madeFrom.add(copy);
      }
      return answer;
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
      throw new UnsupportedOperationException("servicegraph builds its requests");
    }

    @Override
    public Admission consume(OtlpIndex request) {
      offers++;
      while (madeFrom.size() < requests.size()) {
        madeFrom.add(Set.of()); // handed on without sources
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

  static Resource service(String name, KeyValue... more) {
    return Resource.newBuilder()
        .addAttributes(attribute("service.name", name))
        .addAllAttributes(List.of(more))
        .build();
  }

  private static long ids = 1;

  static ByteString traceId() {
    long id = ids++;
    byte[] b = new byte[16];
    b[0] = 0x5a;
    for (int i = 0; i < 8; i++) {
      b[15 - i] = (byte) (id >>> (8 * i));
    }
    return ByteString.copyFrom(b);
  }

  static ByteString spanId() {
    long id = ids++;
    byte[] b = new byte[8];
    b[0] = 0x3c;
    for (int i = 0; i < 7; i++) {
      b[7 - i] = (byte) (id >>> (8 * i));
    }
    return ByteString.copyFrom(b);
  }

  static final long START = 1_700_000_000_000_000_000L;

  static Span.Builder span(
      ByteString traceId, ByteString spanId, Span.SpanKind kind, long durationNanos) {
    return Span.newBuilder()
        .setTraceId(traceId)
        .setSpanId(spanId)
        .setName("call")
        .setKind(kind)
        .setStartTimeUnixNano(START)
        .setEndTimeUnixNano(START + durationNanos);
  }

  /** A client span and the server span it called, in a fresh trace. */
  static Span.Builder[] call(Span.SpanKind client, Span.SpanKind server, long cMs, long sMs) {
    ByteString trace = traceId();
    ByteString clientId = spanId();
    Span.Builder c = span(trace, clientId, client, cMs * MS);
    Span.Builder s = span(trace, spanId(), server, sMs * MS).setParentSpanId(clientId);
    return new Span.Builder[] {c, s};
  }

  static Span.Builder error(Span.Builder span) {
    return span.setStatus(Status.newBuilder().setCode(Status.StatusCode.STATUS_CODE_ERROR));
  }

  static ExportTraceServiceRequest request(Resource resource, Span.Builder... spans) {
    ScopeSpans.Builder scopeSpans = ScopeSpans.newBuilder();
    for (Span.Builder span : spans) {
      scopeSpans.addSpans(span);
    }
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder().setResource(resource).addScopeSpans(scopeSpans))
        .build();
  }

  /** Two services' spans in one request: the client's, then the server's. */
  static ExportTraceServiceRequest request(
      Resource clientResource, Span.Builder client, Resource serverResource, Span.Builder server) {
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder()
                .setResource(clientResource)
                .addScopeSpans(ScopeSpans.newBuilder().addSpans(client)))
        .addResourceSpans(
            ResourceSpans.newBuilder()
                .setResource(serverResource)
                .addScopeSpans(ScopeSpans.newBuilder().addSpans(server)))
        .build();
  }

  // Reading metrics.

  static Optional<Metric> find(ExportMetricsServiceRequest request, String name) {
    for (ScopeMetrics scope : request.getResourceMetrics(0).getScopeMetricsList()) {
      for (Metric metric : scope.getMetricsList()) {
        if (metric.getName().equals(name)) {
          return Optional.of(metric);
        }
      }
    }
    return Optional.empty();
  }

  static Metric metric(ExportMetricsServiceRequest request, String name) {
    return find(request, name)
        .orElseThrow(() -> new AssertionError("no metric " + name + " in " + request));
  }

  /** Attributes as a map of their values as strings (bools as true/false). */
  static Map<String, String> attributes(List<KeyValue> attributes) {
    Map<String, String> map = new LinkedHashMap<>();
    for (KeyValue kv : attributes) {
      AnyValue v = kv.getValue();
      map.put(
          kv.getKey(),
          switch (v.getValueCase()) {
            case STRING_VALUE -> v.getStringValue();
            case BOOL_VALUE -> Boolean.toString(v.getBoolValue());
            case INT_VALUE -> Long.toString(v.getIntValue());
            default -> v.toString();
          });
    }
    return map;
  }
}
