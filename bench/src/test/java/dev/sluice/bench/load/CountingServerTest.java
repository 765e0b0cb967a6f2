package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.pdata.Signal;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The sink counts exactly what clients sent; the floor answers and counts requests. */
class CountingServerTest {
  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  private CountingServer start(CountingServer.Mode mode) throws Exception {
    CountingServer server = new CountingServer(mode, "127.0.0.1", 0, 0, true).start();
    closing.add(server);
    return server;
  }

  private static Workload workload(Signal signal, int items) {
    return Workload.build(
        new Workload.Spec(signal, RequestShapes.SpanShape.REALISTIC, items, 15, 7, 3, 7));
  }

  /** Sends {@code count} requests, cycling through the workload; returns the error codes. */
  private static List<String> send(Transport transport, Workload workload, int count)
      throws Exception {
    List<CompletableFuture<String>> answers = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      CompletableFuture<String> answer = new CompletableFuture<>();
      transport.send(
          workload.signal(),
          workload.requests().get(i % workload.requests().size()),
          answer::complete);
      answers.add(answer);
    }
    List<String> errors = new ArrayList<>();
    for (CompletableFuture<String> answer : answers) {
      String error = answer.get(20, TimeUnit.SECONDS);
      if (error != null) {
        errors.add(error);
      }
    }
    return errors;
  }

  @ParameterizedTest
  @CsvSource({"grpc,none", "grpc,gzip", "grpc,zstd", "http,none", "http,gzip", "http,zstd"})
  void sinkCountsExactlyWhatWasSent(String protocol, String compression) throws Exception {
    CountingServer sink = start(CountingServer.Mode.SINK);
    Transport transport =
        protocol.equals("grpc")
            ? new GrpcTransport("127.0.0.1", sink.grpcPort(), 2, compression, 1 << 20, 10_000)
            : new HttpTransport("127.0.0.1", sink.httpPort(), compression, 10_000);
    closing.add(0, transport);
    long expectedItems = 0;
    long expectedRequests = 0;
    int[] counts = {7, 5, 3};
    for (Signal signal : Signal.values()) {
      Workload workload = workload(signal, 120);
      if (protocol.equals("http") && !compression.equals("none")) {
        List<byte[]> encoded = new ArrayList<>();
        workload.requests().forEach(r -> encoded.add(HttpTransport.encode(r, compression)));
        workload =
            new Workload(signal, workload.description(), encoded, workload.itemsPerRequest());
      }
      int n = counts[signal.ordinal()];
      assertThat(send(transport, workload, n)).isEmpty();
      expectedItems += n * workload.itemsPerRequest();
      expectedRequests += n;
      assertThat(sink.counts(signal).items()).isEqualTo(n * workload.itemsPerRequest());
    }
    assertThat(sink.counts().items()).isEqualTo(expectedItems);
    assertThat(sink.counts().requests()).isEqualTo(expectedRequests);
    assertThat(sink.counts().errors()).isZero();
    assertThat(sink.countsJson()).contains("\"items\":" + expectedItems);
    assertThat(sink.counts(Signal.METRICS).items()).isEqualTo(5 * 15 * 7);
  }

  @Test
  void sinkRejectsAndCountsMalformedRequests() throws Exception {
    CountingServer sink = start(CountingServer.Mode.SINK);
    Transport transport =
        new GrpcTransport("127.0.0.1", sink.grpcPort(), 1, "none", 1 << 20, 10_000);
    closing.add(0, transport);
    Workload bad = new Workload(Signal.TRACES, "bad", List.of(new byte[] {0x0a, 0x05, 0x01}), 1);
    assertThat(send(transport, bad, 2)).containsExactly("INVALID_ARGUMENT", "INVALID_ARGUMENT");
    assertThat(sink.counts().errors()).isEqualTo(2);
    assertThat(sink.counts().items()).isZero();
  }

  @Test
  void floorAnswersAndCountsRequests() throws Exception {
    CountingServer floor = start(CountingServer.Mode.FLOOR);
    Transport transport =
        new GrpcTransport("127.0.0.1", floor.grpcPort(), 1, "none", 1 << 20, 10_000);
    closing.add(0, transport);
    Workload workload = workload(Signal.TRACES, 100);
    assertThat(send(transport, workload, 9)).isEmpty();
    assertThat(floor.counts().requests()).isEqualTo(9);
    assertThat(floor.counts().items()).as("the floor does not look inside").isEqualTo(-1);
    long bytes = 0;
    for (int i = 0; i < 9; i++) {
      bytes += workload.requests().get(i % 3).length;
    }
    assertThat(floor.counts().bytes()).isEqualTo(bytes);
  }

  @Test
  void generatorStopsAtTheRequestCapAndTheSinkSeesEveryItem() throws Exception {
    CountingServer sink = start(CountingServer.Mode.SINK);
    Transport transport =
        new GrpcTransport("127.0.0.1", sink.grpcPort(), 1, "none", 1 << 20, 10_000);
    closing.add(0, transport);
    Workload workload = workload(Signal.TRACES, 50);
    LoadGenerator.Settings settings =
        new LoadGenerator.Settings(
            LoadGenerator.Mode.CLOSED, 4, 0, 0, Duration.ZERO, Duration.ofSeconds(1), 25, 5);
    LoadGenerator.Outcome outcome =
        new LoadGenerator(transport, workload, settings, List.of(), quiet()).run();
    assertThat(outcome.capped()).isTrue();
    assertThat(outcome.totalRequestsSent()).isEqualTo(25);
    assertThat(outcome.totalOkItems()).isEqualTo(25 * 50);
    assertThat(outcome.latencyMicros().getTotalCount()).isEqualTo(25);
    assertThat(sink.counts().items()).isEqualTo(25 * 50);
    Delivered delivered =
        Delivered.parse("sink:http://127.0.0.1:" + sink.httpPort() + "/counts", 50);
    assertThat(delivered.items()).isEqualTo(25 * 50);
  }

  @Test
  void fixedRateSendsOnSchedule() throws Exception {
    CountingServer sink = start(CountingServer.Mode.SINK);
    Transport transport =
        new GrpcTransport("127.0.0.1", sink.grpcPort(), 1, "none", 1 << 20, 10_000);
    closing.add(0, transport);
    Workload workload = workload(Signal.LOGS, 10);
    LoadGenerator.Settings settings =
        new LoadGenerator.Settings(
            LoadGenerator.Mode.FIXED, 0, 200, 100, Duration.ZERO, Duration.ofSeconds(2), 1000, 5);
    LoadGenerator.Outcome outcome =
        new LoadGenerator(transport, workload, settings, List.of(), quiet()).run();
    // 20 requests a second for two seconds, the one at time 0 included.
    assertThat(outcome.totalRequestsSent()).isBetween(38L, 42L);
    assertThat(outcome.itemsPerSecond()).isBetween(150.0, 250.0);
    assertThat(sink.counts().items()).isEqualTo(outcome.totalOkItems());
  }

  private static PrintStream quiet() {
    return new PrintStream(PrintStream.nullOutputStream());
  }
}
