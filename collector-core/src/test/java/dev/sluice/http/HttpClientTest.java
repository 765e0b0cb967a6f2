package dev.sluice.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.http.testkit.ScriptedHttpServer;
import dev.sluice.testkit.Await;
import io.netty.channel.Channel;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The exporters' HTTP client against {@link ScriptedHttpServer} on loopback: connections kept alive
 * and reused, one per concurrent request, discarded when the server closes them, when an answer is
 * too large or late, or when idle too long, and closed by shutdown; what is sent (path, headers,
 * the caller's body) and what is read back (status, body, any header the caller names).
 */
class HttpClientTest {
  private static final byte[] NO_BODY = new byte[0];

  private final List<AutoCloseable> cleanup = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (int i = cleanup.size() - 1; i >= 0; i--) {
      cleanup.get(i).close();
    }
  }

  private ScriptedHttpServer server(ScriptedHttpServer.Script script) throws Exception {
    ScriptedHttpServer server = ScriptedHttpServer.start(script);
    cleanup.add(server);
    return server;
  }

  private HttpClient client(int maxResponseBytes, Duration idleTimeout) throws Exception {
    HttpClient client =
        new HttpClient(
            "test-io", null, "", null, Duration.ofSeconds(5), maxResponseBytes, idleTimeout);
    cleanup.add(() -> client.shutdown(inSeconds(5)));
    return client;
  }

  private HttpClient client() throws Exception {
    return client(HttpClient.MAX_RESPONSE_BYTES, HttpClient.IDLE_TIMEOUT);
  }

  private static HttpClient.Route route(HttpClient client, ScriptedHttpServer server, String path) {
    return client.route(URI.create(server.url() + path), Map.of());
  }

  private static HttpClient.Response post(HttpClient client, HttpClient.Route route, byte[] body)
      throws Exception {
    return client.post(route, body, 0, body.length, Map.of(), inSeconds(5));
  }

  private static long inSeconds(int seconds) {
    return System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void sequentialPostsShareOneKeptAliveConnectionAndSendTheCallersReusedBuffer() throws Exception {
    List<String> bodies = new CopyOnWriteArrayList<>();
    ScriptedHttpServer server =
        server(
            exchange -> {
              bodies.add(new String(exchange.body, StandardCharsets.UTF_8));
              exchange.ok();
            });
    HttpClient client = client();
    HttpClient.Route route = route(client, server, "/write");
    byte[] buffer = new byte[16];

    for (int i = 0; i < 5; i++) {
      // The caller writes its next body into the same array once post returns.
      Arrays.fill(buffer, (byte) ('a' + i));
      HttpClient.Response response = client.post(route, buffer, 2, 3 + i, Map.of(), inSeconds(5));
      assertThat(response.status()).isEqualTo(200);
      assertThat(response.body()).isEmpty();
    }

    assertThat(bodies).containsExactly("aaa", "bbbb", "ccccc", "dddddd", "eeeeeee");
    assertThat(server.requests()).isEqualTo(5);
    assertThat(server.accepted()).isEqualTo(1);
    assertThat(server.closed()).isZero();
  }

  @Test
  void opensANewConnectionWhenTheServerClosesAfterEachAnswer() throws Exception {
    ScriptedHttpServer server = server(exchange -> exchange.reply(200, utf8("done"), true));
    HttpClient client = client();
    HttpClient.Route route = route(client, server, "/");

    for (int i = 0; i < 3; i++) {
      assertThat(post(client, route, utf8("x")).body()).isEqualTo(utf8("done"));
    }

    assertThat(server.requests()).isEqualTo(3);
    assertThat(server.accepted()).isEqualTo(3);
    Await.until("3 connections closed", () -> server.closed() == 3);
  }

  @Test
  void honoursConnectionCloseEvenWhenTheServerLeavesTheConnectionOpen() throws Exception {
    ScriptedHttpServer server = server(exchange -> exchange.reply(200, NO_BODY, true, false));
    HttpClient client = client();
    HttpClient.Route route = route(client, server, "/");

    for (int i = 0; i < 3; i++) {
      assertThat(post(client, route, utf8("x")).status()).isEqualTo(200);
    }

    assertThat(server.accepted()).isEqualTo(3);
    // The client closed them.
    Await.until("3 connections closed", () -> server.closed() == 3);
  }

  @Test
  void readsABodyThatEndsWhenTheServerCloses() throws Exception {
    ScriptedHttpServer server = server(exchange -> exchange.replyUntilClose(202, utf8("accepted")));
    HttpClient client = client();
    HttpClient.Route route = route(client, server, "/");

    HttpClient.Response first = post(client, route, utf8("1"));
    HttpClient.Response second = post(client, route, utf8("2"));

    assertThat(List.of(first.status(), second.status())).containsOnly(202);
    assertThat(first.body()).isEqualTo(utf8("accepted"));
    assertThat(second.body()).isEqualTo(utf8("accepted"));
    assertThat(server.accepted()).isEqualTo(2);
  }

  @Test
  void concurrentPostsEachHaveAConnectionOfTheirOwn() throws Exception {
    int threads = 4;
    List<ScriptedHttpServer.Exchange> waiting = new ArrayList<>();
    Set<Channel> connections = ConcurrentHashMap.newKeySet();
    // Answers only once all four requests are in: they must have been in flight together.
    ScriptedHttpServer server =
        server(
            exchange -> {
              connections.add(exchange.connection);
              waiting.add(exchange);
              if (waiting.size() == threads) {
                waiting.forEach(ScriptedHttpServer.Exchange::ok);
                waiting.clear();
              }
            });
    HttpClient client = client();
    HttpClient.Route route = route(client, server, "/");
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    cleanup.add(pool::shutdownNow);

    for (int round = 0; round < 2; round++) {
      List<Callable<Integer>> posts = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        byte[] body = utf8("request " + round + "." + i);
        posts.add(() -> post(client, route, body).status());
      }
      for (Future<Integer> status : pool.invokeAll(posts, 10, TimeUnit.SECONDS)) {
        assertThat(status.get()).isEqualTo(200);
      }
    }

    assertThat(server.requests()).isEqualTo(2 * threads);
    // The second round reused the first round's connections.
    assertThat(server.accepted()).isEqualTo(threads);
    assertThat(connections).hasSize(threads);
  }

  @Test
  void readsAnyResponseHeaderTheCallerNames() throws Exception {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("Retry-After", "30");
    headers.put("X-Prometheus-Remote-Write-Samples-Written", "120");
    headers.put("X-Prometheus-Remote-Write-Histograms-Written", "4");
    headers.put("X-Prometheus-Remote-Write-Exemplars-Written", "0");
    ScriptedHttpServer server =
        server(exchange -> exchange.replyWithHeaders(204, NO_BODY, headers));
    HttpClient client = client();

    HttpClient.Response response = post(client, route(client, server, "/api/v1/write"), NO_BODY);

    assertThat(response.status()).isEqualTo(204);
    assertThat(response.retryAfter()).isEqualTo("30");
    assertThat(response.header("X-Prometheus-Remote-Write-Samples-Written")).isEqualTo("120");
    assertThat(response.header("x-prometheus-remote-write-histograms-written"))
        .as("names are matched in any case")
        .isEqualTo("4");
    assertThat(response.header("X-Prometheus-Remote-Write-Exemplars-Written")).isEqualTo("0");
    assertThat(response.header("X-Not-Sent")).isNull();
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void aBodyOverTheBoundFailsWithTheStatusAndHeadersAndItsConnectionIsDiscarded(boolean announced)
      throws Exception {
    byte[] huge = new byte[1025];
    ScriptedHttpServer server =
        server(
            exchange -> {
              if (exchange.number > 1) {
                exchange.ok();
              } else if (announced) {
                exchange.replyWithHeaders(503, huge, Map.of("Retry-After", "7", "X-Shard", "3"));
              } else {
                exchange.replyChunked(huge);
              }
            });
    HttpClient client = client(1024, HttpClient.IDLE_TIMEOUT);
    HttpClient.Route route = route(client, server, "/");

    assertThatThrownBy(() -> post(client, route, utf8("x")))
        .isInstanceOfSatisfying(
            HttpClient.ResponseTooLargeException.class,
            tooLarge -> {
              assertThat(tooLarge.status()).isEqualTo(announced ? 503 : 200);
              assertThat(tooLarge.retryAfter()).isEqualTo(announced ? "7" : null);
              assertThat(tooLarge.header("x-shard")).isEqualTo(announced ? "3" : null);
              assertThat(tooLarge)
                  .hasMessage(
                      "HTTP "
                          + (announced ? 503 : 200)
                          + " with a response body larger than 1024 bytes");
            });
    assertThat(post(client, route, utf8("y")).status()).isEqualTo(200);

    assertThat(server.accepted()).isEqualTo(2);
    Await.until("a connection closed", () -> server.closed() == 1);
  }

  @Test
  void aDeadlineClosesTheConnectionOfAServerThatNeverAnswers() throws Exception {
    // The first request is never answered, whenever it arrives; the next one is.
    ScriptedHttpServer server =
        server(
            exchange -> {
              if (!"never".equals(new String(exchange.body, StandardCharsets.UTF_8))) {
                exchange.ok();
              }
            });
    HttpClient client = client();
    HttpClient.Route route = route(client, server, "/");
    byte[] never = utf8("never");

    long start = System.nanoTime();
    assertThatThrownBy(
            () ->
                client.post(
                    route,
                    never,
                    0,
                    never.length,
                    Map.of(),
                    System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300)))
        .isInstanceOf(TimeoutException.class);
    long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    int next = post(client, route, utf8("later")).status();

    // Not before the deadline; how long after it depends on the machine, so it is not asserted.
    assertThat(waitedMillis).isGreaterThanOrEqualTo(250L);
    assertThat(next).isEqualTo(200);
    assertThat(server.accepted()).isEqualTo(2);
    Await.until("a connection closed", () -> server.closed() == 1);
  }

  @Test
  void routesToOneOriginShareItsConnections() throws Exception {
    List<String> paths = new CopyOnWriteArrayList<>();
    ScriptedHttpServer server =
        server(
            exchange -> {
              paths.add(exchange.uri);
              exchange.ok();
            });
    HttpClient client = client(1024, HttpClient.IDLE_TIMEOUT);
    HttpClient.Route traces = route(client, server, "/v1/traces");
    HttpClient.Route logs = route(client, server, "/v1/logs");

    assertThat(post(client, traces, NO_BODY).status()).isEqualTo(200);
    assertThat(post(client, logs, NO_BODY).status()).isEqualTo(200);

    assertThat(paths).containsExactly("/v1/traces", "/v1/logs");
    assertThat(server.accepted()).isEqualTo(1);
  }

  @Test
  void doesNotReuseAConnectionIdleForLongerThanTheIdleTimeout() throws Exception {
    ScriptedHttpServer server = server(ScriptedHttpServer.Exchange::ok);
    HttpClient client = client(1024, Duration.ofMillis(200));
    HttpClient.Route route = route(client, server, "/v1/logs");

    int first = post(client, route, NO_BODY).status();
    // Longer than the idle timeout, however slow the machine. (That a connection idle for less is
    // used again is sequentialPostsShareOneKeptAliveConnection...'s, with the default timeout: a
    // short one here could pass between two posts on a busy machine.)
    Thread.sleep(300);
    int later = post(client, route, NO_BODY).status();

    assertThat(List.of(first, later)).containsOnly(200);
    assertThat(server.accepted()).isEqualTo(2);
    Await.until("a connection closed", () -> server.closed() == 1);
  }

  @Test
  void shutdownClosesTheConnections() throws Exception {
    ScriptedHttpServer server = server(ScriptedHttpServer.Exchange::ok);
    HttpClient client = client();
    assertThat(post(client, route(client, server, "/"), NO_BODY).status()).isEqualTo(200);

    client.shutdown(inSeconds(5));

    Await.until("a connection closed", () -> server.closed() == 1);
  }

  @Test
  void postsToTheRoutesPathWithItsHeadersThenThePerRequestOnes() throws Exception {
    List<ScriptedHttpServer.Exchange> exchanges = new CopyOnWriteArrayList<>();
    ScriptedHttpServer server =
        server(
            exchange -> {
              exchanges.add(exchange);
              exchange.ok();
            });
    HttpClient client = client();
    Map<String, String> routeHeaders = new LinkedHashMap<>();
    routeHeaders.put("Content-Type", "application/x-protobuf");
    routeHeaders.put("X-Tenant", "blue");
    HttpClient.Route route =
        client.route(URI.create(server.url() + "/api/v1/write?shard=2"), routeHeaders);
    byte[] body = utf8("payload");

    client.post(route, body, 0, body.length, Map.of(), inSeconds(5));
    client.post(
        route,
        body,
        0,
        body.length,
        Map.of("Authorization", "Bearer t", "X-Tenant", "green"),
        inSeconds(5));

    assertThat(exchanges).hasSize(2);
    for (ScriptedHttpServer.Exchange exchange : exchanges) {
      assertThat(exchange.uri).isEqualTo("/api/v1/write?shard=2");
      assertThat(exchange.headers.get("Host"))
          .isEqualTo(server.url().substring("http://".length()));
      assertThat(exchange.headers.get("Content-Type")).isEqualTo("application/x-protobuf");
      assertThat(exchange.headers.getInt("Content-Length")).isEqualTo(body.length);
      assertThat(exchange.body).isEqualTo(body);
    }
    assertThat(exchanges.get(0).headers.getAll("X-Tenant")).containsExactly("blue");
    assertThat(exchanges.get(0).headers.get("Authorization")).isNull();
    assertThat(exchanges.get(1).headers.getAll("X-Tenant"))
        .as("a per-request header replaces the route's of the same name")
        .containsExactly("green");
    assertThat(exchanges.get(1).headers.get("Authorization")).isEqualTo("Bearer t");
  }

  @Test
  void aPerRequestHeaderThatWouldStartAnotherIsRefusedAndNothingIsSent() throws Exception {
    ScriptedHttpServer server = server(ScriptedHttpServer.Exchange::ok);
    HttpClient client = client();
    HttpClient.Route route = route(client, server, "/");
    byte[] body = utf8("x");

    assertThatThrownBy(
            () ->
                client.post(
                    route,
                    body,
                    0,
                    body.length,
                    Map.of("Authorization", "Bearer t\r\nX-Injected: 1"),
                    inSeconds(5)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(post(client, route, body).status()).isEqualTo(200);

    assertThat(server.requests()).isEqualTo(1);
  }

  @Test
  void anHttpsRouteNeedsTlsSettings() throws Exception {
    HttpClient client = client();

    assertThatThrownBy(() -> client.route(URI.create("https://127.0.0.1:4318/"), Map.of()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("an https URL needs the client made with TLS settings");
  }

  @Test
  void retryAfterDelaysTooLongForNanosecondsSaturateInsteadOfThrowing() {
    assertThat(HttpClient.retryAfterNanos(" 7 ")).isEqualTo(7_000_000_000L);
    assertThat(HttpClient.retryAfterNanos("0222222222222")).isEqualTo(Long.MAX_VALUE);
    assertThat(HttpClient.retryAfterNanos("Fri, 31 Dec 9999 23:59:59 GMT"))
        .isEqualTo(Long.MAX_VALUE);
    assertThat(HttpClient.retryAfterNanos("Thu, 01 Jan 1970 00:00:00 GMT")).isZero();
    assertThat(HttpClient.retryAfterNanos("-5")).isZero();
    assertThat(HttpClient.retryAfterNanos("soon")).isZero();
  }
}
