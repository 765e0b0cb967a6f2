package dev.sluice.bench.hostile;

import dev.sluice.bench.load.PassThrough;
import dev.sluice.pdata.Signal;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A well-behaved OTLP client beside the hostile ones: valid trace requests over gRPC (encoded by
 * protobuf-java, sent by grpc-java as they are), one at a time, a short pause between them,
 * retrying what the daemon refuses as backpressure as an SDK would. It remembers the hash of every
 * span it had accepted, for the sink to be checked against.
 */
final class GoodClient implements AutoCloseable {
  private static final int SPANS_PER_REQUEST = 10;

  /** Sent even when stopped sooner, so that every daemon's delivery is checked on something. */
  private static final int MIN_REQUESTS = 20;

  private static final long PAUSE_MILLIS = 10;
  private static final long RETRY_PAUSE_MILLIS = 50;
  private static final int MAX_ATTEMPTS = 100;
  private static final long TIMEOUT_SECONDS = 30;

  private final ManagedChannel channel;
  private final Thread thread;
  private final Map<Integer, Long> accepted = new ConcurrentHashMap<>();
  private final AtomicLong sentRequests = new AtomicLong();
  private final AtomicLong retries = new AtomicLong();
  private final Map<String, Long> failures = new ConcurrentHashMap<>();
  private final long maxRequests;
  private volatile boolean stopping;

  private final int firstSequence;

  GoodClient(String host, int port, long maxRequests, int firstSequence) {
    this.firstSequence = firstSequence;
    this.channel = NettyChannelBuilder.forAddress(host, port).usePlaintext().build();
    this.maxRequests = maxRequests;
    this.thread = new Thread(this::run, "good-client");
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  private void run() {
    MethodDescriptor<byte[], byte[]> export =
        PassThrough.exportMethod(Signal.TRACES, PassThrough.BYTES, PassThrough.DISCARD);
    int sequence = firstSequence;
    for (long n = 0; n < maxRequests && !(stopping && n >= MIN_REQUESTS); n++) {
      ExportTraceServiceRequest request = GoodTraffic.request(sequence, SPANS_PER_REQUEST);
      sequence += SPANS_PER_REQUEST;
      sentRequests.incrementAndGet();
      if (send(export, request.toByteArray())) {
        for (ResourceSpans block : request.getResourceSpansList()) {
          for (ScopeSpans scope : block.getScopeSpansList()) {
            for (Span span : scope.getSpansList()) {
              accepted.put(GoodTraffic.sequence(span.getSpanId()), GoodTraffic.hash(span));
            }
          }
        }
      }
      if (!pause(PAUSE_MILLIS)) {
        return;
      }
    }
  }

  private boolean send(MethodDescriptor<byte[], byte[]> export, byte[] request) {
    for (int attempt = 1; ; attempt++) {
      try {
        ClientCalls.blockingUnaryCall(
            channel,
            export,
            CallOptions.DEFAULT.withDeadlineAfter(TIMEOUT_SECONDS, TimeUnit.SECONDS),
            request);
        return true;
      } catch (StatusRuntimeException e) {
        Status.Code code = e.getStatus().getCode();
        if (code == Status.Code.UNAVAILABLE && attempt < MAX_ATTEMPTS && !stopping) {
          retries.incrementAndGet();
          pause(RETRY_PAUSE_MILLIS);
          continue;
        }
        failures.merge(
            code + ": " + Verdict.shorten(e.getStatus().getDescription()), 1L, Long::sum);
        return false;
      }
    }
  }

  private static boolean pause(long millis) {
    try {
      Thread.sleep(millis);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Stops sending after the request under way (once at least {@code MIN_REQUESTS} were sent). */
  void stop() throws InterruptedException {
    stopping = true;
    thread.join(TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS * 2));
  }

  /** The hash of every span the daemon accepted, by sequence number. */
  Map<Integer, Long> accepted() {
    return accepted;
  }

  long sentRequests() {
    return sentRequests.get();
  }

  long sentSpans() {
    return sentRequests.get() * SPANS_PER_REQUEST;
  }

  long retries() {
    return retries.get();
  }

  Map<String, Long> failures() {
    return failures;
  }

  @Override
  public void close() {
    channel.shutdownNow();
  }
}
