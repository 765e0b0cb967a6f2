package dev.sluice.extension.basicauth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.rpc.Code;
import com.google.rpc.RetryInfo;
import dev.sluice.component.Admission;
import dev.sluice.component.AuthConfig;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Host;
import dev.sluice.component.RequestConsumer;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.receiver.otlp.GrpcServerConfig;
import dev.sluice.receiver.otlp.HttpServerConfig;
import dev.sluice.receiver.otlp.OtlpReceiver;
import dev.sluice.receiver.otlp.OtlpReceiverConfig;
import dev.sluice.receiver.otlp.OtlpReceiverFactory;
import dev.sluice.testkit.MetricsText;
import dev.sluice.testkit.SequencedSpans;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.MetadataUtils;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.security.crypto.bcrypt.BCrypt;

/**
 * basicauth in front of a real OTLP receiver on loopback, under a burst of wrong passwords: bcrypt
 * users, and a budget of 5 % of a core so that a short burst spends it.
 */
class BasicAuthReceiverTest {
  private static final String ALICE_BCRYPT =
      "$2y$05$abcdefghijklmnopqrstuuOQiyCxlgf/oeuTqixKmWdcYUh4Hjl0a";
  private static final double FRACTION = 0.05;
  private static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final int BURST = 200;
  private static final int GRPC_BURST = 50;
  private static final int MAX_RETRIES = 20;
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final MetricRegistry metrics = new MetricRegistry();
  private final AtomicInteger delivered = new AtomicInteger();
  private final SlowCheckBudget budget =
      new SlowCheckBudget(FRACTION, WINDOW_NANOS, System::nanoTime);
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
  private final byte[] body = SequencedSpans.request("svc", 0, 2).toByteArray();
  private BasicAuthExtension auth;
  private OtlpReceiver receiver;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    String bob = BCrypt.hashpw("bobs-secret", BCrypt.gensalt(5));
    auth =
        new BasicAuthExtension(
            new BasicAuthConfig(
                new BasicAuthConfig.Htpasswd("", "alice:" + ALICE_BCRYPT + "\nbob:" + bob), null),
            budget);
    auth.start();
    AuthConfig reference = new AuthConfig("basicauth");
    GrpcServerConfig g = GrpcServerConfig.DEFAULT;
    GrpcServerConfig grpc =
        new GrpcServerConfig(
            "127.0.0.1:0",
            g.transport(),
            null,
            g.maxRecvMsgSizeMib(),
            g.maxConcurrentStreams(),
            g.keepalive(),
            false,
            g.maxConnections(),
            g.maxInFlightBytesMib(),
            g.handshakeTimeout(),
            g.maxCallDuration(),
            reference);
    HttpServerConfig h = HttpServerConfig.DEFAULT;
    HttpServerConfig httpConfig =
        new HttpServerConfig(
            "127.0.0.1:0",
            null,
            null,
            h.maxRequestBodySize(),
            false,
            h.tracesUrlPath(),
            h.metricsUrlPath(),
            h.logsUrlPath(),
            h.readTimeout(),
            h.readHeaderTimeout(),
            h.idleTimeout(),
            h.maxConnections(),
            h.maxInFlightBytesMib(),
            reference);
    Map<Signal, RequestConsumer> consumers = new EnumMap<>(Signal.class);
    consumers.put(
        Signal.TRACES,
        new RequestConsumer() {
          @Override
          public Admission consume(OtlpIndex request) {
            delivered.incrementAndGet();
            return Admission.ACCEPTED;
          }

          @Override
          public long retryDelayMillis() {
            return 1_000;
          }
        });
    receiver =
        (OtlpReceiver)
            new OtlpReceiverFactory()
                .create(
                    new ComponentSettings(
                        ComponentId.parse("otlp"), ComponentKind.RECEIVER, metrics),
                    new OtlpReceiverConfig(new OtlpReceiverConfig.Protocols(grpc, httpConfig)),
                    consumers);
    receiver.start(Host.of(Map.of(ComponentId.parse("basicauth"), auth)));
    channel =
        NettyChannelBuilder.forAddress("127.0.0.1", receiver.grpcPort()).usePlaintext().build();
  }

  @AfterEach
  void stop() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    receiver.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
  }

  private static String basic(String user, String password) {
    return "Basic "
        + Base64.getEncoder()
            .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }

  private HttpResponse<byte[]> post(String user, String password) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + receiver.httpPort() + "/v1/traces"))
            .timeout(TIMEOUT)
            .header("Content-Type", "application/x-protobuf")
            .header("Authorization", basic(user, password))
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build(),
        HttpResponse.BodyHandlers.ofByteArray());
  }

  private void export(String user, String password) {
    Metadata headers = new Metadata();
    headers.put(
        Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), basic(user, password));
    TraceServiceGrpc.newBlockingStub(channel)
        .withDeadlineAfter(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
        .export(SequencedSpans.request("svc", 0, 2));
  }

  @Test
  void aBurstOfWrongPasswordsEndsInRetryableRefusalsWithinTheBudget() throws Exception {
    assertThat(post("alice", "secret").statusCode()).isEqualTo(200);
    export("alice", "secret");
    long checksBefore = budget.checks();
    long spentBefore = budget.spentNanos();
    long startedNanos = System.nanoTime();

    int unauthorized = 0;
    int unavailable = 0;
    for (int i = 0; i < BURST; i++) {
      HttpResponse<byte[]> answer = post("alice", "wrong-" + i);
      if (answer.statusCode() == 401) {
        unauthorized++;
      } else {
        assertThat(answer.statusCode()).isEqualTo(503);
        assertThat(answer.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(answer.headers().firstValue("WWW-Authenticate")).isEmpty();
        assertThat(com.google.rpc.Status.parseFrom(answer.body()).getCode())
            .isEqualTo(Code.UNAVAILABLE_VALUE);
        unavailable++;
      }
      if (i % 10 == 0) {
        // Remembered before the burst: the budget does not apply to it.
        assertThat(post("alice", "secret").statusCode()).isEqualTo(200);
      }
    }
    int grpcUnavailable = 0;
    for (int i = 0; i < GRPC_BURST; i++) {
      String password = "grpc-wrong-" + i;
      StatusRuntimeException refused =
          catchThrowableOfType(StatusRuntimeException.class, () -> export("alice", password));
      if (refused.getStatus().getCode() == Status.Code.UNAVAILABLE) {
        com.google.rpc.Status details = StatusProto.fromThrowable(refused);
        assertThat(details.getDetails(0).unpack(RetryInfo.class).getRetryDelay().getSeconds())
            .isEqualTo(1);
        grpcUnavailable++;
      } else {
        assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
      }
      export("alice", "secret");
    }
    long elapsedNanos = System.nanoTime() - startedNanos;
    long spentNanos = budget.spentNanos() - spentBefore;

    // Every 401 was a distinct wrong password, so one slow check each; the rest were not checked.
    long slowChecks = budget.checks() - checksBefore;
    assertThat(slowChecks).isEqualTo(unauthorized + (GRPC_BURST - grpcUnavailable));
    assertThat(unavailable).isGreaterThan(BURST / 2);
    assertThat(grpcUnavailable).isGreaterThan(GRPC_BURST / 2);
    // One client at a time: the checks overshoot the budget by at most the last one.
    assertThat(spentNanos)
        .isLessThanOrEqualTo(
            budget.capacityNanos() + (long) (FRACTION * elapsedNanos) + budget.maxCostNanos());
    assertThat(MetricsText.of(metrics))
        .contains(
            "sluice_receiver_auth_deferred_requests_total{receiver=\"otlp\",transport=\"http\"} "
                + unavailable)
        .contains(
            "sluice_receiver_auth_deferred_requests_total{receiver=\"otlp\",transport=\"grpc\"} "
                + grpcUnavailable)
        .contains(
            "sluice_receiver_unauthenticated_requests_total{receiver=\"otlp\",transport=\"http\"} "
                + unauthorized);
    assertThat(delivered).hasValue(2 + BURST / 10 + GRPC_BURST);

    // A new client retrying as told gets in once the burst is over.
    int attempts = 0;
    HttpResponse<byte[]> answer;
    do {
      answer = post("bob", "bobs-secret");
      attempts++;
      if (answer.statusCode() == 503) {
        TimeUnit.SECONDS.sleep(Long.parseLong(answer.headers().firstValue("Retry-After").get()));
      }
    } while (answer.statusCode() == 503 && attempts < MAX_RETRIES);
    assertThat(answer.statusCode()).isEqualTo(200);
  }

  @Test
  void aRepeatedWrongPasswordIsRefused401WithoutASecondSlowCheck() throws Exception {
    assertThat(post("alice", "wrong").statusCode()).isEqualTo(401);
    long checks = budget.checks();

    for (int i = 0; i < 20; i++) {
      HttpResponse<byte[]> answer = post("alice", "wrong");
      assertThat(answer.statusCode()).isEqualTo(401);
      assertThat(answer.headers().firstValue("WWW-Authenticate"))
          .hasValueSatisfying(challenge -> assertThat(challenge).startsWith("Basic realm="));
      StatusRuntimeException refused =
          catchThrowableOfType(StatusRuntimeException.class, () -> export("alice", "wrong"));
      assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
    }

    assertThat(budget.checks()).isEqualTo(checks);
    assertThat(delivered).hasValue(0);
  }
}
