package dev.sluice.bench;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.sluice.component.Admission;
import dev.sluice.component.BatchConsumer;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Processor;
import dev.sluice.component.Scheduler;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.config.ConfigBinder;
import dev.sluice.config.ConfigException;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.processor.tailsampling.TailSamplingConfig;
import dev.sluice.processor.tailsampling.TailSamplingProcessorFactory;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the {@code tail_sampling} processor costs per request of {@link SpanShapes} HTTP server
 * spans in traces of {@link #SPANS_PER_TRACE} spans (each trace's spans spread over the request),
 * from taking the request to handing on the sampled traces, with three policies: a span with status
 * ERROR, a trace of at least 300 ms, or a span of the route {@code /api/v1/search}.
 *
 * <ul>
 *   <li>{@code sluice}: the processor itself: the request's spans partitioned into held traces as
 *       slices, every trace decided through the views, the sampled ones handed on as a batch.
 *   <li>{@code protobufJava}: the Collector's way over protobuf-java objects: decode the request,
 *       copy each trace's spans into a {@code ResourceSpans} of its own (grouped by trace ID in a
 *       map), decide each trace over its objects, and gather the sampled ones in one request.
 * </ul>
 *
 * Both take {@link #REQUESTS} distinct requests in turn (different trace IDs), so that a trace is
 * never seen twice while it is remembered; the processor holds at most 1000 traces, so each
 * request's traces push out the oldest decided ones, as in a collector's steady state. Run with
 * {@code -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class TailSamplingBenchmark {
  static final int SPANS_PER_TRACE = 5;
  static final int REQUESTS = 64;
  static final long SLOW_MILLIS = 350;
  static final String METHOD = "DELETE";

  static final String ALWAYS = "policies: [{name: all, type: always_sample}]\n";

  static final String POLICIES =
      String.join(
          "\n",
          "policies:",
          "  - {name: errors, type: status_code, status_code: {status_codes: [ERROR]}}",
          "  - {name: slow, type: latency, latency: {threshold_ms: " + SLOW_MILLIS + "}}",
          "  - name: deletes",
          "    type: string_attribute",
          "    string_attribute: {key: http.request.method, values: [" + METHOD + "]}",
          "");

  @Param({"1000"})
  public int spans;

  /**
   * {@code three}: the three policies above; {@code always}: {@code always_sample} alone, for what
   * holding and handing on cost without reading the spans for a decision. The naive path always
   * decides by the three.
   */
  @Param({"three", "always"})
  public String policies;

  byte[][] requests;
  OtlpIndex[] indexes;
  int next;
  ManualClock clock;
  Processor processor;
  Sink sink;
  NaiveTailSampling naive;

  @Setup
  public void setup() throws Exception {
    requests = new byte[REQUESTS][];
    indexes = new OtlpIndex[REQUESTS];
    OtlpIndexer indexer = new OtlpIndexer();
    for (int i = 0; i < REQUESTS; i++) {
      requests[i] = request(SpanShapes.DEFAULT_SEED + i, spans).toByteArray();
      indexes[i] = indexer.index(Signal.TRACES, requests[i]);
    }
    clock = new ManualClock();
    sink = new Sink();
    naive = new NaiveTailSampling();
    processor = processor(clock, sink, 1000, "always".equals(policies) ? ALWAYS : POLICIES);
    processor.start();
  }

  @TearDown
  public void tearDown() throws InterruptedException {
    processor.shutdown(System.nanoTime());
  }

  /**
   * The spans of {@code seed}, in traces of {@link #SPANS_PER_TRACE} ({@link SpanShapes#inTraces}).
   */
  static ExportTraceServiceRequest request(long seed, int count) {
    return SpanShapes.inTraces(
        SpanShapes.toRequest(SpanShapes.spans(seed, count)), SPANS_PER_TRACE);
  }

  /** {@code policies}, {@code decision_wait: 1s}, and at most {@code numTraces} traces. */
  static TailSamplingConfig config(long numTraces, String policies) throws ConfigException {
    String yaml = "decision_wait: 1s\nnum_traces: " + numTraces + "\n" + policies;
    return new ConfigBinder()
        .bind(yaml, "tail_sampling.yaml", TailSamplingConfig.class, TailSamplingConfig.DEFAULT);
  }

  static Processor processor(Scheduler clock, BatchConsumer next) throws ConfigException {
    return processor(clock, next, 1000, POLICIES);
  }

  static Processor processor(Scheduler clock, BatchConsumer next, long numTraces, String policies)
      throws ConfigException {
    return new TailSamplingProcessorFactory()
        .create(
            new ComponentSettings(
                ComponentId.parse("tail_sampling"),
                ComponentKind.PROCESSOR,
                new MetricRegistry(),
                clock),
            config(numTraces, policies),
            Signal.TRACES,
            next);
  }

  @Benchmark
  public long sluice() {
    OtlpIndex index = indexes[next++ & (REQUESTS - 1)];
    processor.consume(Batch.of(index));
    clock.advance(TimeUnit.SECONDS.toNanos(1));
    long sampled = sink.spans;
    sink.spans = 0;
    return sampled;
  }

  @Benchmark
  public long protobufJava() throws InvalidProtocolBufferException {
    ExportTraceServiceRequest request =
        ExportTraceServiceRequest.parseFrom(requests[next++ & (REQUESTS - 1)]);
    return naive.decide(request).getResourceSpansList().stream()
        .flatMap(r -> r.getScopeSpansList().stream())
        .mapToLong(ScopeSpans::getSpansCount)
        .sum();
  }

  /**
   * The Collector's way over objects: each trace's spans copied into a {@code ResourceSpans} of
   * their own, appended to the trace's entry in a map by trace ID that holds at most 1000 traces
   * (the oldest forgotten first), as the Collector's {@code idToTrace} and its delete queue; the
   * traces waiting are decided over their objects, and the sampled ones gathered in one request.
   */
  static final class NaiveTailSampling {
    static final class Trace {
      final List<ResourceSpans> batches = new ArrayList<>();
      long spanCount;
      boolean decided;
    }

    final Map<ByteString, Trace> traces = new LinkedHashMap<>();
    final List<Trace> waiting = new ArrayList<>();

    /** Takes {@code request}'s spans, then decides every waiting trace. */
    ExportTraceServiceRequest decide(ExportTraceServiceRequest request) {
      for (ResourceSpans resource : request.getResourceSpansList()) {
        for (ScopeSpans scope : resource.getScopeSpansList()) {
          Map<ByteString, ScopeSpans.Builder> copies = new LinkedHashMap<>();
          for (Span span : scope.getSpansList()) {
            copies
                .computeIfAbsent(
                    span.getTraceId(),
                    id ->
                        ScopeSpans.newBuilder()
                            .setScope(scope.getScope())
                            .setSchemaUrl(scope.getSchemaUrl()))
                .addSpans(span);
          }
          copies.forEach(
              (id, copy) -> {
                Trace trace = traces.get(id);
                if (trace == null) {
                  trace = new Trace();
                  traces.put(id, trace);
                  waiting.add(trace);
                }
                trace.spanCount += copy.getSpansCount();
                trace.batches.add(
                    ResourceSpans.newBuilder()
                        .setResource(resource.getResource())
                        .setSchemaUrl(resource.getSchemaUrl())
                        .addScopeSpans(copy)
                        .build());
              });
        }
      }
      ExportTraceServiceRequest.Builder sampled = ExportTraceServiceRequest.newBuilder();
      for (Trace trace : waiting) {
        trace.decided = true;
        if (sampled(trace.batches)) {
          sampled.addAllResourceSpans(trace.batches);
        }
        trace.batches.clear();
      }
      waiting.clear();
      var oldest = traces.entrySet().iterator();
      while (traces.size() > 1000) {
        oldest.next();
        oldest.remove();
      }
      return sampled.build();
    }

    static boolean sampled(List<ResourceSpans> batches) {
      for (ResourceSpans batch : batches) {
        if (sampled(batch)) {
          return true;
        }
      }
      return latency(batches) > SLOW_MILLIS;
    }

    /** The trace's duration in whole milliseconds, from its earliest start to its latest end. */
    static long latency(List<ResourceSpans> batches) {
      long earliest = Long.MAX_VALUE;
      long latest = Long.MIN_VALUE;
      for (ResourceSpans batch : batches) {
        for (ScopeSpans scope : batch.getScopeSpansList()) {
          for (Span span : scope.getSpansList()) {
            earliest = Math.min(earliest, span.getStartTimeUnixNano());
            latest = Math.max(latest, span.getEndTimeUnixNano());
          }
        }
      }
      return (latest - earliest) / 1_000_000;
    }

    /** Whether a span of {@code batch} has the status ERROR or the method {@link #METHOD}. */
    static boolean sampled(ResourceSpans batch) {
      for (ScopeSpans scope : batch.getScopeSpansList()) {
        for (Span span : scope.getSpansList()) {
          if (span.getStatus().getCode() == Status.StatusCode.STATUS_CODE_ERROR) {
            return true;
          }
          for (KeyValue attribute : span.getAttributesList()) {
            if (attribute.getKey().equals("http.request.method")
                && attribute.getValue().getStringValue().equals(METHOD)) {
              return true;
            }
          }
        }
      }
      return false;
    }
  }

  /** Counts the spans handed on, and lets go of them. */
  static final class Sink implements BatchConsumer {
    long spans;

    @Override
    public Admission consume(Batch batch) {
      spans += batch.unitCount();
      batch.clear();
      return Admission.ACCEPTED;
    }
  }

  /** A clock the benchmark moves, running the timers that fall due. */
  static final class ManualClock implements Scheduler {
    private long now;
    private final List<long[]> dues = new ArrayList<>();
    private final List<Runnable> tasks = new ArrayList<>();

    @Override
    public long nanoTime() {
      return now;
    }

    @Override
    public Timer schedule(Runnable task, long delayNanos) {
      long[] due = {now + delayNanos};
      dues.add(due);
      tasks.add(task);
      return () -> due[0] = Long.MAX_VALUE;
    }

    void advance(long nanos) {
      now += nanos;
      for (int i = 0; i < tasks.size(); i++) {
        if (dues.get(i)[0] <= now) {
          Runnable task = tasks.get(i);
          dues.remove(i);
          tasks.remove(i);
          i--;
          task.run();
        }
      }
    }
  }
}
