package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.testkit.Await;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The load-balancing tier under a SIGKILL: an agent Sluice (in this JVM) with the {@code
 * loadbalancing} exporter over a static list of three backend Sluices, each {@code bin/sluice} in
 * its own JVM exporting to its own protobuf-java gRPC sink. A client sends traces whose spans come
 * over several requests. One backend is killed with SIGKILL mid-run and restarted later on the same
 * port and directory.
 *
 * <p>Why the backends are durable ({@code file_storage} and {@code sending_queue.storage}): a
 * backend answers the agent once the data is in its pipeline, so what a killed backend had accepted
 * and not yet delivered is gone with an in-memory queue, and the agent, having been answered OK,
 * has no reason to send it again. That loss is the backend's, not the load balancer's, and a test
 * that demanded none of it would be dishonest. With durable backends, what the killed one had
 * accepted is in its write-ahead log and delivered by its restart, so the test can demand that
 * nothing the agent answered OK is lost: every accepted span ID arrives at some sink. A span ID
 * that arrives more than once is a duplicate (for example a send the backend logged but could not
 * answer before it died, which the agent then re-routed); duplicates are counted, reported and
 * allowed, since delivery is at least once.
 *
 * <p>Traces are sent in windows of {@value #REQUESTS_PER_WINDOW} requests, each request carrying
 * spans of every trace of its window. A window sent wholly while the backend was down must end up
 * whole on one backend, not the dead one; so must a window sent wholly after the restarted backend
 * took its keys back. Windows that straddle the kill or the return may be split: their traces
 * started on one backend and went on on another, which is what moving keys means.
 */
class LoadBalancingKillIT {
  private static final int BACKENDS = 3;
  private static final int VICTIM = 1;
  private static final int TRACES_PER_WINDOW = 20;
  private static final int REQUESTS_PER_WINDOW = 3;
  private static final int SPANS_PER_TRACE_PER_REQUEST = 2;
  private static final int SPANS_PER_REQUEST = TRACES_PER_WINDOW * SPANS_PER_TRACE_PER_REQUEST;
  private static final long PACE_MILLIS = 40;

  /** Bounds of the run: the client stops at whichever comes first. */
  private static final int MAX_REQUESTS = 1_000;

  private static final long MAX_SEND_SECONDS = 45;

  private static final long KILL_AFTER_MILLIS = 4_000;
  private static final long DOWN_MILLIS = 5_000;

  /**
   * Before the kill the victim's sink refuses (UNAVAILABLE) for this long, topped up with this many
   * refusals every step, so that the victim's log holds what it accepted meanwhile.
   */
  private static final long REFUSE_BEFORE_KILL_MILLIS = 1_000;

  private static final long REFUSE_STEP_MILLIS = 100;
  private static final int REFUSALS_PER_STEP = 20;

  /** How long the client goes on after the restarted backend took its keys back. */
  private static final long AFTER_RETURN_MILLIS = 3_000;

  /**
   * Windows that start this long after an event are judged by it: the agent's sends lag its answers
   * by the queue, and a backend is left out 5 s after a failure before it is tried again.
   */
  private static final long SETTLE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

  private static final long LISTEN_SECONDS = 40;
  private static final long DELIVERY_SECONDS = 30;

  /** One request the client sent: when, and whether the agent answered OK. */
  private record Sent(int number, long startNanos, long endNanos, boolean accepted) {}

  private static int windowOf(int request) {
    return request / REQUESTS_PER_WINDOW;
  }

  private static byte[] traceId(int window, int trace) {
    return ByteBuffer.allocate(16)
        .putLong(0x4b11_0000_0000_0000L | ((long) window << 16) | trace)
        .putLong((window * 0x9e3779b97f4a7c15L) ^ trace)
        .array();
  }

  private static ExportTraceServiceRequest request(int number) {
    int window = windowOf(number);
    ScopeSpans.Builder scope = ScopeSpans.newBuilder();
    for (int s = 0; s < SPANS_PER_TRACE_PER_REQUEST; s++) {
      for (int t = 0; t < TRACES_PER_WINDOW; t++) {
        long spanId = ((long) number << 32) | ((long) t << 8) | s;
        scope.addSpans(
            Span.newBuilder()
                .setTraceId(ByteString.copyFrom(traceId(window, t)))
                .setSpanId(ByteString.copyFrom(ByteBuffer.allocate(8).putLong(spanId).array()))
                .setName("request-" + number));
      }
    }
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder()
                .setResource(
                    Resource.newBuilder()
                        .addAttributes(
                            KeyValue.newBuilder()
                                .setKey("service.name")
                                .setValue(AnyValue.newBuilder().setStringValue("checkout"))))
                .addScopeSpans(scope))
        .build();
  }

  private static String spanIdHex(int request, int trace, int span) {
    long spanId = ((long) request << 32) | ((long) trace << 8) | span;
    return HexFormat.of().formatHex(ByteBuffer.allocate(8).putLong(spanId).array());
  }

  /** What arrived: per sink, trace ID -> spans; and span ID -> how often, over every sink. */
  private record Arrivals(List<Map<String, Integer>> tracesPerSink, Map<String, Integer> spanIds) {
    long delivered() {
      return spanIds.values().stream().mapToLong(Integer::longValue).sum();
    }

    long duplicates() {
      return delivered() - spanIds.size();
    }

    /** The sinks that got spans of {@code trace}. */
    Set<Integer> sinksOf(String trace) {
      Set<Integer> sinks = new HashSet<>();
      for (int i = 0; i < tracesPerSink.size(); i++) {
        if (tracesPerSink.get(i).containsKey(trace)) {
          sinks.add(i);
        }
      }
      return sinks;
    }
  }

  private static Arrivals arrivals(List<OtlpSink> sinks) {
    List<Map<String, Integer>> traces = new ArrayList<>();
    Map<String, Integer> spanIds = new HashMap<>();
    HexFormat hex = HexFormat.of();
    for (OtlpSink sink : sinks) {
      Map<String, Integer> here = new HashMap<>();
      for (ExportTraceServiceRequest request : sink.traces()) {
        for (ResourceSpans resource : request.getResourceSpansList()) {
          for (ScopeSpans scope : resource.getScopeSpansList()) {
            for (Span span : scope.getSpansList()) {
              here.merge(hex.formatHex(span.getTraceId().toByteArray()), 1, Integer::sum);
              spanIds.merge(hex.formatHex(span.getSpanId().toByteArray()), 1, Integer::sum);
            }
          }
        }
      }
      traces.add(here);
    }
    return new Arrivals(traces, spanIds);
  }

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void killingABackendMovesItsKeysAndLosesNothingAccepted(@TempDir Path dir) throws Exception {
    long testStart = System.nanoTime();
    Path launcher = Path.of("..", "bin", "sluice").toAbsolutePath().normalize();
    List<OtlpSink> sinks = new ArrayList<>();
    List<Integer> ports = new ArrayList<>();
    List<Path> configs = new ArrayList<>();
    Process[] daemons = new Process[BACKENDS];
    Collector agent = null;
    try {
      for (int i = 0; i < BACKENDS; i++) {
        OtlpSink sink = OtlpSink.start();
        sinks.add(sink);
        int port = DaemonIT.freePort();
        ports.add(port);
        Path config = dir.resolve("backend-" + i + ".yaml");
        Files.writeString(
            config, backendConfig(port, sink.endpoint(), dir.resolve("backend-" + i + "-wal")));
        configs.add(config);
      }
      for (int i = 0; i < BACKENDS; i++) {
        daemons[i] = start(launcher, configs.get(i), dir.resolve("backend-" + i + "-0.log"));
      }
      for (int i = 0; i < BACKENDS; i++) {
        awaitListening(ports.get(i), daemons[i], dir.resolve("backend-" + i + "-0.log"));
      }
      agent = TestCollectors.start(agentConfig(ports), Collector.Options.defaults());

      List<Sent> sent = new ArrayList<>();
      AtomicBoolean stop = new AtomicBoolean();
      Collector client = agent;
      Thread sender = new Thread(() -> load(client, sent, stop), "lb-kill-client");
      sender.start();

      Thread.sleep(KILL_AFTER_MILLIS - REFUSE_BEFORE_KILL_MILLIS);
      // The victim's sink refuses for a while, so the victim holds accepted data when it dies.
      long refuseUntil =
          System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(REFUSE_BEFORE_KILL_MILLIS);
      while (System.nanoTime() - refuseUntil < 0) {
        sinks.get(VICTIM).failNext(refusals(REFUSALS_PER_STEP));
        Thread.sleep(REFUSE_STEP_MILLIS);
      }
      daemons[VICTIM].destroyForcibly();
      assertThat(daemons[VICTIM].waitFor(30, TimeUnit.SECONDS)).isTrue();
      long killNanos = System.nanoTime();
      long victimAtKill = sinks.get(VICTIM).spans();
      int lastBeforeKill = lastRequestBefore(sent, killNanos);

      Thread.sleep(DOWN_MILLIS);
      long restartNanos = System.nanoTime();
      Path restartLog = dir.resolve("backend-" + VICTIM + "-1.log");
      daemons[VICTIM] = start(launcher, configs.get(VICTIM), restartLog);
      awaitListening(ports.get(VICTIM), daemons[VICTIM], restartLog);
      long listeningNanos = System.nanoTime();

      // The restarted backend takes its keys back once the agent tries it again: the first span of
      // a request sent after it listened that arrives at its sink.
      int firstAfterRestart = firstRequestAfter(sent, listeningNanos);
      boolean returned =
          sinks
              .get(VICTIM)
              .await(
                  () -> hasRequestFrom(sinks.get(VICTIM), firstAfterRestart),
                  DOWN_MILLIS + 10_000,
                  TimeUnit.MILLISECONDS);
      long returnNanos = System.nanoTime();
      Thread.sleep(AFTER_RETURN_MILLIS);
      stop.set(true);
      sender.join(30_000);
      assertThat(sender.isAlive()).isFalse();

      List<Sent> requests;
      synchronized (sent) {
        requests = List.copyOf(sent);
      }
      Set<String> accepted = new HashSet<>();
      Set<String> sentIds = new HashSet<>();
      for (Sent request : requests) {
        for (int t = 0; t < TRACES_PER_WINDOW; t++) {
          for (int s = 0; s < SPANS_PER_TRACE_PER_REQUEST; s++) {
            String id = spanIdHex(request.number(), t, s);
            sentIds.add(id);
            if (request.accepted()) {
              accepted.add(id);
            }
          }
        }
      }
      boolean allArrived =
          Await.within(
              Duration.ofSeconds(DELIVERY_SECONDS),
              () -> arrivals(sinks).spanIds().keySet().containsAll(accepted));

      Arrivals arrivals = arrivals(sinks);
      long replayed = spansUpTo(sinks.get(VICTIM), lastBeforeKill) - victimAtKill;
      Set<String> missing = new HashSet<>(accepted);
      missing.removeAll(arrivals.spanIds().keySet());
      Set<String> unknown = new HashSet<>(arrivals.spanIds().keySet());
      unknown.removeAll(sentIds);
      String rerouted =
          TestCollectors.prometheus(agent)
              .lines()
              .filter(line -> line.startsWith("sluice_loadbalancer_rerouted_spans_total"))
              .findFirst()
              .orElse("sluice_loadbalancer_rerouted_spans_total (none)");

      // Windows judged whole: sent wholly while the victim was dead, or after its keys came back.
      List<Integer> outageWindows = new ArrayList<>();
      List<Integer> returnedWindows = new ArrayList<>();
      Map<Integer, long[]> windows = windowTimes(requests);
      for (Map.Entry<Integer, long[]> e : windows.entrySet()) {
        long first = e.getValue()[0];
        long last = e.getValue()[1];
        if (e.getValue()[2] < REQUESTS_PER_WINDOW) {
          continue;
        }
        if (first - (killNanos + SETTLE_NANOS) > 0 && last - restartNanos < 0) {
          outageWindows.add(e.getKey());
        } else if (returned && first - (returnNanos + SETTLE_NANOS) > 0) {
          returnedWindows.add(e.getKey());
        }
      }

      System.out.printf(
          "LoadBalancingKillIT: backend %d of %d SIGKILLed after %d ms of load, restarted %d ms"
              + " later (listening after %d ms more; keys back %s); %d requests sent, %d accepted;"
              + " %d spans accepted, %d delivered (%d unique, %d duplicates), %d missing, %d never"
              + " sent; per sink %d / %d / %d; the victim's sink had %d spans at the kill and got"
              + " %d more of requests sent before it after the restart (the log's replay);"
              + " %d outage windows and %d windows after the return judged whole; %s; %d s%n",
          VICTIM,
          BACKENDS,
          KILL_AFTER_MILLIS,
          TimeUnit.NANOSECONDS.toMillis(restartNanos - killNanos),
          TimeUnit.NANOSECONDS.toMillis(listeningNanos - restartNanos),
          returned
              ? "after " + TimeUnit.NANOSECONDS.toMillis(returnNanos - listeningNanos) + " ms"
              : "never",
          requests.size(),
          requests.stream().filter(Sent::accepted).count(),
          accepted.size(),
          arrivals.delivered(),
          arrivals.spanIds().size(),
          arrivals.duplicates(),
          missing.size(),
          unknown.size(),
          sinks.get(0).spans(),
          sinks.get(1).spans(),
          sinks.get(2).spans(),
          victimAtKill,
          replayed,
          outageWindows.size(),
          returnedWindows.size(),
          rerouted,
          TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - testStart));

      // Nothing the agent answered OK is lost, and nothing arrives that was never sent.
      assertThat(allArrived).as("every accepted span arrives; missing %d", missing.size()).isTrue();
      assertThat(missing).isEmpty();
      assertThat(unknown).isEmpty();
      assertThat(arrivals.delivered()).isEqualTo(accepted.size() + arrivals.duplicates());
      assertThat(victimAtKill).as("the victim had a share before the kill").isPositive();
      assertThat(replayed).as("the victim's log held accepted spans at the kill").isPositive();
      assertThat(rerouted).containsPattern("\\} [1-9]");

      assertThat(outageWindows).as("windows sent while the victim was dead").isNotEmpty();
      for (int window : outageWindows) {
        for (int t = 0; t < TRACES_PER_WINDOW; t++) {
          String trace = HexFormat.of().formatHex(traceId(window, t));
          Set<Integer> where = arrivals.sinksOf(trace);
          assertThat(where).as("trace %s of outage window %d", trace, window).hasSize(1);
          assertThat(where).as("trace %s went to a live backend", trace).doesNotContain(VICTIM);
        }
      }
      assertThat(returned).as("the restarted backend takes its keys back").isTrue();
      assertThat(returnedWindows).as("windows sent after the return").isNotEmpty();
      boolean victimHasSome = false;
      for (int window : returnedWindows) {
        for (int t = 0; t < TRACES_PER_WINDOW; t++) {
          String trace = HexFormat.of().formatHex(traceId(window, t));
          Set<Integer> where = arrivals.sinksOf(trace);
          assertThat(where).as("trace %s of window %d after the return", trace, window).hasSize(1);
          victimHasSome |= where.contains(VICTIM);
        }
      }
      assertThat(victimHasSome).as("the restarted backend owns traces again").isTrue();
    } finally {
      if (agent != null) {
        agent.shutdown(TimeUnit.SECONDS.toNanos(5));
      }
      for (Process daemon : daemons) {
        if (daemon != null) {
          daemon.destroyForcibly();
          daemon.waitFor(10, TimeUnit.SECONDS);
        }
      }
      for (OtlpSink sink : sinks) {
        sink.close();
      }
    }
  }

  /** Per window: its first request's start, its last request's end, and how many were accepted. */
  private static Map<Integer, long[]> windowTimes(List<Sent> requests) {
    Map<Integer, long[]> windows = new HashMap<>();
    for (Sent request : requests) {
      long[] times =
          windows.computeIfAbsent(
              windowOf(request.number()), w -> new long[] {Long.MAX_VALUE, Long.MIN_VALUE, 0});
      if (times[0] == Long.MAX_VALUE || request.startNanos() - times[0] < 0) {
        times[0] = request.startNanos();
      }
      if (times[1] == Long.MIN_VALUE || request.endNanos() - times[1] > 0) {
        times[1] = request.endNanos();
      }
      times[2] += request.accepted() ? 1 : 0;
    }
    return windows;
  }

  /** The number of the first request whose window starts after {@code nanos}. */
  private static int firstRequestAfter(List<Sent> sent, long nanos) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() - deadline < 0) {
      synchronized (sent) {
        for (Sent request : sent) {
          if (request.number() % REQUESTS_PER_WINDOW == 0 && request.startNanos() - nanos > 0) {
            return request.number();
          }
        }
      }
      Thread.sleep(10);
    }
    throw new AssertionError("the client sent nothing after the restart");
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Supplier<StatusRuntimeException>[] refusals(int count) {
    Supplier<StatusRuntimeException>[] errors = new Supplier[count];
    Arrays.fill(errors, (Supplier<StatusRuntimeException>) Status.UNAVAILABLE::asRuntimeException);
    return errors;
  }

  /** The number of the last request that started before {@code nanos}, or -1. */
  private static int lastRequestBefore(List<Sent> sent, long nanos) {
    int last = -1;
    synchronized (sent) {
      for (Sent request : sent) {
        if (request.startNanos() - nanos < 0) {
          last = Math.max(last, request.number());
        }
      }
    }
    return last;
  }

  /** The spans {@code sink} got of requests numbered up to {@code last}. */
  private static long spansUpTo(OtlpSink sink, int last) {
    long spans = 0;
    for (ExportTraceServiceRequest request : sink.traces()) {
      for (ResourceSpans resource : request.getResourceSpansList()) {
        for (ScopeSpans scope : resource.getScopeSpansList()) {
          for (Span span : scope.getSpansList()) {
            if (span.getSpanId().asReadOnlyByteBuffer().getLong() >>> 32 <= last) {
              spans++;
            }
          }
        }
      }
    }
    return spans;
  }

  /** Whether {@code sink} got a span of a request numbered {@code first} or later. */
  private static boolean hasRequestFrom(OtlpSink sink, int first) {
    for (ExportTraceServiceRequest request : sink.traces()) {
      for (ResourceSpans resource : request.getResourceSpansList()) {
        for (ScopeSpans scope : resource.getScopeSpansList()) {
          for (Span span : scope.getSpansList()) {
            if (span.getSpanId().asReadOnlyByteBuffer().getLong() >>> 32 >= first) {
              return true;
            }
          }
        }
      }
    }
    return false;
  }

  /** Sends requests, paced, until stopped or a bound is hit; records each and its answer. */
  private static void load(Collector agent, List<Sent> sent, AtomicBoolean stop) {
    ManagedChannel channel = TestCollectors.channel(agent);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(MAX_SEND_SECONDS);
    try {
      for (int r = 0; r < MAX_REQUESTS && !stop.get() && System.nanoTime() - deadline < 0; r++) {
        long start = System.nanoTime();
        boolean ok;
        try {
          TraceServiceGrpc.newBlockingStub(channel)
              .withDeadlineAfter(10, TimeUnit.SECONDS)
              .export(request(r));
          ok = true;
        } catch (io.grpc.StatusRuntimeException refused) {
          ok = false;
        }
        synchronized (sent) {
          sent.add(new Sent(r, start, System.nanoTime(), ok));
        }
        Thread.sleep(PACE_MILLIS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      channel.shutdownNow();
    }
  }

  private static String agentConfig(List<Integer> ports) {
    List<String> hostnames = new ArrayList<>();
    for (int port : ports) {
      hostnames.add("127.0.0.1:" + port);
    }
    return String.join(
        "\n",
        "receivers:",
        "  otlp:",
        "    protocols:",
        "      grpc:",
        "        endpoint: 127.0.0.1:0",
        "exporters:",
        "  loadbalancing:",
        "    protocol:",
        "      otlp:",
        "        tls:",
        "          insecure: true",
        "        timeout: 2s",
        "        retry_on_failure:",
        "          initial_interval: 20ms",
        "          max_interval: 100ms",
        "          max_elapsed_time: 1s",
        "    resolver:",
        "      static:",
        "        hostnames: [" + String.join(", ", hostnames) + "]",
        "    retry_on_failure:",
        "      initial_interval: 50ms",
        "      max_interval: 200ms",
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

  /** A durable backend: otlp in on {@code port}, batch, otlp out to {@code sink}, logged first. */
  private static String backendConfig(int port, String sink, Path wal) {
    return String.join(
        "\n",
        "extensions:",
        "  file_storage:",
        "    directory: " + wal,
        "receivers:",
        "  otlp:",
        "    protocols:",
        "      grpc:",
        "        endpoint: 127.0.0.1:" + port,
        "processors:",
        "  batch:",
        "    timeout: 50ms",
        "exporters:",
        "  otlp:",
        "    endpoint: " + sink,
        "    tls:",
        "      insecure: true",
        "    retry_on_failure:",
        "      initial_interval: 20ms",
        "      max_interval: 100ms",
        "    sending_queue:",
        "      storage: file_storage",
        "service:",
        "  extensions: [file_storage]",
        "  telemetry:",
        "    metrics:",
        "      level: none",
        "  pipelines:",
        "    traces:",
        "      receivers: [otlp]",
        "      processors: [batch]",
        "      exporters: [otlp]",
        "");
  }

  private static Process start(Path launcher, Path config, Path log) throws IOException {
    return new ProcessBuilder(launcher.toString(), "--config", config.toString())
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }

  private static void awaitListening(int port, Process daemon, Path log) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LISTEN_SECONDS);
    while (System.nanoTime() - deadline < 0) {
      if (!daemon.isAlive()) {
        throw new AssertionError("the backend exited:\n" + Files.readString(log));
      }
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
        return;
      } catch (IOException notYet) {
        Thread.sleep(50);
      }
    }
    throw new AssertionError("the backend did not listen in time:\n" + Files.readString(log));
  }
}
