package dev.sluice.receiver.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.Admission;
import dev.sluice.component.AnswerSink;
import dev.sluice.component.RequestConsumer;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.testkit.MetricsText;
import dev.sluice.testkit.SequencedSpans;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A pipeline that answers later, from another thread, as a durable one does once the request is in
 * its log: the client gets that answer, and over HTTP/1.1 requests pipelined on one connection are
 * answered in the order they came, whatever order their pipelines answer in.
 */
class LateAnswerTest {
  private static final long ANSWER_DELAY_MILLIS = 150;

  /** Answers every request ANSWER_DELAY_MILLIS late, with {@code answer}. */
  private static final class LateConsumer implements RequestConsumer {
    final List<OtlpIndex> requests = new CopyOnWriteArrayList<>();
    final ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();
    volatile Admission answer = Admission.ACCEPTED;

    @Override
    public Admission consume(OtlpIndex request) {
      throw new AssertionError("receivers offer with an answer sink");
    }

    @Override
    public void consume(OtlpIndex request, AnswerSink sink) {
      requests.add(request);
      Admission admission = answer;
      later.schedule(() -> sink.answer(admission), ANSWER_DELAY_MILLIS, TimeUnit.MILLISECONDS);
    }

    @Override
    public long retryDelayMillis() {
      return 700;
    }
  }

  private final MetricRegistry metrics = new MetricRegistry();
  private final LateConsumer traces = new LateConsumer();
  private OtlpReceiver receiver;
  private ManagedChannel channel;

  @AfterEach
  void stop() throws Exception {
    if (channel != null) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    TestReceivers.shutdown(receiver);
    traces.later.shutdownNow();
  }

  private void startGrpc() throws Exception {
    GrpcServerConfig grpc =
        new GrpcServerConfig(
            "127.0.0.1:0", "tcp", null, 4, 0, GrpcServerConfig.Keepalive.DEFAULT, false);
    receiver = TestReceivers.start(metrics, grpc, null, traces);
    channel =
        NettyChannelBuilder.forAddress("127.0.0.1", receiver.grpcPort()).usePlaintext().build();
  }

  private void startHttp() throws Exception {
    HttpServerConfig http =
        new HttpServerConfig(
            "127.0.0.1:0", null, null, 1 << 20, false, "/v1/traces", "/v1/metrics", "/v1/logs");
    receiver = TestReceivers.start(metrics, null, http, traces);
  }

  @Test
  void aGrpcCallGetsTheAnswerThePipelineGivesLater() throws Exception {
    startGrpc();
    long start = System.nanoTime();

    TraceServiceGrpc.newBlockingStub(channel)
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .export(SequencedSpans.request("svc", 0, 5));

    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(Duration.ofMillis(ANSWER_DELAY_MILLIS));
    assertThat(traces.requests).hasSize(1);
    traces.answer = Admission.FULL;
    try {
      TraceServiceGrpc.newBlockingStub(channel)
          .withDeadlineAfter(10, TimeUnit.SECONDS)
          .export(SequencedSpans.request("svc", 5, 5));
      throw new AssertionError("a late refusal must reach the client");
    } catch (StatusRuntimeException e) {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    }
    assertThat(MetricsText.of(metrics))
        .contains("otelcol_receiver_accepted_spans_total{receiver=\"otlp\",transport=\"grpc\"} 5")
        .contains("otelcol_receiver_refused_spans_total{receiver=\"otlp\",transport=\"grpc\"} 5");
  }

  @Test
  void pipelinedHttpRequestsAreAnsweredInTheirOrderWhenTheFirstIsAnsweredLate() throws Exception {
    startHttp();
    byte[] body = SequencedSpans.request("svc", 0, 3).toByteArray();
    try (Socket socket = new Socket("127.0.0.1", receiver.httpPort())) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      // Three requests in one write: an export answered late, a 404 answered at once, an export.
      out.write(RawHttp.postHead("/v1/traces", body.length, ""));
      out.write(body);
      out.write(RawHttp.postHead("/nowhere", 0, ""));
      out.write(RawHttp.postHead("/v1/traces", body.length, ""));
      out.write(body);
      out.flush();
      InputStream in = socket.getInputStream();

      String first = RawHttp.readHead(in);
      RawHttp.readBody(in, first);
      String second = RawHttp.readHead(in);
      RawHttp.readBody(in, second);
      String third = RawHttp.readHead(in);
      RawHttp.readBody(in, third);

      assertThat(first).startsWith("HTTP/1.1 200");
      assertThat(second).startsWith("HTTP/1.1 404");
      assertThat(third).startsWith("HTTP/1.1 200");
    }
    assertThat(traces.requests).hasSize(2);
  }

  @Test
  void aLateHttpRefusalIsAnsweredAsRetryable() throws Exception {
    startHttp();
    traces.answer = Admission.FULL;
    byte[] body = SequencedSpans.request("svc", 0, 3).toByteArray();
    try (Socket socket = new Socket("127.0.0.1", receiver.httpPort())) {
      socket.setSoTimeout(10_000);
      socket.getOutputStream().write(RawHttp.postHead("/v1/traces", body.length, ""));
      socket.getOutputStream().write(body);
      String head = RawHttp.readHead(socket.getInputStream());

      assertThat(head).startsWith("HTTP/1.1 503").containsIgnoringCase("retry-after: 1");
    }
  }
}
