package dev.sluice.bench.load;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.pdata.Signal;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sluice-bench generate}: the load generator. */
@Command(
    name = "generate",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Sends OTLP requests, each distinct request encoded once, to a collector on loopback;"
          + " measures throughput, latency and (with --collector-pid) the collector's CPU and"
          + " memory over a measured window after a warm-up.",
      "Progress goes to stderr every second; a summary (and with --scenario a RESULT line) to"
          + " stdout."
    })
final class GenerateCommand implements Callable<Integer> {
  static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  @Option(
      names = "--target",
      defaultValue = "127.0.0.1:4317",
      description = "host:port of the collector, loopback only (default: ${DEFAULT-VALUE}).")
  String target;

  @Option(
      names = "--protocol",
      defaultValue = "grpc",
      description = "grpc or http (OTLP/HTTP protobuf) (default: ${DEFAULT-VALUE}).")
  String protocol;

  @Option(
      names = "--signal",
      defaultValue = "traces",
      description = "traces, logs or metrics (default: ${DEFAULT-VALUE}).")
  String signal;

  @Option(
      names = "--shape",
      defaultValue = "realistic",
      description =
          "Span shape: realistic, minimal, attrs-20x5000, attrs-100x50 (default: ${DEFAULT-VALUE}).")
  String shape;

  @Option(
      names = "--items",
      defaultValue = "1000",
      description = "Spans or log records per request (default: ${DEFAULT-VALUE}).")
  int items;

  @Option(
      names = "--metrics",
      defaultValue = "150",
      description = "Metrics per request (default: ${DEFAULT-VALUE}).")
  int metrics;

  @Option(
      names = "--points",
      defaultValue = "7",
      description = "Data points per metric (default: ${DEFAULT-VALUE}).")
  int points;

  @Option(
      names = "--distinct",
      defaultValue = "8",
      description =
          "Distinct requests, encoded once and sent in turn (default: ${DEFAULT-VALUE}; fewer when"
              + " they would take more than 512 MiB).")
  int distinct;

  @Option(
      names = "--spans-per-trace",
      defaultValue = "1",
      description =
          "Spans per trace (default: ${DEFAULT-VALUE}: every span a trace of its own). Above 1,"
              + " each request's spans are in traces of N, spread over the request and close in"
              + " time, and every cycle through the distinct requests after the first sends them"
              + " with fresh trace IDs, so that no trace comes back while a tail sampler"
              + " remembers it. That costs the generator a copy of the request on every send"
              + " (about 430 KB allocated and copied for 1000 realistic spans, and 8 bytes XORed"
              + " per span), and rules out --protocol http with --compression, whose bodies are"
              + " compressed once.")
  int spansPerTrace;

  @Option(names = "--seed", defaultValue = "5312974", description = "Seed of the first request.")
  long seed;

  @Option(
      names = "--mode",
      defaultValue = "closed",
      description =
          "closed (--concurrency in flight), fixed (--rate items/s, open loop) or idle (send"
              + " nothing) (default: ${DEFAULT-VALUE}).")
  String mode;

  @Option(
      names = "--concurrency",
      defaultValue = "8",
      description = "Requests in flight, closed loop (default: ${DEFAULT-VALUE}).")
  int concurrency;

  @Option(
      names = "--connections",
      defaultValue = "1",
      description = "gRPC connections (default: ${DEFAULT-VALUE}).")
  int connections;

  @Option(names = "--rate", defaultValue = "0", description = "Items per second, fixed mode.")
  double rate;

  @Option(
      names = "--max-in-flight",
      defaultValue = "1000",
      description = "Outstanding requests at most, fixed mode (default: ${DEFAULT-VALUE}).")
  int maxInFlight;

  @Option(
      names = "--warmup",
      defaultValue = "10",
      description = "Seconds of warm-up before the window (default: ${DEFAULT-VALUE}).")
  long warmupSeconds;

  @Option(
      names = "--duration",
      defaultValue = "30",
      description = "Seconds of the measured window (default: ${DEFAULT-VALUE}).")
  long durationSeconds;

  @Option(
      names = "--max-requests",
      defaultValue = "20000000",
      description = "Hard cap on requests sent in the whole run (default: ${DEFAULT-VALUE}).")
  long maxRequests;

  @Option(
      names = "--compression",
      defaultValue = "none",
      description =
          "none, gzip or zstd: gRPC compresses per call; HTTP bodies are compressed once"
              + " (default: ${DEFAULT-VALUE}).")
  String compression;

  @Option(
      names = "--timeout-ms",
      defaultValue = "30000",
      description = "Deadline of each request (default: ${DEFAULT-VALUE}).")
  long timeoutMillis;

  @Option(
      names = "--error-pause-ms",
      defaultValue = "5",
      description = "Closed loop: pause after a failed request (default: ${DEFAULT-VALUE}).")
  long errorPauseMillis;

  @Option(
      names = "--wait-ready",
      defaultValue = "30",
      description =
          "Seconds to wait for the target to accept connections (default: ${DEFAULT-VALUE}).")
  long waitReadySeconds;

  @Option(names = "--collector-pid", description = "The collector's pid: CPU and memory measured.")
  Long collectorPid;

  @Option(names = "--sink-pid", description = "The sink's pid: its CPU is measured too.")
  Long sinkPid;

  @Option(
      names = "--delivered",
      description =
          "Where delivered items are counted after the run: sink:URL, floor:URL or"
              + " metric:URL#NAME (see Delivered).")
  String delivered;

  @Option(
      names = "--drain-timeout",
      defaultValue = "60",
      description =
          "Seconds to wait at most for delivery to catch up after the run (default: ${DEFAULT-VALUE}).")
  long drainTimeoutSeconds;

  @Option(
      names = "--drain-quiet",
      defaultValue = "5",
      description =
          "Stop waiting when the delivered count has not moved for this many seconds (default:"
              + " ${DEFAULT-VALUE}).")
  long drainQuietSeconds;

  @Option(names = "--clk-tck", description = "Clock ticks per second (getconf CLK_TCK).")
  Long clockTicks;

  @Option(names = "--scenario", description = "Scenario name: prints a RESULT line.")
  String scenario;

  @Option(names = "--result-json", description = "Writes the result (or summary) as JSON here.")
  Path resultJson;

  @Option(
      names = "--meta",
      description = "key=value recorded under \"meta\" in the JSON (repeatable).")
  Map<String, String> meta = new LinkedHashMap<>();

  @Override
  public Integer call() throws Exception {
    PrintStream out = System.out;
    PrintStream err = System.err;
    if (clockTicks != null) {
      ProcStat.setClockTicksPerSecond(clockTicks);
    }
    int colon = target.lastIndexOf(':');
    String host = target.substring(0, colon);
    int port = Integer.parseInt(target.substring(colon + 1));
    Delivered.requireLoopback(host);

    LoadGenerator.Mode loadMode = LoadGenerator.Mode.valueOf(mode.toUpperCase(Locale.ROOT));
    Signal sig = Signal.valueOf(signal.toUpperCase(Locale.ROOT));
    if (spansPerTrace > 1 && protocol.equals("http") && !compression.equals("none")) {
      err.println(
          "error: --spans-per-trace above 1 renews trace IDs per send; HTTP bodies are"
              + " compressed once, so use --compression none or --protocol grpc");
      return 2;
    }
    RequestShapes.SpanShape spanShape = RequestShapes.SpanShape.parse(shape);
    Workload workload =
        loadMode == LoadGenerator.Mode.IDLE
            ? Workload.build(new Workload.Spec(sig, spanShape, 1, 1, 1, 1, seed))
            : buildWorkload(sig, spanShape, err);
    if (loadMode != LoadGenerator.Mode.IDLE) {
      printWorkload(workload, err);
    }
    if (workload.maxRequestBytes() > 4 << 20) {
      err.println(
          "warning: requests are larger than 4 MiB, the default max_recv_msg_size_mib of OTLP"
              + " receivers; lower --items or raise the receiver's limit");
    }

    List<LoadGenerator.Watched> watched = new ArrayList<>();
    if (collectorPid != null) {
      watched.add(new LoadGenerator.Watched("collector", collectorPid));
    }
    if (sinkPid != null) {
      watched.add(new LoadGenerator.Watched("sink", sinkPid));
    }
    Delivered deliveredSource =
        delivered == null ? null : Delivered.parse(delivered, workload.itemsPerRequest());

    if (loadMode != LoadGenerator.Mode.IDLE && !waitReady(host, port)) {
      err.println("error: " + target + " accepts no connections after " + waitReadySeconds + " s");
      return 1;
    }
    LoadGenerator.Settings settings =
        new LoadGenerator.Settings(
            loadMode,
            concurrency,
            rate,
            maxInFlight,
            Duration.ofSeconds(warmupSeconds),
            Duration.ofSeconds(durationSeconds),
            maxRequests,
            errorPauseMillis);
    LoadGenerator.Outcome outcome;
    Instant started = Instant.now();
    try (Transport transport = transport(host, port)) {
      Workload sent = workload;
      if (protocol.equals("http") && !compression.equals("none")) {
        List<byte[]> encoded = new ArrayList<>();
        for (byte[] request : workload.requests()) {
          encoded.add(HttpTransport.encode(request, compression));
        }
        sent =
            new Workload(
                workload.signal(), workload.description(), encoded, workload.itemsPerRequest());
      }
      outcome = new LoadGenerator(transport, sent, settings, watched, err).run();
    }

    // Delivery: wait until everything accepted has arrived, or nothing moves any more.
    long deliveredItems = -1;
    boolean drained = false;
    long drainMillis = 0;
    if (deliveredSource != null) {
      long drainStart = System.nanoTime();
      long deadline = drainStart + drainTimeoutSeconds * 1_000_000_000L;
      long lastChange = drainStart;
      long last = Long.MIN_VALUE;
      while (true) {
        long now = System.nanoTime();
        try {
          deliveredItems = deliveredSource.items();
        } catch (IOException | RuntimeException e) {
          err.println("warning: cannot read delivered items: " + e.getMessage());
        }
        if (deliveredItems >= outcome.totalOkItems()) {
          drained = true;
          break;
        }
        if (deliveredItems != last) {
          last = deliveredItems;
          lastChange = now;
        }
        if (now - lastChange > drainQuietSeconds * 1_000_000_000L || now > deadline) {
          break;
        }
        Thread.sleep(200);
      }
      drainMillis = (System.nanoTime() - drainStart) / 1_000_000;
    }

    long peakRssKib = collectorPid == null ? -1 : ProcStat.peakRssKib(collectorPid);
    long rssKib = collectorPid == null ? -1 : ProcStat.rssKib(collectorPid);
    ObjectNode json =
        summary(
            outcome,
            workload,
            deliveredSource,
            deliveredItems,
            drained,
            drainMillis,
            peakRssKib,
            rssKib,
            started);
    if (resultJson != null) {
      Files.createDirectories(resultJson.toAbsolutePath().getParent());
      JSON.writeValue(resultJson.toFile(), json);
    }
    out.println(JSON.writeValueAsString(json));
    if (outcome.aborted()) {
      err.println("error: the run was aborted: " + outcome.abortReason());
    }
    if (scenario != null) {
      out.println(json.get("detail_line").asText());
      out.println(json.get("result_line").asText());
    }
    return outcome.aborted() ? 1 : 0;
  }

  private static void printWorkload(Workload workload, PrintStream err) {
    err.printf(
        Locale.ROOT,
        "workload: %s, %d distinct requests of %.0f bytes on average (%d items each, %.1f bytes"
            + " per item)%n",
        workload.description(),
        workload.requests().size(),
        workload.averageRequestBytes(),
        workload.itemsPerRequest(),
        workload.averageRequestBytes() / workload.itemsPerRequest());
  }

  private Workload buildWorkload(Signal sig, RequestShapes.SpanShape spanShape, PrintStream err) {
    Workload.Spec spec =
        new Workload.Spec(
            sig, spanShape, items, metrics, points, Math.max(1, distinct), seed, spansPerTrace);
    Workload one =
        Workload.build(
            new Workload.Spec(sig, spanShape, items, metrics, points, 1, seed, spansPerTrace));
    long budget = 512L << 20;
    int fit = (int) Math.max(1, Math.min(distinct, budget / Math.max(1, one.maxRequestBytes())));
    if (fit < distinct) {
      err.println("note: " + fit + " distinct requests instead of " + distinct + " (memory)");
      spec = new Workload.Spec(sig, spanShape, items, metrics, points, fit, seed, spansPerTrace);
    }
    return fit == 1 ? one : Workload.build(spec);
  }

  private Transport transport(String host, int port) {
    return switch (protocol) {
      case "grpc" ->
          new GrpcTransport(host, port, connections, compression, 1 << 20, timeoutMillis);
      case "http" -> new HttpTransport(host, port, compression, timeoutMillis);
      default -> throw new IllegalArgumentException("protocol grpc or http, not " + protocol);
    };
  }

  private boolean waitReady(String host, int port) throws InterruptedException {
    long deadline = System.nanoTime() + waitReadySeconds * 1_000_000_000L;
    while (true) {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(host, port), 1000);
        return true;
      } catch (IOException e) {
        if (System.nanoTime() > deadline) {
          return false;
        }
        Thread.sleep(100);
      }
    }
  }

  private ObjectNode summary(
      LoadGenerator.Outcome outcome,
      Workload workload,
      Delivered deliveredSource,
      long deliveredItems,
      boolean drained,
      long drainMillis,
      long peakRssKib,
      long rssKib,
      Instant started) {
    ObjectNode json = JSON.createObjectNode();
    Histogram latency = outcome.latencyMicros();
    boolean hasLatency = latency.getTotalCount() > 0;
    double p50 = hasLatency ? latency.getValueAtPercentile(50) / 1000.0 : 0;
    double p99 = hasLatency ? latency.getValueAtPercentile(99) / 1000.0 : 0;
    LoadGenerator.WatchedOutcome collector = find(outcome, "collector");
    LoadGenerator.WatchedOutcome sink = find(outcome, "sink");
    double cpuNsPerItem =
        collector != null && outcome.windowItems() > 0
            ? collector.cpuNanos() / (double) outcome.windowItems()
            : 0;
    long dropped = deliveredItems >= 0 ? outcome.totalOkItems() - deliveredItems : 0;
    ResultLine result =
        new ResultLine(
            scenario == null ? "unnamed" : scenario,
            outcome.itemsPerSecond(),
            cpuNsPerItem,
            p50,
            p99,
            peakRssKib > 0 ? peakRssKib / 1024.0 : 0,
            dropped,
            outcome.generatorCpuPercent());

    json.put("scenario", result.scenario());
    json.put("started", started.toString());
    json.put("result_line", result.format());
    json.put(
        "detail_line",
        String.format(
            Locale.ROOT,
            "DETAIL scenario=%s collector_cpu_pct=%.2f sink_cpu_pct=%.1f window_s=%.1f"
                + " accepted=%d delivered=%d refused=%d capped=%s steal_pct=%.1f",
            result.scenario(),
            collector == null ? 0 : collector.cpuPercent(),
            sink == null ? 0 : sink.cpuPercent(),
            outcome.windowSeconds(),
            outcome.totalOkItems(),
            deliveredItems,
            outcome.totalFailedItems(),
            outcome.capped(),
            outcome.stealPercent()));
    json.put("items_per_s", round(outcome.itemsPerSecond(), 1));
    json.put("cpu_ns_per_item", round(cpuNsPerItem, 1));
    json.put("p50_ms", round(p50, 3));
    json.put("p99_ms", round(p99, 3));
    json.put("rss_mib", round(result.rssMib(), 1));
    json.put("dropped", dropped);
    json.put("gen_cpu_pct", round(outcome.generatorCpuPercent(), 1));
    json.put("collector_cpu_pct", collector == null ? 0 : round(collector.cpuPercent(), 2));
    json.put("sink_cpu_pct", sink == null ? 0 : round(sink.cpuPercent(), 1));
    // Time the host gave this machine's CPUs to others while they wanted to run: above a few
    // percent, the run measured a contended host and its figures are not comparable.
    if (!Double.isNaN(outcome.stealPercent())) {
      json.put("steal_pct", round(outcome.stealPercent(), 1));
    }
    json.put("aborted", outcome.aborted());
    if (outcome.aborted()) {
      json.put("abort_reason", outcome.abortReason());
    }

    ObjectNode window = json.putObject("window");
    window.put("seconds", round(outcome.windowSeconds(), 3));
    window.put("requests", outcome.windowRequests());
    window.put("items", outcome.windowItems());
    window.put("errors", outcome.windowErrors());
    window.put("capped", outcome.capped());
    ObjectNode lat = window.putObject("latency_ms");
    for (double percentile : new double[] {50, 90, 99, 99.9}) {
      lat.put(
          "p" + (percentile == 99.9 ? "99.9" : Integer.toString((int) percentile)),
          hasLatency ? round(latency.getValueAtPercentile(percentile) / 1000.0, 3) : 0);
    }
    lat.put("max", hasLatency ? round(latency.getMaxValue() / 1000.0, 3) : 0);
    lat.put("mean", hasLatency ? round(latency.getMean() / 1000.0, 3) : 0);
    lat.put("count", latency.getTotalCount());

    ObjectNode collectorJson = json.putObject("collector");
    if (collectorPid != null) {
      collectorJson.put("pid", collectorPid);
      collectorJson.put("cpu_ns", collector.cpuNanos());
      collectorJson.put("cpu_pct", round(collector.cpuPercent(), 2));
      collectorJson.put("peak_rss_kib", peakRssKib);
      collectorJson.put("rss_end_kib", rssKib);
    }
    if (sink != null) {
      ObjectNode sinkJson = json.putObject("sink");
      sinkJson.put("pid", sink.pid());
      sinkJson.put("cpu_ns", sink.cpuNanos());
      sinkJson.put("cpu_pct", round(sink.cpuPercent(), 2));
    }

    ObjectNode gen = json.putObject("generator");
    LoadGenerator.Settings settings = outcome.settings();
    gen.put("mode", mode);
    gen.put("protocol", protocol);
    gen.put("target", target);
    gen.put("signal", signal);
    gen.put("workload", workload.description());
    gen.put("items_per_request", workload.itemsPerRequest());
    gen.put("request_bytes", Math.round(workload.averageRequestBytes()));
    gen.put("distinct_requests", workload.requests().size());
    gen.put("spans_per_trace", spansPerTrace);
    gen.put("compression", compression);
    if (settings.mode() == LoadGenerator.Mode.CLOSED) {
      gen.put("concurrency", concurrency);
      gen.put("connections", connections);
    }
    if (settings.mode() == LoadGenerator.Mode.FIXED) {
      gen.put("rate_items_per_s", rate);
      gen.put("max_in_flight", maxInFlight);
    }
    gen.put("warmup_s", warmupSeconds);
    gen.put("duration_s", durationSeconds);
    gen.put("max_requests", maxRequests);
    gen.put("cpu_pct", round(outcome.generatorCpuPercent(), 1));

    ObjectNode totals = json.putObject("totals");
    totals.put("requests_sent", outcome.totalRequestsSent());
    totals.put("requests_ok", outcome.totalOkRequests());
    totals.put("items_accepted", outcome.totalOkItems());
    totals.put("requests_failed", outcome.totalFailedRequests());
    totals.put("items_refused", outcome.totalFailedItems());
    ObjectNode errors = totals.putObject("errors");
    outcome.errors().forEach(errors::put);

    ObjectNode delivery = json.putObject("delivery");
    if (deliveredSource != null) {
      delivery.put("source", deliveredSource.describe());
      delivery.put("items_delivered", deliveredItems);
      delivery.put("items_accepted", outcome.totalOkItems());
      delivery.put("dropped", dropped);
      delivery.put("drained", drained);
      delivery.put("drain_ms", drainMillis);
    }
    ObjectNode metaJson = json.putObject("meta");
    meta.forEach(metaJson::put);
    return json;
  }

  private static LoadGenerator.WatchedOutcome find(LoadGenerator.Outcome outcome, String name) {
    for (LoadGenerator.WatchedOutcome watched : outcome.watched()) {
      if (watched.name().equals(name)) {
        return watched;
      }
    }
    return null;
  }

  private static double round(double value, int decimals) {
    if (!Double.isFinite(value)) {
      return 0;
    }
    double scale = Math.pow(10, decimals);
    return Math.round(value * scale) / scale;
  }
}
