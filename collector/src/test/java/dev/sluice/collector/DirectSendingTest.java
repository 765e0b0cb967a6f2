package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ComponentId;
import dev.sluice.receiver.otlp.OtlpReceiver;
import dev.sluice.service.sender.SendingChain;
import dev.sluice.testkit.Await;
import dev.sluice.testkit.SequencedSpans;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Without a sending queue, against a destination that takes connections and never answers: the
 * receiver's event loops (and the batch timer) never wait for the sends, so other clients are
 * answered at once, and while every sending thread is busy new data is refused with a retryable
 * answer.
 */
class DirectSendingTest {
  private static final int IN_FLIGHT = 8;
  private static final Duration ANSWER_WITHIN = Duration.ofSeconds(5);

  /** Accepts connections and reads nothing, answers nothing. */
  private static final class SilentDestination implements AutoCloseable {
    private final ServerSocket server;
    private final List<Socket> connections = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    SilentDestination() throws IOException {
      server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      acceptor =
          new Thread(
              () -> {
                while (!server.isClosed()) {
                  try {
                    connections.add(server.accept());
                  } catch (IOException e) {
                    return;
                  }
                }
              },
              "silent-destination");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    String url() {
      return "http://127.0.0.1:" + server.getLocalPort();
    }

    int connections() {
      return connections.size();
    }

    @Override
    public void close() throws Exception {
      server.close();
      for (Socket socket : connections) {
        socket.close();
      }
      acceptor.join(TimeUnit.SECONDS.toMillis(5));
    }
  }

  private static String config(String destination, boolean batch) {
    return String.join(
        "\n",
        "receivers:",
        "  otlp:",
        "    protocols:",
        "      http:",
        "        endpoint: 127.0.0.1:0",
        "processors:",
        "  batch:",
        "    timeout: 10ms",
        "exporters:",
        "  otlphttp:",
        "    endpoint: " + destination,
        // Longer than the test: every send stays in flight until the collector stops.
        "    timeout: 60s",
        "    sending_queue:",
        "      enabled: false",
        "    retry_on_failure:",
        "      enabled: false",
        "service:",
        "  telemetry:",
        "    metrics:",
        "      level: none",
        "  pipelines:",
        "    traces:",
        "      receivers: [otlp]",
        batch ? "      processors: [batch]" : "      processors: []",
        "      exporters: [otlphttp]",
        "");
  }

  private static HttpRequest spans(String base, int first) {
    return HttpRequest.newBuilder(URI.create(base + "/v1/traces"))
        .timeout(ANSWER_WITHIN)
        .header("Content-Type", "application/x-protobuf")
        .POST(
            HttpRequest.BodyPublishers.ofByteArray(
                SequencedSpans.request("svc", first, 10).toByteArray()))
        .build();
  }

  private static HttpClient client() {
    return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  }

  /** What the clients were answered: the status of each valid request, then the 404 path's. */
  private record Answers(List<HttpResponse<String>> valid, HttpResponse<String> notFound) {}

  /**
   * Sends {@link #IN_FLIGHT} requests at once from one client, then, from a second client on its
   * own connections, a valid request and one to a path that does not exist; each must be answered
   * within {@link #ANSWER_WITHIN}.
   */
  private static Answers sendWhileTheDestinationIsSilent(Collector collector) throws Exception {
    String base =
        "http://127.0.0.1:"
            + ((OtlpReceiver) collector.receiver(ComponentId.parse("otlp"))).httpPort();
    HttpClient first = client();
    List<CompletableFuture<HttpResponse<String>>> inFlight = new ArrayList<>();
    for (int i = 0; i < IN_FLIGHT; i++) {
      inFlight.add(first.sendAsync(spans(base, i * 10), HttpResponse.BodyHandlers.ofString()));
    }
    HttpClient second = client();
    CompletableFuture<HttpResponse<String>> valid =
        second.sendAsync(spans(base, 1000), HttpResponse.BodyHandlers.ofString());
    CompletableFuture<HttpResponse<String>> notFound =
        second.sendAsync(
            HttpRequest.newBuilder(URI.create(base + "/v1/nothing"))
                .timeout(ANSWER_WITHIN)
                .POST(HttpRequest.BodyPublishers.ofString("x"))
                .build(),
            HttpResponse.BodyHandlers.ofString());

    // HttpRequest.timeout bounds each wait; get() turns a missing answer into a failure.
    HttpResponse<String> notFoundAnswer = notFound.get();
    List<HttpResponse<String>> answers = new ArrayList<>();
    answers.add(valid.get());
    for (CompletableFuture<HttpResponse<String>> request : inFlight) {
      answers.add(request.get());
    }
    return new Answers(answers, notFoundAnswer);
  }

  @Test
  void answersOtherClientsAndRefusesRetryablyWhileEverySendIsStuck() throws Exception {
    try (SilentDestination destination = new SilentDestination()) {
      Collector collector =
          TestCollectors.start(config(destination.url(), false), Collector.Options.defaults());
      try {
        Answers answers = sendWhileTheDestinationIsSilent(collector);

        assertThat(answers.notFound().statusCode()).isEqualTo(404);
        // One request per sending thread was taken; the rest were told to come back later.
        assertThat(answers.valid())
            .extracting(HttpResponse::statusCode)
            .containsOnly(200, 503)
            .filteredOn(status -> status == 200)
            .hasSize(SendingChain.DIRECT_SENDS);
        assertThat(answers.valid())
            .filteredOn(response -> response.statusCode() == 503)
            .allSatisfy(
                response -> assertThat(response.headers().firstValue("Retry-After")).isPresent());
        // The sends taken are really waiting at the destination.
        Await.until(
            "a connection from each sending thread",
            () -> destination.connections() == SendingChain.DIRECT_SENDS);
      } finally {
        collector.shutdown(TimeUnit.SECONDS.toNanos(2));
      }
    }
  }

  @Test
  void withABatchProcessorTheTimerNeverWaitsForTheSendAndRequestsAreStillTaken() throws Exception {
    try (SilentDestination destination = new SilentDestination()) {
      Collector collector =
          TestCollectors.start(config(destination.url(), true), Collector.Options.defaults());
      try {
        Answers answers = sendWhileTheDestinationIsSilent(collector);

        assertThat(answers.notFound().statusCode()).isEqualTo(404);
        assertThat(answers.valid()).extracting(HttpResponse::statusCode).containsOnly(200);
        Await.until("a connection to the destination", () -> destination.connections() >= 1);
        // A later request is answered too, while the batches wait for a free sending thread.
        HttpResponse<String> later =
            client()
                .send(
                    spans(
                        "http://127.0.0.1:"
                            + ((OtlpReceiver) collector.receiver(ComponentId.parse("otlp")))
                                .httpPort(),
                        2000),
                    HttpResponse.BodyHandlers.ofString());
        assertThat(later.statusCode()).isEqualTo(200);
      } finally {
        collector.shutdown(TimeUnit.SECONDS.toNanos(2));
      }
    }
  }
}
