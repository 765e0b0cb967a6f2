package dev.sluice.processor.resourcedetection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.component.Admission;
import dev.sluice.component.Processor;
import dev.sluice.component.Scheduler;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.testkit.AllocationBound;
import dev.sluice.testkit.ManualScheduler;
import dev.sluice.testkit.SequencedSpans;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ResourceDetectionProcessorTest {
  private static final int SMALL_SPANS = 10;
  private static final int LARGE_SPANS = 1000;
  private static final int WARM_UP_ROUNDS = 5;
  private static final int THREADS = 4;
  private static final int BATCHES_PER_THREAD = 200;

  /** pdata's Overlay keeps an offset and a length per unit of an edited request. */
  private static final int REPLACEMENT_TABLE_BYTES_PER_UNIT = 2 * Integer.BYTES;

  private final TestEnvironment environment = new TestEnvironment();
  private final ManualScheduler scheduler = ManualScheduler.sleepsAdvance();
  private final long startNanos = scheduler.nanoTime();

  private static ResourceDetectionConfig withTimeout(Duration timeout, String... detectors) {
    return new ResourceDetectionConfig(
        List.of(detectors),
        true,
        timeout,
        Duration.ZERO,
        EnvDetectorConfig.DEFAULT,
        SystemDetectorConfig.DEFAULT);
  }

  private static Map<String, String> resourceAttributes(byte[] request) throws Exception {
    return ExportTraceServiceRequest.parseFrom(request)
        .getResourceSpans(0)
        .getResource()
        .getAttributesList()
        .stream()
        .collect(
            Collectors.toMap(KeyValue::getKey, kv -> kv.getValue().getStringValue(), (a, b) -> b));
  }

  /**
   * A processor of the system detector alone, with a timeout of {@code millis} on {@link
   * #scheduler}.
   */
  private Processor systemDetectionTimingOutAfter(long millis) {
    return ProcessorRuns.processor(
        ProcessorRuns.settings(scheduler),
        environment,
        withTimeout(Duration.ofMillis(millis), "system"),
        Signal.TRACES,
        List.of());
  }

  /** The request as one detector (overriding) leaves it. */
  private byte[] detected(String detector, Signal signal, byte[] request) throws Exception {
    return ProcessorRuns.run(environment, ProcessorRuns.config(true, detector), signal, request);
  }

  private static byte[] spans(int count) {
    return SequencedSpans.request("checkout", 0, count).toByteArray();
  }

  @Test
  void malformedEnvironmentVariableFailsStartAtOnce() {
    environment.variable("OTEL_RESOURCE_ATTRIBUTES", "service.name=a,oops");
    Processor processor =
        ProcessorRuns.processor(
            ProcessorRuns.settings(scheduler),
            environment,
            withTimeout(Duration.ofMinutes(1), "env"),
            Signal.TRACES,
            List.of());
    assertThatThrownBy(processor::start)
        .isInstanceOf(DetectionException.class)
        .hasMessage(
            "processor resourcedetection: resource detection failed: env detector:"
                + " OTEL_RESOURCE_ATTRIBUTES: invalid resource"
                + " format, invalid text: \"oops\"");
    assertThat(scheduler.nanoTime() - startNanos).as("no retry waited").isZero();
  }

  @Test
  void lookupThatBlocksFailsStartAtTheTimeout() {
    environment.fqdnBlocks = true;
    environment.beforeFqdnBlocks = () -> scheduler.advance(Duration.ofMillis(200));
    assertThatThrownBy(systemDetectionTimingOutAfter(200)::start)
        .isInstanceOf(DetectionException.class)
        .hasMessage(
            "processor resourcedetection: resource detection did not finish within timeout 200ms");
  }

  /**
   * The timeout falls while the second lookup blocks; start then interrupts that lookup, which
   * fails too, but the failure to name is the one seen before the timeout.
   */
  @Test
  void lookupThatFailsThenBlocksFailsStartAtTheTimeoutNamingTheFailure() {
    environment.fqdnFailuresFirst = 1;
    environment.fqdnBlocksFromCall = 2;
    environment.osHostname = null;
    environment.beforeFqdnBlocks = () -> scheduler.advance(Duration.ofMillis(300));
    assertThatThrownBy(systemDetectionTimingOutAfter(300)::start)
        .isInstanceOf(DetectionException.class)
        .hasMessage(
            "processor resourcedetection: resource detection failed: system detector: all hostname"
                + " sources failed to get hostname (dns: java.io.IOException: resolver not ready"
                + " (call 1); os: java.io.IOException: no os hostname) (still failing at the"
                + " timeout 300ms)");
    assertThat(environment.fqdnCalls).hasValue(2);
  }

  /** Detection gives up when the next retry would pass the deadline, before the timeout falls. */
  @Test
  void hostnameThatNeverAnswersFailsStartWithinTheTimeoutAfterRetries() {
    environment.fqdn = null;
    environment.osHostname = null;
    assertThatThrownBy(systemDetectionTimingOutAfter(300)::start)
        .hasMessage(
            "processor resourcedetection: resource detection failed: system detector: all"
                + " hostname sources failed to get hostname (dns: java.io.IOException: no fqdn;"
                + " os: java.io.IOException: no os hostname)");
    assertThat(environment.fqdnCalls.get()).isGreaterThan(1);
    assertThat(scheduler.nanoTime() - startNanos).isLessThan(Duration.ofMillis(300).toNanos());
  }

  @Test
  void passesBatchesUnchangedBeforeStart() throws Exception {
    List<byte[]> outputs = new ArrayList<>();
    Processor processor =
        ProcessorRuns.processor(
            environment, ProcessorRuns.config(true, "system"), Signal.TRACES, outputs);
    byte[] request = spans(3);
    processor.consume(Batch.of(new OtlpIndexer().index(Signal.TRACES, request)));
    assertThat(ExportTraceServiceRequest.parseFrom(outputs.get(0)))
        .isEqualTo(ExportTraceServiceRequest.parseFrom(request));
  }

  @Test
  void batchRefusedAndOfferedAgainComesOutAsIfProcessedOnce() throws Exception {
    environment.variable("OTEL_RESOURCE_ATTRIBUTES", "service.name=renamed,team=core");
    AtomicInteger offers = new AtomicInteger();
    List<byte[]> outputs = new ArrayList<>();
    Processor processor =
        new ResourceDetectionProcessorFactory(environment, ProcessorRuns.TEST_BACKOFF_NANOS)
            .create(
                ProcessorRuns.settings(),
                ProcessorRuns.config(true, "env", "system"),
                Signal.TRACES,
                batch -> {
                  if (offers.incrementAndGet() == 1) {
                    return Admission.FULL;
                  }
                  outputs.add(OtlpMarshaler.toByteArray(batch));
                  batch.clear();
                  return Admission.ACCEPTED;
                });
    processor.start();
    byte[] request = spans(4);
    Batch batch = Batch.of(new OtlpIndexer().index(Signal.TRACES, request));
    assertThat(processor.consume(batch)).isEqualTo(Admission.FULL);
    assertThat(processor.consume(batch)).isEqualTo(Admission.ACCEPTED);

    byte[] once =
        ProcessorRuns.run(
            environment, ProcessorRuns.config(true, "env", "system"), Signal.TRACES, request);
    assertThat(outputs.get(0)).isEqualTo(once);
    assertThat(resourceAttributes(once))
        .containsEntry("service.name", "renamed")
        .containsEntry("team", "core")
        .containsEntry("host.name", "host-1.example.com");
    assertThat(
            ExportTraceServiceRequest.parseFrom(once)
                .getResourceSpans(0)
                .getResource()
                .getAttributesCount())
        .isEqualTo(4);
  }

  /**
   * Edits are made per item, so a block with no spans is not reached: it passes as it came (the Go
   * processor would set the attributes on it too). Documented as a known difference.
   */
  @Test
  void resourceBlockWithoutItemsPassesUnchanged() throws Exception {
    ResourceSpans idle =
        ResourceSpans.newBuilder()
            .setResource(Requests.resource(Requests.attribute("service.name", "idle")))
            .build();
    ExportTraceServiceRequest request =
        ExportTraceServiceRequest.newBuilder()
            .addResourceSpans(idle)
            .addResourceSpans(SequencedSpans.request("checkout", 0, 2).getResourceSpans(0))
            .build();
    ExportTraceServiceRequest out =
        ExportTraceServiceRequest.parseFrom(
            detected("system", Signal.TRACES, request.toByteArray()));
    assertThat(out.getResourceSpans(0)).isEqualTo(idle);
    assertThat(out.getResourceSpans(1).getResource().getAttributesList())
        .extracting(KeyValue::getKey)
        .contains("host.name", "os.type");
  }

  /**
   * A metric without data points is still an item of its resource (a visit of headers shows it), so
   * a resource whose only metric has none gets the detected attributes too, and the metric passes
   * as it came. (A request of such metrics alone carries no data points: processors hand on nothing
   * for it, as the Go batch processor drops it.)
   */
  @Test
  void resourceWhoseOnlyMetricHasNoDataPointsGetsTheDetectedAttributes() throws Exception {
    environment.variable("OTEL_RESOURCE_ATTRIBUTES", "team=core");
    Metric empty =
        Metric.newBuilder().setName("queue.depth").setGauge(Gauge.getDefaultInstance()).build();
    Metric measured =
        Metric.newBuilder()
            .setName("queue.capacity")
            .setGauge(Gauge.newBuilder().addDataPoints(NumberDataPoint.newBuilder().setAsInt(64)))
            .build();
    ExportMetricsServiceRequest request =
        ExportMetricsServiceRequest.newBuilder()
            .addResourceMetrics(
                ResourceMetrics.newBuilder()
                    .setResource(Requests.resource(Requests.attribute("service.name", "idle")))
                    .addScopeMetrics(ScopeMetrics.newBuilder().addMetrics(empty)))
            .addResourceMetrics(
                ResourceMetrics.newBuilder()
                    .setResource(Requests.resource(Requests.attribute("service.name", "busy")))
                    .addScopeMetrics(ScopeMetrics.newBuilder().addMetrics(measured)))
            .build();
    ExportMetricsServiceRequest out =
        ExportMetricsServiceRequest.parseFrom(
            detected("env", Signal.METRICS, request.toByteArray()));
    assertThat(out.getResourceMetricsCount()).isEqualTo(2);
    assertThat(out.getResourceMetrics(0).getResource().getAttributesList())
        .containsExactlyInAnyOrder(
            Requests.attribute("service.name", "idle"), Requests.attribute("team", "core"));
    assertThat(out.getResourceMetrics(0).getScopeMetrics(0).getMetricsList())
        .containsExactly(empty);
    assertThat(out.getResourceMetrics(1).getResource().getAttributesList())
        .containsExactlyInAnyOrder(
            Requests.attribute("service.name", "busy"), Requests.attribute("team", "core"));
    assertThat(out.getResourceMetrics(1).getScopeMetrics(0).getMetricsList())
        .containsExactly(measured);
  }

  /** Receivers' threads call one processor at once; each thread has its own editor. */
  @Test
  void threadsApplyingAtOnceEachGetTheDetectedResource() throws Exception {
    Processor processor =
        new ResourceDetectionProcessorFactory(environment, ProcessorRuns.TEST_BACKOFF_NANOS)
            .create(
                ProcessorRuns.settings(),
                ProcessorRuns.config(true, "system"),
                Signal.TRACES,
                batch -> {
                  byte[] out = OtlpMarshaler.toByteArray(batch);
                  batch.clear();
                  try {
                    Map<String, String> attributes = resourceAttributes(out);
                    if (!"host-1.example.com".equals(attributes.get("host.name"))
                        || attributes.size() != 3) {
                      throw new AssertionError("wrong resource: " + attributes);
                    }
                  } catch (Exception e) {
                    throw new AssertionError(e);
                  }
                  return Admission.ACCEPTED;
                });
    processor.start();
    OtlpIndex index = new OtlpIndexer().index(Signal.TRACES, spans(20));
    java.util.concurrent.ExecutorService threads =
        java.util.concurrent.Executors.newFixedThreadPool(THREADS);
    try {
      List<java.util.concurrent.Future<?>> runs = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        runs.add(
            threads.submit(
                () -> {
                  for (int i = 0; i < BATCHES_PER_THREAD; i++) {
                    assertThat(processor.consume(Batch.of(index))).isEqualTo(Admission.ACCEPTED);
                  }
                  return null;
                }));
      }
      for (java.util.concurrent.Future<?> run : runs) {
        run.get(30, java.util.concurrent.TimeUnit.SECONDS);
      }
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void detectsTheRealMachine() throws Exception {
    // The real machine's lookups, bounded by the real clock.
    byte[] out =
        ProcessorRuns.run(
            ProcessorRuns.settings(Scheduler.shared()),
            DetectionEnvironment.host(),
            ProcessorRuns.config(true, "system"),
            Signal.TRACES,
            spans(2));
    Map<String, String> attributes = resourceAttributes(out);
    assertThat(attributes.get("host.name")).isNotBlank();
    assertThat(attributes.get("os.type"))
        .isEqualTo(SystemDetector.osType(System.getProperty("os.name")))
        .matches("[a-z_]+");
  }

  /**
   * Replacing a resource makes pdata's replacement tables for the request (two ints per unit, see
   * {@code Overlay}), once per request and batch; beyond those, merging allocates nothing per item.
   */
  @Test
  void allocatesNothingPerItemBeyondTheBatchsReplacementTables() throws Exception {
    ResourceMerge merge = new ResourceMerge();
    merge.set(Map.of("host.name", "host-1", "os.type", "linux"), "", true);
    ResourceDetectionConfig config = ProcessorRuns.config(true, "system");
    OtlpIndex small = new OtlpIndexer().index(Signal.TRACES, spans(SMALL_SPANS));
    OtlpIndex large = new OtlpIndexer().index(Signal.TRACES, spans(LARGE_SPANS));
    long smallBytes = 0;
    long largeBytes = 0;
    for (int round = 0; round < WARM_UP_ROUNDS; round++) {
      smallBytes = allocation(merge, config, small);
      largeBytes = allocation(merge, config, large);
    }
    int moreSpans = LARGE_SPANS - SMALL_SPANS;
    long beyondTables =
        largeBytes - smallBytes - (long) REPLACEMENT_TABLE_BYTES_PER_UNIT * moreSpans;
    assertThat(beyondTables)
        .as("%d more spans cost %d bytes against %d", moreSpans, largeBytes, smallBytes)
        .isLessThan(moreSpans);
    assertThat(largeBytes).isLessThan(AllocationBound.FIXED_BYTES);
  }

  private static long allocation(
      ResourceMerge merge, ResourceDetectionConfig config, OtlpIndex index) {
    Batch batch = Batch.of(index);
    try {
      return AllocationBound.measure(() -> merge.apply(batch, config)).allocatedBytes();
    } finally {
      batch.clear();
    }
  }
}
