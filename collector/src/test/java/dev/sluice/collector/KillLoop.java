package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.testkit.SequencedSpans;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.MetricsServiceGrpc;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The loop the durable crash tests share: {@code bin/sluice} with the test's configuration receives
 * steady load from a client that records what was answered OK, and is killed with SIGKILL {@code
 * kills} times, about half of them at chosen points of its write-ahead log (halfway through a
 * write, before a force, just after a segment roll, before a progress write, just after a
 * deletion), then restarted each time. The last run stops the load and waits until everything
 * answered OK has arrived at the backend. Each test then checks what arrived its own way.
 *
 * @param kills the runs that end in a SIGKILL; one more run follows them
 * @param seed of the random choices: crash points, refusals, how long each run lasts
 * @param numbering what the load numbers, and how its requests are made
 * @param backlog how the backend leaves data in the log at each kill
 * @param config the daemon's configuration text
 * @param arrived what the backend has so far, in the numbers of {@code numbering}
 * @param arrivedAs the last run's assertion message, with the count answered OK as its argument
 */
record KillLoop(
    int kills,
    long seed,
    Numbering numbering,
    Backlog backlog,
    ConfigText config,
    Supplier<BitSet> arrived,
    String arrivedAs) {
  static final int SPANS_PER_REQUEST = 50;
  static final int SPANS_PER_TRACE = 75;
  private static final String[] CRASH_POINTS = {
    "torn-write", "force", "roll", "progress", "delete"
  };

  /** The metric of {@link Numbering#POINTS}. */
  static final String POINTS_METRIC = "kill_points";

  /** The time of point 0 of {@link Numbering#POINTS}; point {@code n} is {@code n} ms later. */
  static final long POINTS_EPOCH_NANOS = 1_700_000_000_000_000_000L;

  /**
   * The backend the daemon exports to, as the loop drives it: {@link #otlp} for the OTLP sink, or a
   * test's own (such as {@link RemoteWriteReceiver}).
   */
  interface Backend {
    /** The endpoint the daemon's configuration names. */
    String endpoint();

    /** Refuses the next {@code calls} calls with an answer the exporter retries. */
    void refuseNext(int calls);

    /** Holds every call until {@link #release()}. */
    void hold();

    void release();

    /** Waits until {@code condition} holds, re-checked as calls arrive; false after the timeout. */
    boolean await(Supplier<Boolean> condition, long timeout, TimeUnit unit)
        throws InterruptedException;
  }

  /** {@code sink} as the loop's backend; its refusals are gRPC {@code UNAVAILABLE}. */
  static Backend otlp(OtlpSink sink) {
    return new Backend() {
      @Override
      public String endpoint() {
        return sink.endpoint();
      }

      @Override
      public void refuseNext(int calls) {
        for (int i = 0; i < calls; i++) {
          sink.failNext(KillLoop::unavailable);
        }
      }

      @Override
      public void hold() {
        sink.hold();
      }

      @Override
      public void release() {
        sink.release();
      }

      @Override
      public boolean await(Supplier<Boolean> condition, long timeout, TimeUnit unit)
          throws InterruptedException {
        return sink.await(condition, timeout, unit);
      }
    };
  }

  /** The daemon's configuration, given its port, the backend's endpoint and the log's directory. */
  @FunctionalInterface
  interface ConfigText {
    String of(int port, String sink, Path wal);
  }

  /** What the load numbers: what {@code sent} counts and {@code answered} holds. */
  enum Numbering {
    /** Spans; every request's spans have the service name {@code svc}. */
    SPANS,
    /**
     * Spans, as {@link #SPANS}, in traces of {@value KillLoop#SPANS_PER_TRACE} spans each (the
     * trace ID holds the span number divided by it), so that a trace's spans come in two or three
     * requests.
     */
    TRACES,
    /**
     * Requests (first span / {@value KillLoop#SPANS_PER_REQUEST}); each request's spans have a
     * service name of their own, {@code svc-<first span>}.
     */
    REQUESTS,
    /**
     * Calls between two services, {@value KillLoop#SPANS_PER_REQUEST} per number, each in a trace
     * of its own: a request with the client spans of them all (service {@code client-<number>}),
     * then a request with their server spans ({@code server-<number>}). A number is answered OK
     * when both requests are.
     */
    EDGES,
    /**
     * Gauge points of the metric {@value KillLoop#POINTS_METRIC}, {@value
     * KillLoop#SPANS_PER_REQUEST} a request, service {@code svc}: each point has its number as the
     * attribute {@code n} and as its value, and a time of its own.
     */
    POINTS;

    /** How far one number advances the numbering. */
    int step() {
      return this == SPANS || this == TRACES || this == POINTS ? SPANS_PER_REQUEST : 1;
    }

    /**
     * The requests of {@code number}, sent in order: OTLP traces, or metrics for {@link #POINTS}.
     */
    List<Message> requests(int number) {
      if (this == TRACES) {
        return List.of(inTraces(number));
      }
      if (this == POINTS) {
        return List.of(points(number));
      }
      if (this != EDGES) {
        int first = firstSpan(number);
        return List.of(SequencedSpans.request(service(first), first, SPANS_PER_REQUEST));
      }
      return List.of(edgeHalf(number, true), edgeHalf(number, false));
    }

    private static ExportTraceServiceRequest edgeHalf(int number, boolean client) {
      ScopeSpans.Builder scope = ScopeSpans.newBuilder();
      for (int call = 0; call < SPANS_PER_REQUEST; call++) {
        ByteBuffer trace = ByteBuffer.allocate(16).putLong(0x5e0000000000L).putInt(number);
        trace.putInt(call);
        ByteString clientSpan =
            ByteString.copyFrom(ByteBuffer.allocate(8).putLong(2L * call + 1).array());
        Span.Builder span =
            Span.newBuilder()
                .setTraceId(ByteString.copyFrom(trace.array()))
                .setName("call")
                .setStartTimeUnixNano(1_000_000L)
                .setEndTimeUnixNano(2_000_000L);
        if (client) {
          span.setSpanId(clientSpan).setKind(Span.SpanKind.SPAN_KIND_CLIENT);
        } else {
          span.setSpanId(ByteString.copyFrom(ByteBuffer.allocate(8).putLong(2L * call + 2).array()))
              .setParentSpanId(clientSpan)
              .setKind(Span.SpanKind.SPAN_KIND_SERVER);
        }
        scope.addSpans(span);
      }
      return SequencedSpans.request((client ? "client-" : "server-") + number, scope);
    }

    /**
     * Spans {@code first} on, each in the trace of its number / {@value KillLoop#SPANS_PER_TRACE}.
     */
    private static ExportTraceServiceRequest inTraces(int first) {
      ExportTraceServiceRequest.Builder request =
          SequencedSpans.request("svc", first, SPANS_PER_REQUEST).toBuilder();
      ScopeSpans.Builder scope = request.getResourceSpansBuilder(0).getScopeSpansBuilder(0);
      for (int i = 0; i < scope.getSpansCount(); i++) {
        int trace = (first + i) / SPANS_PER_TRACE;
        scope
            .getSpansBuilder(i)
            .setTraceId(
                ByteString.copyFrom(
                    ByteBuffer.allocate(16).putLong(0x7a11L).putLong(trace).array()))
            .setSpanId(ByteString.copyFrom(ByteBuffer.allocate(8).putLong(first + i + 1L).array()));
      }
      return request.build();
    }

    /** Gauge points {@code first} on, each with its number as attribute {@code n} and value. */
    private static ExportMetricsServiceRequest points(int first) {
      Gauge.Builder gauge = Gauge.newBuilder();
      for (int n = first; n < first + SPANS_PER_REQUEST; n++) {
        gauge.addDataPoints(
            NumberDataPoint.newBuilder()
                .setTimeUnixNano(POINTS_EPOCH_NANOS + n * 1_000_000L)
                .setAsDouble(n)
                .addAttributes(
                    KeyValue.newBuilder()
                        .setKey("n")
                        .setValue(AnyValue.newBuilder().setIntValue(n))));
      }
      return ExportMetricsServiceRequest.newBuilder()
          .addResourceMetrics(
              ResourceMetrics.newBuilder()
                  .setResource(
                      Resource.newBuilder()
                          .addAttributes(
                              KeyValue.newBuilder()
                                  .setKey("service.name")
                                  .setValue(AnyValue.newBuilder().setStringValue("svc"))))
                  .addScopeMetrics(
                      ScopeMetrics.newBuilder()
                          .addMetrics(Metric.newBuilder().setName(POINTS_METRIC).setGauge(gauge))))
          .build();
    }

    int firstSpan(int number) {
      return this == SPANS || this == TRACES ? number : number * SPANS_PER_REQUEST;
    }

    String service(int firstSpan) {
      return this == SPANS || this == TRACES ? "svc" : "svc-" + firstSpan;
    }
  }

  /** How the backend leaves data in the log at each kill. */
  enum Backlog {
    /**
     * In about a third of the runs the backend refuses its next two calls; the kill comes at a
     * random moment, without waiting for what the run before left owed.
     */
    REFUSALS,
    /**
     * Deliveries at first, until what the run before left owed has arrived; then the backend stops
     * answering, and the kill comes while the exporter waits on it with the log holding what it has
     * not delivered.
     */
    HELD_CALLS
  }

  /**
   * What a loop ended with: the kills made, the count sent and the numbers answered OK (in the
   * loop's numbering), and when the loop started ({@link System#nanoTime()}).
   */
  record Result(int kills, int sent, BitSet answered, long startedNanos) {
    /**
     * Checks the spans that arrived at {@code sink}: only sent spans, and every span answered OK;
     * then prints the summary line, led by {@code label}.
     */
    void assertEveryAnsweredSpanDelivered(String label, OtlpSink sink) {
      assertEveryAnsweredDelivered(label, "spans", BackpressureTest.spanNumbers(sink));
    }

    /**
     * Checks the numbers that {@code arrived} (once per arrival) of the {@code items} the load
     * sent: only sent ones, and every one answered OK; then prints the summary line, led by {@code
     * label}.
     */
    void assertEveryAnsweredDelivered(String label, String items, List<Integer> arrived) {
      BitSet distinct = new BitSet();
      int duplicates = 0;
      for (int number : arrived) {
        assertThat(number).as("only sent %s arrive", items).isBetween(0, sent - 1);
        if (distinct.get(number)) {
          duplicates++;
        }
        distinct.set(number);
      }
      BitSet missing = (BitSet) answered.clone();
      missing.andNot(distinct);
      assertThat(missing.cardinality())
          .as("answered %s never delivered: %s", items, missing)
          .isZero();
      System.out.printf(
          "%s: %d kills, %d %s sent, %d answered OK, %d delivered, %d duplicates, %d s%n",
          label,
          kills,
          sent,
          items,
          answered.cardinality(),
          distinct.cardinality(),
          duplicates,
          TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startedNanos));
    }

    /**
     * Checks that every number answered OK is among those {@code counted} by a connector behind the
     * log, and that more were answered than the daemon was killed; then prints the summary line,
     * led by {@code label}, with {@code recounts} (numbers counted again after a replay).
     */
    void assertEveryAnsweredCounted(String label, BitSet counted, int recounts) {
      BitSet missing = (BitSet) answered.clone();
      missing.andNot(counted);
      assertThat(missing.cardinality()).as("answered numbers never counted: %s", missing).isZero();
      System.out.printf(
          "%s: %d kills, %d numbers sent, %d answered OK, %d counted, %d counted again, %d s%n",
          label,
          kills,
          sent,
          answered.cardinality(),
          counted.cardinality(),
          recounts,
          TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startedNanos));
      assertThat(answered.cardinality()).isGreaterThan(kills);
    }
  }

  /**
   * Runs the loop against {@code backend}. When something answered OK has not arrived at the end,
   * the failure names what is missing and the run (and crash point) that answered it; each run's
   * output is in {@code dir}, {@code sluice-<run>.log}.
   */
  Result run(Path dir, Backend backend) throws Exception {
    Path launcher = Path.of("..", "bin", "sluice").toAbsolutePath().normalize();
    Random random = new Random(seed);
    BitSet answered = new BitSet();
    int[] sent = {0};
    int killed = 0;
    List<String> runs = new ArrayList<>();
    int port = DaemonIT.freePort();
    Path configFile = dir.resolve("sluice.yaml");
    Files.writeString(configFile, config.of(port, backend.endpoint(), dir.resolve("wal")));
    long started = System.nanoTime();
    for (int run = 0; run <= kills; run++) {
      boolean last = run == kills;
      String crash = "";
      if (!last && random.nextBoolean()) {
        crash = CRASH_POINTS[random.nextInt(CRASH_POINTS.length)] + ":" + (1 + random.nextInt(20));
      }
      if (backlog == Backlog.REFUSALS && !last && random.nextInt(3) == 0) {
        backend.refuseNext(2);
      }
      Path log = dir.resolve("sluice-" + run + ".log");
      int firstNumber = sent[0];
      Process daemon = start(launcher, configFile, log, crash);
      try {
        awaitListening(port, daemon, log);
        AtomicBoolean stop = new AtomicBoolean();
        Thread client = new Thread(() -> load(port, sent, answered, stop), "load");
        client.start();
        if (last) {
          Thread.sleep(500);
          stop.set(true);
          client.join(30_000);
          runs.add(describeRun(run, "last run", firstNumber, sent[0]));
          int expected = answered.cardinality();
          assertThat(
                  backend.await(() -> containsAll(arrived.get(), answered), 60, TimeUnit.SECONDS))
              .as(() -> String.format(arrivedAs, expected) + missing(answered, runs, dir))
              .isTrue();
          daemon.destroy();
          assertThat(daemon.waitFor(60, TimeUnit.SECONDS)).isTrue();
        } else {
          if (backlog == Backlog.HELD_CALLS) {
            awaitArrived(backend, daemon, snapshot(answered));
            runFor(daemon, 100 + random.nextInt(400));
            backend.hold();
            runFor(daemon, 200 + random.nextInt(600));
          } else {
            runFor(daemon, 300 + random.nextInt(1200));
          }
          boolean crashed = !daemon.isAlive();
          daemon.destroyForcibly();
          assertThat(daemon.waitFor(30, TimeUnit.SECONDS)).isTrue();
          if (backlog == Backlog.HELD_CALLS) {
            backend.release();
          }
          killed++;
          stop.set(true);
          client.join(30_000);
          String end =
              crash.isEmpty()
                  ? "SIGKILL"
                  : "crash point " + crash + (crashed ? " (reached)" : " (not reached, SIGKILL)");
          runs.add(describeRun(run, end, firstNumber, sent[0]));
        }
      } finally {
        daemon.destroyForcibly();
        if (backlog == Backlog.HELD_CALLS) {
          backend.release();
        }
      }
    }
    return new Result(killed, sent[0], answered, started);
  }

  /** {@code run}, how it ended and the numbers handed out while it ran. */
  private static String describeRun(int run, String end, int firstNumber, int nextNumber) {
    return String.format(
        "run %d (%s): numbers %d to %d",
        run, end, firstNumber, Math.max(firstNumber, nextNumber - 1));
  }

  /** What of {@code answered} has not arrived, as ranges, and the runs, for the failure message. */
  private String missing(BitSet answered, List<String> runs, Path dir) {
    BitSet missing = snapshot(answered);
    missing.andNot(arrived.get());
    StringBuilder text =
        new StringBuilder()
            .append("\n")
            .append(missing.cardinality())
            .append(" answered OK and not arrived: ");
    int ranges = 0;
    for (int from = missing.nextSetBit(0); from >= 0; from = missing.nextSetBit(from)) {
      int to = missing.nextClearBit(from);
      if (ranges++ == 20) {
        text.append(" ...");
        break;
      }
      text.append(ranges > 1 ? ", " : "").append(from).append('-').append(to - 1);
      from = to;
    }
    for (String run : runs) {
      text.append("\n").append(run);
    }
    return text.append("\nthe daemon's output: ")
        .append(dir)
        .append("/sluice-<run>.log")
        .toString();
  }

  /** The configuration's {@code extensions:} section: the log in {@code wal}, in small segments. */
  static String fileStorage(Path wal) {
    return String.join(
        "\n",
        "extensions:",
        "  file_storage:",
        "    directory: " + wal,
        "    segment_size_mib: 1",
        "    max_size_mib: 256");
  }

  /**
   * The {@code otlp} exporter to {@code sink}, under {@code exporters:}: its sending queue in the
   * log, quick retries, and a timeout short enough that a held call is retried.
   */
  static String durableOtlpExporter(String sink) {
    return String.join(
        "\n",
        "  otlp:",
        "    endpoint: " + sink,
        "    tls:",
        "      insecure: true",
        "    timeout: 1s",
        "    retry_on_failure:",
        "      initial_interval: 20ms",
        "      max_interval: 100ms",
        "    sending_queue:",
        "      storage: file_storage");
  }

  /** The spans that have arrived at {@code sink} so far. */
  static BitSet deliveredSpans(OtlpSink sink) {
    BitSet delivered = new BitSet();
    for (int number : BackpressureTest.spanNumbers(sink)) {
      delivered.set(number);
    }
    return delivered;
  }

  /**
   * Each point of the metric {@code name} that reached {@code sink}, as {request, value}: the
   * request from the service name {@code svc-<first span>} of {@link Numbering#REQUESTS}.
   */
  static List<long[]> requestPoints(OtlpSink sink, String name) {
    List<long[]> points = new ArrayList<>();
    for (ExportMetricsServiceRequest request : sink.metrics()) {
      for (ResourceMetrics resource : request.getResourceMetricsList()) {
        String service = null;
        for (KeyValue attribute : resource.getResource().getAttributesList()) {
          if (attribute.getKey().equals("service.name")) {
            service = attribute.getValue().getStringValue();
          }
        }
        for (ScopeMetrics scope : resource.getScopeMetricsList()) {
          for (Metric metric : scope.getMetricsList()) {
            if (!metric.getName().equals(name)) {
              continue;
            }
            for (NumberDataPoint point : metric.getSum().getDataPointsList()) {
              int first = Integer.parseInt(service.substring("svc-".length()));
              points.add(new long[] {first / SPANS_PER_REQUEST, point.getAsInt()});
            }
          }
        }
      }
    }
    return points;
  }

  /** The requests of {request, value} pairs. */
  static BitSet requests(List<long[]> counts) {
    BitSet requests = new BitSet();
    for (long[] count : counts) {
      requests.set((int) count[0]);
    }
    return requests;
  }

  /**
   * Waits until everything of {@code answered} has arrived, for at most 30 s, or until the daemon
   * ends (a crash point reached): the kill test goes on either way.
   */
  private void awaitArrived(Backend backend, Process daemon, BitSet answered)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (daemon.isAlive()
        && System.nanoTime() - deadline < 0
        && !backend.await(() -> containsAll(arrived.get(), answered), 100, TimeUnit.MILLISECONDS)) {
      // Asked again while the daemon runs.
    }
  }

  private static BitSet snapshot(BitSet answered) {
    synchronized (answered) {
      return (BitSet) answered.clone();
    }
  }

  /** Lets the daemon run {@code millis}, or until it ends (a crash point reached). */
  private static void runFor(Process daemon, long millis) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    while (daemon.isAlive() && System.nanoTime() - deadline < 0) {
      Thread.sleep(20);
    }
  }

  private static boolean containsAll(BitSet arrived, BitSet answered) {
    synchronized (answered) {
      BitSet missing = (BitSet) answered.clone();
      missing.andNot(arrived);
      return missing.isEmpty();
    }
  }

  private static StatusRuntimeException unavailable() {
    return Status.UNAVAILABLE.asRuntimeException();
  }

  /**
   * Sends the numbering's requests until stopped; records what each answered OK numbered, in the
   * loop's numbering.
   */
  private void load(int port, int[] sent, BitSet answered, AtomicBoolean stop) {
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    try {
      while (!stop.get()) {
        int number;
        synchronized (sent) {
          number = sent[0];
          sent[0] += numbering.step();
        }
        try {
          for (Message request : numbering.requests(number)) {
            if (request instanceof ExportMetricsServiceRequest metrics) {
              MetricsServiceGrpc.newBlockingStub(channel)
                  .withDeadlineAfter(5, TimeUnit.SECONDS)
                  .export(metrics);
            } else {
              TraceServiceGrpc.newBlockingStub(channel)
                  .withDeadlineAfter(5, TimeUnit.SECONDS)
                  .export((ExportTraceServiceRequest) request);
            }
          }
          synchronized (answered) {
            answered.set(number, number + numbering.step());
          }
        } catch (RuntimeException refusedOrKilled) {
          if (stop.get()) {
            return;
          }
          try {
            Thread.sleep(20);
          } catch (InterruptedException e) {
            return;
          }
        }
      }
    } finally {
      channel.shutdownNow();
    }
  }

  /**
   * Starts {@code bin/sluice} with {@code config}, its output to {@code log}; a non-empty {@code
   * crash} names the log's crash point ({@code point:count}).
   */
  static Process start(Path launcher, Path config, Path log, String crash) throws IOException {
    ProcessBuilder builder =
        new ProcessBuilder(launcher.toString(), "--config", config.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    if (!crash.isEmpty()) {
      builder.environment().put("JAVA_TOOL_OPTIONS", "-Dsluice.wal.crash=" + crash);
    }
    return builder.start();
  }

  static void awaitListening(int port, Process daemon, Path log) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() - deadline < 0) {
      if (!daemon.isAlive()) {
        // A crash point reached while replaying: the next run goes on from there.
        return;
      }
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
        return;
      } catch (IOException notYet) {
        Thread.sleep(50);
      }
    }
    throw new AssertionError("the daemon did not listen in time:\n" + Files.readString(log));
  }
}
