package dev.sluice.exporter.loadbalancing;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.ExportResult;
import dev.sluice.component.Exporter;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.exporter.otlp.OtlpExporterFactory;
import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.pdata.Batch;
import dev.sluice.testkit.Await;
import dev.sluice.testkit.ManualScheduler;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.logging.Logger;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Backends removed by the resolver are retired without falling behind: idle ones at once, busy ones
 * when their sends end or at their deadline (on a clock the test moves), at most a bounded number
 * waiting; whatever was being sent to them is re-routed. Real OTLP exporters to real gRPC sinks on
 * loopback; the retirement deadlines run on a {@link ManualScheduler} that only the test moves.
 */
class BackendRetirementTest {
  private static final long RETIRE_AFTER_NANOS = TimeUnit.SECONDS.toNanos(10);
  private static final long WAIT_SECONDS = 30;

  private final ManualScheduler clock = new ManualScheduler();
  private final List<OtlpSink> sinks = new ArrayList<>();
  private final List<String> names = new ArrayList<>();
  private final List<CountingExporter> exporters = new CopyOnWriteArrayList<>();
  private final Map<String, CountingExporter> latest = new ConcurrentHashMap<>();
  private final AtomicInteger stopped = new AtomicInteger();
  private Consumer<List<String>> resolverListener;
  private Membership membership;
  private LoadBalancingExporter exporter;

  /** A backend's real OTLP exporter, counted: its sends in flight, and whether it was stopped. */
  private final class CountingExporter implements Exporter {
    final String endpoint;
    final Exporter delegate;
    final AtomicInteger inFlight = new AtomicInteger();
    volatile boolean isStopped;

    CountingExporter(String endpoint, Exporter delegate) {
      this.endpoint = endpoint;
      this.delegate = delegate;
    }

    @Override
    public ExportResult export(Batch batch, long deadlineNanos) throws InterruptedException {
      inFlight.incrementAndGet();
      try {
        return delegate.export(batch, deadlineNanos);
      } finally {
        inFlight.decrementAndGet();
      }
    }

    @Override
    public void shutdown(long deadlineNanos) throws InterruptedException {
      delegate.shutdown(deadlineNanos);
      isStopped = true;
      stopped.incrementAndGet();
    }
  }

  @AfterEach
  void stop() throws Exception {
    for (OtlpSink sink : sinks) {
      sink.release();
    }
    if (exporter != null) {
      exporter.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
    }
    for (OtlpSink sink : sinks) {
      sink.close();
    }
  }

  private void start(int backends, int maxRetiring) throws Exception {
    for (int i = 0; i < backends; i++) {
      OtlpSink sink = OtlpSink.start();
      sinks.add(sink);
      names.add(sink.endpoint());
    }
    LoadBalancingExporterConfig config = LoadBalancingExporterConfigTest.quickRetries(names);
    ComponentSettings settings =
        new ComponentSettings(
            ComponentId.parse("loadbalancing"), ComponentKind.EXPORTER, new MetricRegistry());
    OtlpExporterFactory otlp = new OtlpExporterFactory();
    membership =
        new Membership(
            endpoint -> {
              Exporter real =
                  otlp.create(
                      settings,
                      LoadBalancingExporterConfig.withEndpoint(config.protocol().otlp(), endpoint));
              real.start();
              CountingExporter counted = new CountingExporter(endpoint, real);
              exporters.add(counted);
              latest.put(endpoint, counted);
              return counted;
            },
            RETIRE_AFTER_NANOS,
            maxRetiring,
            clock,
            Logger.getLogger("test"),
            "test-retire");
    BackendResolver resolver =
        new BackendResolver() {
          @Override
          public void start(Consumer<List<String>> listener) {
            resolverListener = listener;
            listener.accept(List.copyOf(new TreeSet<>(names)));
          }

          @Override
          public void shutdown() {}
        };
    exporter =
        new LoadBalancingExporter(
            settings,
            config,
            resolver,
            membership,
            TimeUnit.SECONDS.toNanos(5),
            new LoadBalancingExporterFactory.HostHolder());
    exporter.start();
  }

  /** Exporters of removed backends not stopped yet, as the exporters themselves tell. */
  private int backlog() {
    return exporters.size() - stopped.get() - membership.current().size();
  }

  /** One request: two spans of each of {@code traces}, span IDs unique over {@code number}. */
  private static ExportTraceServiceRequest request(List<Integer> traces, int number) {
    ScopeSpans.Builder scope = ScopeSpans.newBuilder();
    for (int t : traces) {
      for (int s = 0; s < 2; s++) {
        long spanId = ((long) number << 32) | ((long) t << 8) | s;
        scope.addSpans(
            Span.newBuilder()
                .setTraceId(ByteString.copyFrom(Spans.traceId(t)))
                .setSpanId(ByteString.copyFrom(ByteBuffer.allocate(8).putLong(spanId).array()))
                .setName("span"));
      }
    }
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder()
                .setResource(Resource.getDefaultInstance())
                .addScopeSpans(scope))
        .build();
  }

  private static Set<String> spanIds(List<ExportTraceServiceRequest> requests) {
    Set<String> ids = new HashSet<>();
    for (ExportTraceServiceRequest request : requests) {
      for (ResourceSpans resource : request.getResourceSpansList()) {
        for (ScopeSpans scope : resource.getScopeSpansList()) {
          for (Span span : scope.getSpansList()) {
            ids.add(HexFormat.of().formatHex(span.getSpanId().toByteArray()));
          }
        }
      }
    }
    return ids;
  }

  private Set<String> arrived(List<OtlpSink> at) {
    Set<String> ids = new HashSet<>();
    for (OtlpSink sink : at) {
      ids.addAll(spanIds(sink.traces()));
    }
    return ids;
  }

  private ExportResult export(ExportTraceServiceRequest request) throws InterruptedException {
    Batch batch = Spans.batch(request);
    try {
      return exporter.export(batch, System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS));
    } finally {
      batch.clear();
    }
  }

  @Test
  @Timeout(120)
  void churnRetiresIdleBackendsAtOnceKeepsTheBacklogBoundedAndLosesNothing() throws Exception {
    int maxRetiring = 4;
    start(10, maxRetiring);
    List<ExportTraceServiceRequest> sent = new CopyOnWriteArrayList<>();
    List<ExportResult> results = new CopyOnWriteArrayList<>();
    List<Thread> senders = new ArrayList<>();
    for (int t = 0; t < 3; t++) {
      int thread = t;
      Thread sender =
          new Thread(
              () -> {
                try {
                  for (int b = 0; b < 40; b++) {
                    List<Integer> traces = new ArrayList<>();
                    for (int i = 0; i < 10; i++) {
                      traces.add(thread * 10_000 + b * 10 + i);
                    }
                    ExportTraceServiceRequest request = request(traces, thread * 1000 + b);
                    sent.add(request);
                    results.add(export(request));
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
      sender.start();
      senders.add(sender);
    }

    // The resolver churns: 300 lists of 2 to 10 of the backends, as fast as the exporter takes
    // them.
    Random random = new Random(42);
    int maxBacklog = 0;
    int removals = 0;
    for (int change = 0; change < 300; change++) {
      List<String> shuffled = new ArrayList<>(names);
      java.util.Collections.shuffle(shuffled, random);
      List<String> next = List.copyOf(new TreeSet<>(shuffled.subList(0, 2 + random.nextInt(9))));
      int before = membership.current().size();
      Set<String> kept = new HashSet<>(membership.current().ring().backends());
      kept.retainAll(next);
      removals += before - kept.size();
      resolverListener.accept(next);
      maxBacklog = Math.max(maxBacklog, backlog());
    }
    for (Thread sender : senders) {
      sender.join();
    }

    assertThat(removals).as("backends removed by the churn").isGreaterThan(100 * maxRetiring);
    assertThat(maxBacklog).as("removed backends awaiting retirement").isLessThanOrEqualTo(4);
    assertThat(results).hasSize(120).allSatisfy(r -> assertThat(r).isEqualTo(ExportResult.SUCCESS));
    assertThat(arrived(sinks)).as("every span arrived").isEqualTo(spanIds(sent));
    // Nothing is in flight now: every removed backend is stopped without its deadline coming.
    Await.until("all removed backends stopped", () -> backlog() == 0);
    assertThat(exporters).filteredOn(e -> !e.isStopped).hasSize(membership.current().size());
  }

  /** Trace numbers (from 0 up) that the full ring gives to backend {@code index}, {@code count}. */
  private List<Integer> tracesOwnedBy(int index, int count) {
    HashRing ring = new HashRing(List.copyOf(new TreeSet<>(names)));
    CRC32 crc = new CRC32();
    List<Integer> traces = new ArrayList<>();
    for (int t = 0; traces.size() < count; t++) {
      String owner =
          ring.backends().get(ring.ownerOf(HashRing.position(crc, Spans.traceId(t), 0, 16)));
      if (names.indexOf(owner) == index) {
        traces.add(t);
      }
    }
    return traces;
  }

  @Test
  @Timeout(120)
  void busyRemovedBackendsAreCutPastTheBoundOrAtTheirDeadlineAndTheirSendsReRouted()
      throws Exception {
    start(4, 1);
    // Backends 0 and 1 hold every call: a send to each stays in flight.
    sinks.get(0).hold();
    sinks.get(1).hold();
    ExportTraceServiceRequest toFirst = request(tracesOwnedBy(0, 10), 1);
    ExportTraceServiceRequest toSecond = request(tracesOwnedBy(1, 10), 2);
    List<ExportResult> results = new CopyOnWriteArrayList<>();
    List<Thread> senders = new ArrayList<>();
    for (ExportTraceServiceRequest request : List.of(toFirst, toSecond)) {
      Thread sender =
          new Thread(
              () -> {
                try {
                  results.add(export(request));
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
      sender.start();
      senders.add(sender);
    }
    CountingExporter first = latest.get(BackendAddress.withPort(names.get(0)));
    CountingExporter second = latest.get(BackendAddress.withPort(names.get(1)));
    Await.until(
        "a send in flight at each of the two",
        () -> first.inFlight.get() == 1 && second.inFlight.get() == 1);

    // Both removed at once; one may wait for retirement: the older is cut before this returns.
    resolverListener.accept(List.copyOf(new TreeSet<>(names.subList(2, 4))));

    assertThat(List.of(first.isStopped, second.isStopped))
        .as("one cut at once, past the bound")
        .containsExactlyInAnyOrder(true, false);
    Await.until("its send re-routed", () -> results.size() == 1);
    assertThat(results.get(0)).isEqualTo(ExportResult.SUCCESS);

    // The other one's deadline comes: it is cut, and its send re-routed too.
    clock.advance(RETIRE_AFTER_NANOS);
    for (Thread sender : senders) {
      sender.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
    }
    assertThat(first.isStopped).isTrue();
    assertThat(second.isStopped).isTrue();
    assertThat(results).containsExactly(ExportResult.SUCCESS, ExportResult.SUCCESS);
    assertThat(arrived(sinks.subList(2, 4))).isEqualTo(spanIds(List.of(toFirst, toSecond)));
    assertThat(membership.retiringCount()).isZero();
  }
}
