package dev.sluice.exporter.loadbalancing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.ExportResult;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import io.grpc.Status;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.resource.v1.Resource;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The exporter between real OTLP gRPC sinks on loopback, with a static list of them. */
class LoadBalancingExporterTest {
  private static final int TRACES = 30;
  private static final int SPANS_PER_TRACE = 4;

  private final List<OtlpSink> sinks = new ArrayList<>();
  private final List<String> names = new ArrayList<>();
  private LoadBalancingExporter exporter;

  @BeforeEach
  void startSinks() throws Exception {
    for (int i = 0; i < 3; i++) {
      OtlpSink sink = OtlpSink.start();
      sinks.add(sink);
      names.add(sink.endpoint());
    }
  }

  @AfterEach
  void stop() throws Exception {
    if (exporter != null) {
      exporter.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
    }
    for (OtlpSink sink : sinks) {
      sink.close();
    }
  }

  private LoadBalancingExporter start(long downNanos) throws Exception {
    return start(downNanos, "");
  }

  private LoadBalancingExporter start(long downNanos, String routingKey) throws Exception {
    return start(downNanos, routingKey, "1s");
  }

  private LoadBalancingExporter start(long downNanos, String routingKey, String maxElapsed)
      throws Exception {
    String yaml =
        String.join(
            "\n",
            routingKey.isEmpty() ? "" : "routing_key: " + routingKey,
            "protocol:",
            "  otlp:",
            "    tls:",
            "      insecure: true",
            "    timeout: 5s",
            "    retry_on_failure:",
            "      initial_interval: 20ms",
            "      max_interval: 50ms",
            "      max_elapsed_time: " + maxElapsed,
            "resolver:",
            "  static:",
            "    hostnames: [" + String.join(", ", names) + "]",
            "");
    exporter =
        LoadBalancingExporterFactory.create(
            new ComponentSettings(
                ComponentId.parse("loadbalancing"), ComponentKind.EXPORTER, new MetricRegistry()),
            LoadBalancingExporterConfigTest.config(yaml),
            host -> {
              throw new AssertionError("no DNS here");
            },
            downNanos);
    exporter.start();
    return exporter;
  }

  private static long deadline() {
    return System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
  }

  /** Which sink (by index into the sorted names) the ring gives each trace. */
  private Map<String, Integer> owners(List<String> members) {
    HashRing ring = new HashRing(List.copyOf(new TreeSet<>(members)));
    CRC32 crc = new CRC32();
    Map<String, Integer> owners = new TreeMap<>();
    for (int t = 0; t < TRACES; t++) {
      byte[] id = Spans.traceId(t);
      String owner = ring.backends().get(ring.ownerOf(HashRing.position(crc, id, 0, 16)));
      owners.put(HexFormat.of().formatHex(id), names.indexOf(owner));
    }
    return owners;
  }

  /**
   * Which sink each trace goes to when sink {@code out} is left out of the full ring: the next
   * point on it. This differs from a ring built without that sink where one of its points had taken
   * a position another sink also hashed to.
   */
  private Map<String, Integer> ownersLeavingOut(int out) {
    HashRing ring = new HashRing(List.copyOf(new TreeSet<>(names)));
    boolean[] excluded = new boolean[names.size()];
    excluded[ring.backends().indexOf(names.get(out))] = true;
    CRC32 crc = new CRC32();
    Map<String, Integer> owners = new TreeMap<>();
    for (int t = 0; t < TRACES; t++) {
      byte[] id = Spans.traceId(t);
      String owner = ring.backends().get(ring.ownerOf(HashRing.position(crc, id, 0, 16), excluded));
      owners.put(HexFormat.of().formatHex(id), names.indexOf(owner));
    }
    return owners;
  }

  private ExportResult send(int requestNumber) throws InterruptedException {
    ExportTraceServiceRequest request =
        Spans.request("checkout", 0, TRACES, SPANS_PER_TRACE, requestNumber);
    Batch batch = Spans.batch(request);
    try {
      return exporter.export(batch, deadline());
    } finally {
      batch.clear();
    }
  }

  /** Where each trace's spans arrived: trace -> sink index; fails if a trace is on two. */
  private Map<String, Integer> arrivals(int expectedSpansPerTrace) {
    Map<String, Integer> where = new TreeMap<>();
    Map<String, Integer> total = new TreeMap<>();
    for (int i = 0; i < sinks.size(); i++) {
      for (Map.Entry<String, Integer> e : Spans.countByTrace(sinks.get(i).traces()).entrySet()) {
        Integer before = where.put(e.getKey(), i);
        assertThat(before).as("trace %s on two backends", e.getKey()).isNull();
        total.merge(e.getKey(), e.getValue(), Integer::sum);
      }
    }
    assertThat(total)
        .hasSize(TRACES)
        .allSatisfy((t, n) -> assertThat(n).isEqualTo(expectedSpansPerTrace));
    return where;
  }

  @Test
  void sendsEveryTraceWholeToTheBackendTheRingNames() throws Exception {
    start(TimeUnit.SECONDS.toNanos(5));

    assertThat(send(1)).isEqualTo(ExportResult.SUCCESS);
    assertThat(send(2)).isEqualTo(ExportResult.SUCCESS);

    assertThat(arrivals(2 * SPANS_PER_TRACE)).isEqualTo(owners(names));
    // Every backend had some: 30 traces over three backends.
    assertThat(sinks).allSatisfy(sink -> assertThat(sink.spans()).isPositive());
    assertThat(exporter.reroutedItems(Signal.TRACES)).isZero();
  }

  @Test
  void retriesABackendThatFailsForAWhileBeforeReRouting() throws Exception {
    start(TimeUnit.SECONDS.toNanos(5));
    sinks
        .get(1)
        .failNext(Status.UNAVAILABLE::asRuntimeException, Status.UNAVAILABLE::asRuntimeException);

    assertThat(send(1)).isEqualTo(ExportResult.SUCCESS);

    assertThat(arrivals(SPANS_PER_TRACE)).isEqualTo(owners(names));
    assertThat(sinks.get(1).calls()).isEqualTo(3);
    assertThat(exporter.reroutedItems(Signal.TRACES)).isZero();
  }

  @Test
  void sendsTheKeysOfABackendThatStaysDownToTheNextOnTheRing() throws Exception {
    start(TimeUnit.SECONDS.toNanos(30));
    Map<String, Integer> owners = owners(names);
    long ownedByDead = owners.values().stream().filter(i -> i == 1).count() * SPANS_PER_TRACE;
    sinks.get(1).close();

    assertThat(send(1)).isEqualTo(ExportResult.SUCCESS);
    // Left out now: the next batch goes straight to the others, re-routed again.
    assertThat(send(2)).isEqualTo(ExportResult.SUCCESS);

    Map<String, Integer> expected = ownersLeavingOut(1);
    assertThat(arrivals(2 * SPANS_PER_TRACE)).isEqualTo(expected);
    assertThat(expected.values()).doesNotContain(1);
    assertThat(exporter.reroutedItems(Signal.TRACES)).isEqualTo(2 * ownedByDead);
  }

  @Test
  void sendsTheKeysOfARemovedBackendToTheOthers() throws Exception {
    start(TimeUnit.SECONDS.toNanos(5));
    List<String> others = new ArrayList<>(names);
    others.remove(2);

    exporter.membership().update(List.copyOf(new TreeSet<>(others)));
    assertThat(send(1)).isEqualTo(ExportResult.SUCCESS);

    assertThat(sinks.get(2).calls()).isZero();
    assertThat(arrivals(SPANS_PER_TRACE)).isEqualTo(owners(others));
  }

  @Test
  @Timeout(30)
  void reRoutesWhatIsBeingRetriedForABackendThatIsRemoved() throws Exception {
    // Retries for a minute would outlast the test: only the removal ends them.
    start(TimeUnit.SECONDS.toNanos(5), "", "60s");
    List<java.util.function.Supplier<io.grpc.StatusRuntimeException>> failures = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      failures.add(Status.UNAVAILABLE::asRuntimeException);
    }
    @SuppressWarnings("unchecked")
    java.util.function.Supplier<io.grpc.StatusRuntimeException>[] scripted =
        failures.toArray(new java.util.function.Supplier[0]);
    sinks.get(0).failNext(scripted);
    List<String> others = new ArrayList<>(names);
    others.remove(0);
    Thread remover =
        new Thread(
            () -> {
              try {
                sinks.get(0).await(() -> sinks.get(0).calls() >= 3, 10, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                return;
              }
              exporter.membership().update(List.copyOf(new TreeSet<>(others)));
            });
    remover.start();

    assertThat(send(1)).isEqualTo(ExportResult.SUCCESS);
    remover.join();

    long ownedByRemoved = owners(names).values().stream().filter(i -> i == 0).count();
    assertThat(ownedByRemoved).isPositive();
    assertThat(sinks.get(0).traces()).isEmpty();
    assertThat(arrivals(SPANS_PER_TRACE)).isEqualTo(ownersLeavingOut(0));
    assertThat(exporter.reroutedItems(Signal.TRACES)).isEqualTo(ownedByRemoved * SPANS_PER_TRACE);
  }

  @Test
  void answersRetryableWhenNoBackendIsLeft() throws Exception {
    start(TimeUnit.SECONDS.toNanos(5));
    for (OtlpSink sink : sinks) {
      sink.close();
    }

    ExportResult result = send(1);

    assertThat(result.outcome()).isEqualTo(ExportResult.Outcome.RETRYABLE);
    assertThat(result.message()).contains("no backend left for " + TRACES * SPANS_PER_TRACE);
  }

  private static ExportMetricsServiceRequest metrics() {
    ExportMetricsServiceRequest.Builder request = ExportMetricsServiceRequest.newBuilder();
    for (int s = 0; s < 8; s++) {
      ScopeMetrics.Builder scope = ScopeMetrics.newBuilder();
      for (int m = 0; m < 4; m++) {
        Gauge.Builder gauge = Gauge.newBuilder();
        for (int p = 0; p < 3; p++) {
          gauge.addDataPoints(
              NumberDataPoint.newBuilder().setAsInt(p).setTimeUnixNano(s * 100 + m * 10 + p));
        }
        scope.addMetrics(Metric.newBuilder().setName("metric-" + m).setGauge(gauge));
      }
      request.addResourceMetrics(
          ResourceMetrics.newBuilder()
              .setResource(
                  Resource.newBuilder()
                      .addAttributes(
                          KeyValue.newBuilder()
                              .setKey("service.name")
                              .setValue(AnyValue.newBuilder().setStringValue("service-" + s))))
              .addScopeMetrics(scope));
    }
    return request.build();
  }

  /** Per sink: the services (or metric names) it received data points of. */
  private List<Set<String>> metricArrivals(boolean byName) {
    List<Set<String>> seen = new ArrayList<>();
    for (OtlpSink sink : sinks) {
      Set<String> here = new TreeSet<>();
      for (ExportMetricsServiceRequest request : sink.metrics()) {
        for (ResourceMetrics resource : request.getResourceMetricsList()) {
          String service = resource.getResource().getAttributes(0).getValue().getStringValue();
          for (ScopeMetrics scope : resource.getScopeMetricsList()) {
            for (Metric metric : scope.getMetricsList()) {
              if (metric.getGauge().getDataPointsCount() > 0) {
                here.add(byName ? metric.getName() : service);
              }
            }
          }
        }
      }
      seen.add(here);
    }
    return seen;
  }

  private void assertEachKeyOnItsRingOwner(List<Set<String>> seen, int keys) {
    HashRing ring = new HashRing(List.copyOf(new TreeSet<>(names)));
    CRC32 crc = new CRC32();
    int total = 0;
    for (int i = 0; i < sinks.size(); i++) {
      for (String key : seen.get(i)) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        String owner =
            ring.backends().get(ring.ownerOf(HashRing.position(crc, bytes, 0, bytes.length)));
        assertThat(names.indexOf(owner)).as(key).isEqualTo(i);
        total++;
      }
    }
    assertThat(total).isEqualTo(keys);
  }

  @Test
  void placesMetricsByServiceByDefault() throws Exception {
    start(TimeUnit.SECONDS.toNanos(5));
    Batch batch = Spans.metricsBatch(metrics());

    try {
      assertThat(exporter.export(batch, deadline())).isEqualTo(ExportResult.SUCCESS);
    } finally {
      batch.clear();
    }

    assertThat(sinks.stream().mapToLong(OtlpSink::dataPoints).sum()).isEqualTo(8 * 4 * 3);
    assertEachKeyOnItsRingOwner(metricArrivals(false), 8);
  }

  @Test
  void placesMetricsByNameWithTheMetricKey() throws Exception {
    start(TimeUnit.SECONDS.toNanos(5), "metric");
    Batch batch = Spans.metricsBatch(metrics());

    try {
      assertThat(exporter.export(batch, deadline())).isEqualTo(ExportResult.SUCCESS);
    } finally {
      batch.clear();
    }

    assertThat(sinks.stream().mapToLong(OtlpSink::dataPoints).sum()).isEqualTo(8 * 4 * 3);
    assertEachKeyOnItsRingOwner(metricArrivals(true), 4);
  }
}
