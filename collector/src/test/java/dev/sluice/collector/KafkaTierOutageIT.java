package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.kafka.testkit.KafkaBroker;
import dev.sluice.testkit.Await;
import dev.sluice.testkit.SequencedSpans;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.BitSet;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The broker of the Kafka tier goes away for {@value #OUTAGE_SECONDS} s while a client keeps
 * sending to Sluice A (OTLP in, {@code kafka} out, acks all). A's sending queue holds what it
 * accepts and, once the queue is full, A refuses with retryable answers; Sluice B ({@code kafka}
 * in, OTLP out) stays up throughout. After the broker is back, every span A answered OK arrives at
 * B's sink; duplicates are counted and printed. Runs by failsafe (about a minute), not in the
 * default unit-test phase.
 */
class KafkaTierOutageIT {
  private static final int PARTITIONS = 4;
  private static final String TOPIC = "outage_spans";
  private static final long OUTAGE_SECONDS = 30;
  private static final int SPANS_PER_REQUEST = 20;
  private static final int SPANS_PER_TRACE = 5;

  /** Enough for about a third of the outage at the client's pace, so that A also refuses. */
  private static final int QUEUE_REQUESTS = 500;

  /** Bounds on the client: it stops at whichever comes first. */
  private static final int MAX_REQUESTS = 6_000;

  private static final long MAX_SEND_SECONDS = 70;
  private static final long SEND_PAUSE_MILLIS = 20;
  private static final long CALL_DEADLINE_SECONDS = 5;
  private static final long SENDING_AFTER_OUTAGE_MILLIS = 3_000;
  private static final int DELIVERY_TIMEOUT_SECONDS = 45;
  private static final long RETRY_DELAY_MILLIS = 200;

  private static final Set<Status.Code> RETRYABLE =
      Set.of(Status.Code.UNAVAILABLE, Status.Code.RESOURCE_EXHAUSTED);

  @RegisterExtension static final KafkaBroker BROKER = new KafkaBroker(PARTITIONS);

  @Test
  void everySpanAcceptedDuringABrokerOutageArrivesOnceTheBrokerIsBack() throws Exception {
    BROKER.createTopic(TOPIC, PARTITIONS);
    long started = System.nanoTime();
    try (OtlpSink sink = OtlpSink.start()) {
      Collector b = TestCollectors.start(collectorB(sink.endpoint()), Collector.Options.defaults());
      Collector a = null;
      ManagedChannel channel = null;
      Client client = new Client();
      Thread sender = new Thread(client::run, "otlp-client");
      try {
        a =
            TestCollectors.start(
                collectorA(),
                new Collector.Options(
                    Collector.Options.defaults().maxPipelineBytes(),
                    Long.MAX_VALUE / 4,
                    RETRY_DELAY_MILLIS));
        channel = TestCollectors.channel(a);
        client.stub = TraceServiceGrpc.newBlockingStub(channel);
        sender.start();
        Await.until("the tier delivers before the outage", () -> sink.spans() > 0);

        BROKER.stop();
        long acceptedBefore = client.acceptedSpans.get();
        long refusedBefore = client.refusedRequests();
        Thread.sleep(TimeUnit.SECONDS.toMillis(OUTAGE_SECONDS));
        long restartNanos = System.nanoTime();
        BROKER.start();
        // Until the restarted broker answers, A still has nowhere to write: that is the outage.
        long restartMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restartNanos);
        long acceptedDuring = client.acceptedSpans.get() - acceptedBefore;
        long refusedDuring = client.refusedRequests() - refusedBefore;

        Thread.sleep(SENDING_AFTER_OUTAGE_MILLIS);
        client.stop.set(true);
        sender.join(TimeUnit.SECONDS.toMillis(CALL_DEADLINE_SECONDS * 2));
        assertThat(
                Await.within(
                    Duration.ofSeconds(DELIVERY_TIMEOUT_SECONDS),
                    () -> missing(sink, client.accepted).isEmpty()))
            .as("every accepted span arrives; missing %s", missing(sink, client.accepted))
            .isTrue();

        List<Integer> arrived = BackpressureTest.spanNumbers(sink);
        BitSet distinct = new BitSet();
        int duplicates = 0;
        for (int number : arrived) {
          assertThat(number).as("only spans sent arrive").isBetween(0, client.sentSpans - 1);
          if (distinct.get(number)) {
            duplicates++;
          }
          distinct.set(number);
        }
        System.out.printf(
            "KafkaTierOutageIT: broker down %d s plus %d ms to start again; %d requests sent, %d spans accepted by A (%d"
                + " during the outage), %d requests refused (%d during the outage) %s;"
                + " %d spans delivered by B, %d duplicate spans, none missing; %d s in all%n",
            OUTAGE_SECONDS,
            restartMillis,
            client.sentSpans / SPANS_PER_REQUEST,
            client.accepted.cardinality(),
            acceptedDuring,
            client.refusedRequests(),
            refusedDuring,
            client.refusals,
            distinct.cardinality(),
            duplicates,
            TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started));
        assertThat(acceptedDuring).as("A's queue held data while the broker was down").isPositive();
        assertThat(client.refusals.keySet())
            .as("refusals a client can retry")
            .isSubsetOf(RETRYABLE);
        assertThat(client.unexpected).as("other failures").isNull();
      } finally {
        client.stop.set(true);
        sender.join(TimeUnit.SECONDS.toMillis(CALL_DEADLINE_SECONDS * 2));
        if (channel != null) {
          channel.shutdownNow();
        }
        if (a != null) {
          a.shutdown(TimeUnit.SECONDS.toNanos(10));
        }
        b.shutdown(TimeUnit.SECONDS.toNanos(10));
        if (!BROKER.isRunning()) {
          BROKER.start();
        }
      }
    }
  }

  /** The accepted spans that did not arrive at the sink. */
  private static BitSet missing(OtlpSink sink, BitSet accepted) {
    BitSet missing;
    synchronized (accepted) {
      missing = (BitSet) accepted.clone();
    }
    for (int number : BackpressureTest.spanNumbers(sink)) {
      missing.clear(number);
    }
    return missing;
  }

  /** Sends numbered spans to A at a steady pace; remembers which A accepted and how it refused. */
  private static final class Client {
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicLong acceptedSpans = new AtomicLong();
    final BitSet accepted = new BitSet();
    final Map<Status.Code, Integer> refusals = new EnumMap<>(Status.Code.class);
    volatile TraceServiceGrpc.TraceServiceBlockingStub stub;
    volatile int sentSpans;
    volatile Throwable unexpected;

    synchronized long refusedRequests() {
      return refusals.values().stream().mapToLong(Integer::longValue).sum();
    }

    void run() {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(MAX_SEND_SECONDS);
      try {
        for (int request = 0;
            request < MAX_REQUESTS && !stop.get() && System.nanoTime() - deadline < 0;
            request++) {
          int first = request * SPANS_PER_REQUEST;
          sentSpans = first + SPANS_PER_REQUEST;
          try {
            stub.withDeadlineAfter(CALL_DEADLINE_SECONDS, TimeUnit.SECONDS).export(request(first));
            synchronized (accepted) {
              accepted.set(first, first + SPANS_PER_REQUEST);
            }
            acceptedSpans.addAndGet(SPANS_PER_REQUEST);
          } catch (StatusRuntimeException e) {
            synchronized (this) {
              refusals.merge(e.getStatus().getCode(), 1, Integer::sum);
            }
          }
          Thread.sleep(SEND_PAUSE_MILLIS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (RuntimeException e) {
        unexpected = e;
      }
    }

    /** Spans numbered from {@code first}, five to a trace, each trace with its own ID. */
    private static ExportTraceServiceRequest request(int first) {
      ExportTraceServiceRequest.Builder request =
          SequencedSpans.request("outage", first, SPANS_PER_REQUEST).toBuilder();
      ScopeSpans.Builder scope = request.getResourceSpansBuilder(0).getScopeSpansBuilder(0);
      for (int i = 0; i < scope.getSpansCount(); i++) {
        int number = first + i;
        byte[] traceId =
            ByteBuffer.allocate(16).putLong(1L).putLong(number / SPANS_PER_TRACE).array();
        byte[] spanId = ByteBuffer.allocate(8).putLong(number + 1L).array();
        scope
            .getSpansBuilder(i)
            .setTraceId(ByteString.copyFrom(traceId))
            .setSpanId(ByteString.copyFrom(spanId));
      }
      return request.build();
    }
  }

  private static String collectorA() {
    return String.join(
        "\n",
        "receivers:",
        "  otlp:",
        "    protocols:",
        "      grpc:",
        "        endpoint: 127.0.0.1:0",
        "exporters:",
        "  kafka:",
        "    brokers: [" + BROKER.bootstrapServers() + "]",
        "    timeout: 2s",
        "    partition_traces_by_id: true",
        "    traces:",
        "      topic: " + TOPIC,
        "    producer:",
        "      required_acks: all",
        "      compression: lz4",
        "    sending_queue:",
        "      queue_size: " + QUEUE_REQUESTS,
        "    retry_on_failure:",
        "      initial_interval: 200ms",
        "      max_interval: 1s",
        "      max_elapsed_time: 120s",
        "service:",
        "  telemetry:",
        "    metrics:",
        "      level: none",
        "  pipelines:",
        "    traces:",
        "      receivers: [otlp]",
        "      exporters: [kafka]",
        "");
  }

  private static String collectorB(String sink) {
    return String.join(
        "\n",
        "receivers:",
        "  kafka:",
        "    brokers: [" + BROKER.bootstrapServers() + "]",
        "    group_id: tier-outage",
        "    initial_offset: earliest",
        "    session_timeout: 6s",
        "    heartbeat_interval: 1s",
        "    traces:",
        "      topics: [" + TOPIC + "]",
        "exporters:",
        "  otlp:",
        "    endpoint: " + sink,
        "    tls:",
        "      insecure: true",
        "service:",
        "  telemetry:",
        "    metrics:",
        "      level: none",
        "  pipelines:",
        "    traces:",
        "      receivers: [kafka]",
        "      exporters: [otlp]",
        "");
  }
}
