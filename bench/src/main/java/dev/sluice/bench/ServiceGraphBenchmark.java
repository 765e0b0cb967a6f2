package dev.sluice.bench;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.sluice.component.Admission;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Connector;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.connector.servicegraph.ServiceGraphConfig;
import dev.sluice.connector.servicegraph.ServiceGraphConnectorFactory;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the {@code servicegraph} connector costs per request of {@code spans} spans: half CLIENT
 * spans of {@code frontend}, half the SERVER spans of {@code backend} they called (ten HTTP
 * attributes each, one in ten failed), every pair joined into an edge and counted into its series
 * with both latency histograms (default buckets, seconds). Run with {@code -prof gc}.
 *
 * <ul>
 *   <li>{@code sluice}: the connector itself over a {@link Batch} of the indexed request: spans
 *       read through the views, edges in its bounded store keyed by trace and span ID.
 *   <li>{@code protobufJava}: decode the request into protobuf-java objects, then pair as the
 *       Collector's connector does: edges in a {@code HashMap} keyed by trace and span ID, series
 *       in {@code HashMap}s keyed by a {@code String} of the edge's labels.
 * </ul>
 *
 * Neither flushes; every operation pairs every edge it opens, so the store is empty after each.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class ServiceGraphBenchmark {
  static final double[] BOUNDS_SECONDS = {
    0.002, 0.004, 0.006, 0.008, 0.01, 0.05, 0.1, 0.2, 0.4, 0.8, 1, 1.4, 2, 5, 10, 15
  };

  @Param({"1000"})
  public int spans;

  byte[] request;
  OtlpIndex index;
  Connector connector;
  NaiveServiceGraph naive;

  @Setup
  public void setup() throws MalformedOtlpException {
    request = requestBytes(spans);
    index = new OtlpIndexer().index(Signal.TRACES, request);
    connector =
        new ServiceGraphConnectorFactory()
            .create(
                new ComponentSettings(
                    ComponentId.parse("servicegraph"),
                    ComponentKind.CONNECTOR,
                    new MetricRegistry(),
                    SpanMetricsBenchmark.NEVER),
                ServiceGraphConfig.DEFAULT,
                Signal.TRACES,
                Signal.METRICS,
                SpanMetricsBenchmark.ACCEPTING);
    naive = new NaiveServiceGraph();
  }

  /** {@code spans / 2} calls: the client spans in one resource, the server spans in the next. */
  static byte[] requestBytes(int spans) {
    Random random = new Random(42);
    ScopeSpans.Builder clients = ScopeSpans.newBuilder();
    ScopeSpans.Builder servers = ScopeSpans.newBuilder();
    long start = 1_767_225_600_000_000_000L;
    String[] routes = {"/users/{id}", "/orders/{id}", "/cart", "/health"};
    for (int i = 0; i < spans / 2; i++) {
      byte[] trace = new byte[16];
      byte[] client = new byte[8];
      byte[] server = new byte[8];
      random.nextBytes(trace);
      random.nextBytes(client);
      random.nextBytes(server);
      String route = routes[i % routes.length];
      long serverNanos = 1_000_000L + random.nextInt(50_000_000);
      Span.Builder c =
          http(Span.newBuilder(), route, i)
              .setTraceId(ByteString.copyFrom(trace))
              .setSpanId(ByteString.copyFrom(client))
              .setKind(Span.SpanKind.SPAN_KIND_CLIENT)
              .setStartTimeUnixNano(start)
              .setEndTimeUnixNano(start + serverNanos + 800_000);
      Span.Builder s =
          http(Span.newBuilder(), route, i)
              .setTraceId(ByteString.copyFrom(trace))
              .setSpanId(ByteString.copyFrom(server))
              .setParentSpanId(ByteString.copyFrom(client))
              .setKind(Span.SpanKind.SPAN_KIND_SERVER)
              .setStartTimeUnixNano(start + 400_000)
              .setEndTimeUnixNano(start + 400_000 + serverNanos);
      if (i % 10 == 0) {
        s.setStatus(Status.newBuilder().setCode(Status.StatusCode.STATUS_CODE_ERROR));
      }
      clients.addSpans(c);
      servers.addSpans(s);
    }
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder().setResource(resource("frontend")).addScopeSpans(clients))
        .addResourceSpans(
            ResourceSpans.newBuilder().setResource(resource("backend")).addScopeSpans(servers))
        .build()
        .toByteArray();
  }

  private static Span.Builder http(Span.Builder span, String route, int i) {
    return span.setName("GET " + route)
        .addAttributes(string("http.request.method", "GET"))
        .addAttributes(string("http.route", route))
        .addAttributes(string("url.path", route.replace("{id}", Integer.toString(i))))
        .addAttributes(string("url.scheme", "https"))
        .addAttributes(string("server.address", "backend.shop.svc"))
        .addAttributes(integer("server.port", 8443))
        .addAttributes(integer("http.response.status_code", i % 10 == 0 ? 500 : 200))
        .addAttributes(string("network.protocol.version", "1.1"))
        .addAttributes(string("user_agent.original", "shop-frontend/4.2 (java 17)"))
        .addAttributes(string("client.address", "10.1.2." + (i % 250)));
  }

  private static Resource resource(String service) {
    return Resource.newBuilder()
        .addAttributes(string("service.name", service))
        .addAttributes(string("service.namespace", "shop"))
        .addAttributes(string("telemetry.sdk.language", "java"))
        .addAttributes(string("host.name", service + "-7f9c"))
        .build();
  }

  private static KeyValue string(String key, String value) {
    return KeyValue.newBuilder()
        .setKey(key)
        .setValue(AnyValue.newBuilder().setStringValue(value))
        .build();
  }

  private static KeyValue integer(String key, long value) {
    return KeyValue.newBuilder()
        .setKey(key)
        .setValue(AnyValue.newBuilder().setIntValue(value))
        .build();
  }

  @Benchmark
  public Admission sluice() {
    Batch batch = Batch.of(index);
    return connector.consume(batch); // clears the batch it takes
  }

  @Benchmark
  public int protobufJava() throws InvalidProtocolBufferException {
    return naive.consume(ExportTraceServiceRequest.parseFrom(request));
  }

  /** The Collector's way over protobuf-java objects. */
  static final class NaiveServiceGraph {
    record Key(ByteString traceId, ByteString spanId) {}

    static final class Edge {
      String client = "";
      String server = "";
      String connectionType = "";
      boolean failed;
      double clientSeconds;
      double serverSeconds;
      final Map<String, String> peers = new HashMap<>();
    }

    static final class Series {
      long total;
      long failed;
      final long[] server = new long[BOUNDS_SECONDS.length + 1];
      final long[] client = new long[BOUNDS_SECONDS.length + 1];
      double serverSum;
      double clientSum;
    }

    final Map<Key, Edge> edges = new HashMap<>();
    final Map<String, Series> series = new HashMap<>();

    int consume(ExportTraceServiceRequest request) {
      int paired = 0;
      for (ResourceSpans resourceSpans : request.getResourceSpansList()) {
        String service = null;
        for (KeyValue kv : resourceSpans.getResource().getAttributesList()) {
          if (kv.getKey().equals("service.name")) {
            service = kv.getValue().getStringValue();
            break;
          }
        }
        if (service == null) {
          continue;
        }
        for (ScopeSpans scope : resourceSpans.getScopeSpansList()) {
          for (Span span : scope.getSpansList()) {
            boolean client = span.getKind() == Span.SpanKind.SPAN_KIND_CLIENT;
            boolean server = span.getKind() == Span.SpanKind.SPAN_KIND_SERVER;
            if (!client && !server) {
              continue;
            }
            Key key =
                new Key(span.getTraceId(), client ? span.getSpanId() : span.getParentSpanId());
            Edge edge = edges.computeIfAbsent(key, k -> new Edge());
            double seconds = (span.getEndTimeUnixNano() - span.getStartTimeUnixNano()) / 1e9;
            edge.failed |= span.getStatus().getCode() == Status.StatusCode.STATUS_CODE_ERROR;
            if (client) {
              edge.client = service;
              edge.clientSeconds = seconds;
              for (String peer : new String[] {"peer.service", "db.name", "db.system"}) {
                String value = attribute(span, peer);
                if (value != null) {
                  edge.peers.put(peer, value);
                  break;
                }
              }
              String db = attribute(span, "db.name");
              if (db != null) {
                edge.connectionType = "database";
                edge.server = db;
                edge.serverSeconds = seconds;
              }
            } else {
              edge.server = service;
              edge.serverSeconds = seconds;
            }
            if (!edge.client.isEmpty() && !edge.server.isEmpty()) {
              edges.remove(key);
              count(edge);
              paired++;
            }
          }
        }
      }
      return paired;
    }

    private void count(Edge edge) {
      String key =
          edge.client + '\0' + edge.server + '\0' + edge.connectionType + '\0' + edge.failed;
      Series s = series.computeIfAbsent(key, k -> new Series());
      s.total++;
      if (edge.failed) {
        s.failed++;
      }
      s.server[bucket(edge.serverSeconds)]++;
      s.serverSum += edge.serverSeconds;
      s.client[bucket(edge.clientSeconds)]++;
      s.clientSum += edge.clientSeconds;
    }

    private static int bucket(double value) {
      int i = Arrays.binarySearch(BOUNDS_SECONDS, value);
      return i >= 0 ? i : -i - 1;
    }

    private static String attribute(Span span, String key) {
      for (KeyValue kv : span.getAttributesList()) {
        if (kv.getKey().equals(key)) {
          return kv.getValue().getStringValue();
        }
      }
      return null;
    }
  }
}
