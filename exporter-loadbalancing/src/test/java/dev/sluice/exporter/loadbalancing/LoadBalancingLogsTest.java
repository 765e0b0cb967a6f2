package dev.sluice.exporter.loadbalancing;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.ExportResult;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.resource.v1.Resource;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Log records through the exporter to real OTLP gRPC sinks on loopback: each lands on the backend
 * the ring names for its key, read back with protobuf-java.
 */
class LoadBalancingLogsTest {
  private static final int BACKENDS = 3;
  private static final int SERVICES = 12;
  private static final int TRACES = 24;
  private static final int RECORDS_PER_TRACE = 3;
  private static final int RECORDS_WITHOUT_TRACE = 10;

  /** The body that marks a record sent without a trace ID. */
  private static final String NO_TRACE = "no-trace";

  private final List<OtlpSink> sinks = new ArrayList<>();
  private final List<String> names = new ArrayList<>();
  private LoadBalancingExporter exporter;

  @BeforeEach
  void startSinks() throws Exception {
    for (int i = 0; i < BACKENDS; i++) {
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

  private void start(String routingKey) throws Exception {
    String yaml =
        String.join(
            "\n",
            routingKey.isEmpty() ? "" : "routing_key: " + routingKey,
            "protocol:",
            "  otlp:",
            "    tls:",
            "      insecure: true",
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
            TimeUnit.SECONDS.toNanos(5));
    exporter.start();
  }

  /** The sink (index into {@link #names}) that owns {@code key}'s bytes on the ring. */
  private int owner(byte[] key) {
    HashRing ring = new HashRing(List.copyOf(new TreeSet<>(names)));
    String backend =
        ring.backends().get(ring.ownerOf(HashRing.position(new CRC32(), key, 0, key.length)));
    return names.indexOf(backend);
  }

  private static KeyValue serviceName(String service) {
    return KeyValue.newBuilder()
        .setKey("service.name")
        .setValue(AnyValue.newBuilder().setStringValue(service))
        .build();
  }

  /**
   * Resource blocks of {@link #SERVICES} services; each holds records of several traces, and the
   * first ones also records without a trace ID.
   */
  private static ExportLogsServiceRequest request() {
    ExportLogsServiceRequest.Builder request = ExportLogsServiceRequest.newBuilder();
    int withoutTrace = 0;
    for (int s = 0; s < SERVICES; s++) {
      ScopeLogs.Builder scope = ScopeLogs.newBuilder();
      for (int t = s; t < TRACES; t += SERVICES) {
        for (int r = 0; r < RECORDS_PER_TRACE; r++) {
          scope.addLogRecords(
              LogRecord.newBuilder()
                  .setTraceId(ByteString.copyFrom(Spans.traceId(t)))
                  .setTimeUnixNano(t * 100L + r)
                  .setBody(AnyValue.newBuilder().setStringValue("trace-" + t)));
        }
      }
      for (int i = 0; i < 2 && withoutTrace < RECORDS_WITHOUT_TRACE; i++, withoutTrace++) {
        scope.addLogRecords(
            LogRecord.newBuilder()
                .setTimeUnixNano(withoutTrace)
                .setBody(AnyValue.newBuilder().setStringValue(NO_TRACE)));
      }
      request.addResourceLogs(
          ResourceLogs.newBuilder()
              .setResource(Resource.newBuilder().addAttributes(serviceName("service-" + s)))
              .addScopeLogs(scope));
    }
    return request.build();
  }

  private void export(ExportLogsServiceRequest request) throws Exception {
    Batch batch;
    try {
      batch = Batch.of(new OtlpIndexer().index(Signal.LOGS, request.toByteArray()));
    } catch (MalformedOtlpException e) {
      throw new AssertionError(e);
    }
    try {
      assertThat(exporter.export(batch, System.nanoTime() + TimeUnit.SECONDS.toNanos(30)))
          .isEqualTo(ExportResult.SUCCESS);
    } finally {
      batch.clear();
    }
  }

  /** One arrived record: which sink, its service, its trace ID (hex, empty without) and body. */
  private record Arrived(int sink, String service, String traceId, String body) {}

  private List<Arrived> arrivals() {
    List<Arrived> arrived = new ArrayList<>();
    for (int i = 0; i < sinks.size(); i++) {
      for (ExportLogsServiceRequest request : sinks.get(i).logs()) {
        for (ResourceLogs resource : request.getResourceLogsList()) {
          String service = resource.getResource().getAttributes(0).getValue().getStringValue();
          for (ScopeLogs scope : resource.getScopeLogsList()) {
            for (LogRecord record : scope.getLogRecordsList()) {
              arrived.add(
                  new Arrived(
                      i,
                      service,
                      HexFormat.of().formatHex(record.getTraceId().toByteArray()),
                      record.getBody().getStringValue()));
            }
          }
        }
      }
    }
    return arrived;
  }

  private static int total() {
    return TRACES * RECORDS_PER_TRACE + RECORDS_WITHOUT_TRACE;
  }

  @Test
  void placesLogRecordsByServiceByDefault() throws Exception {
    start("");

    export(request());

    List<Arrived> arrived = arrivals();
    assertThat(arrived).hasSize(total());
    Map<String, Integer> sinkOfService = new TreeMap<>();
    for (Arrived record : arrived) {
      int expected = owner(record.service().getBytes(StandardCharsets.UTF_8));
      assertThat(record.sink()).as("sink of %s", record.service()).isEqualTo(expected);
      sinkOfService.put(record.service(), record.sink());
    }
    assertThat(sinkOfService).hasSize(SERVICES);
    // Twelve services spread over the three backends, so the check above compares real choices.
    assertThat(new TreeSet<>(sinkOfService.values())).hasSizeGreaterThan(1);
    assertThat(exporter.reroutedItems(Signal.LOGS)).isZero();
  }

  @Test
  void placesLogRecordsByTraceIdWhateverTheirService() throws Exception {
    start("traceID");

    export(request());
    export(request());

    List<Arrived> arrived = arrivals();
    assertThat(arrived).hasSize(2 * total());
    Map<String, Integer> sinkOfTrace = new TreeMap<>();
    for (Arrived record : arrived) {
      if (record.body().equals(NO_TRACE)) {
        continue;
      }
      int expected = owner(HexFormat.of().parseHex(record.traceId()));
      assertThat(record.sink()).as("sink of trace %s", record.traceId()).isEqualTo(expected);
      sinkOfTrace.put(record.traceId(), record.sink());
    }
    assertThat(sinkOfTrace).hasSize(TRACES);
    assertThat(new TreeSet<>(sinkOfTrace.values())).hasSize(BACKENDS);
  }

  @Test
  void placesLogRecordsWithoutATraceIdByZeroBytesUnderTheTraceIdKey() throws Exception {
    start("traceID");

    export(request());

    int zeroOwner = owner(new byte[16]);
    List<Arrived> withoutTrace =
        arrivals().stream().filter(record -> record.body().equals(NO_TRACE)).toList();
    assertThat(withoutTrace).hasSize(RECORDS_WITHOUT_TRACE);
    // Records of several services, all on the one backend that owns 16 zero bytes.
    assertThat(withoutTrace).allSatisfy(record -> assertThat(record.sink()).isEqualTo(zeroOwner));
    assertThat(withoutTrace.stream().map(Arrived::service).distinct()).hasSizeGreaterThan(1);
    assertThat(withoutTrace).allSatisfy(record -> assertThat(record.traceId()).isEmpty());
  }
}
