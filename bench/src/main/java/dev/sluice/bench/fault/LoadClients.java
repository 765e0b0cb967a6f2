package dev.sluice.bench.fault;

import dev.sluice.bench.load.PassThrough;
import dev.sluice.pdata.Signal;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Steady load on the collector: a few client threads on one gRPC connection, each sending one
 * request of numbered spans at a time, new numbers for every request. A request the collector
 * refuses (retryable, with its status details) is sent again, with the same spans, a few times, as
 * an SDK would; every outcome goes to the {@link Ledger}. Each thread is bounded in requests and in
 * time.
 */
final class LoadClients {
  /** How the clients send. */
  record Settings(
      int threads,
      int spansPerRequest,
      long deadlineMillis,
      int maxAttempts,
      long retryPauseMillis) {}

  private static final Metadata.Key<byte[]> STATUS_DETAILS =
      Metadata.Key.of("grpc-status-details-bin", Metadata.BINARY_BYTE_MARSHALLER);
  private static final long MAX_REQUESTS_PER_THREAD = 5_000_000;
  private static final long MAX_SENDING_MILLIS = TimeUnit.MINUTES.toMillis(15);
  private static final long PAUSE_AFTER_NO_ANSWER_MILLIS = 20;
  private static final long JOIN_MILLIS = 60_000;

  private final Ledger ledger;
  private final Settings settings;
  private final ManagedChannel channel;
  private final MethodDescriptor<byte[], byte[]> export =
      PassThrough.exportMethod(Signal.TRACES, PassThrough.BYTES, PassThrough.DISCARD);
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean stopping;

  LoadClients(Ledger ledger, int port, Settings settings) {
    this.ledger = ledger;
    this.settings = settings;
    this.channel = NettyChannelBuilder.forAddress(FaultDaemon.HOST, port).usePlaintext().build();
  }

  /** Starts the client threads; they run until {@link #stop}. */
  LoadClients start() {
    for (int i = 0; i < settings.threads(); i++) {
      Thread thread = new Thread(this::run, "fault-client-" + i);
      thread.setDaemon(true);
      threads.add(thread);
      thread.start();
    }
    return this;
  }

  private void run() {
    long endMillis = System.currentTimeMillis() + MAX_SENDING_MILLIS;
    for (long n = 0;
        n < MAX_REQUESTS_PER_THREAD && !stopping && System.currentTimeMillis() < endMillis;
        n++) {
      int count = settings.spansPerRequest();
      int first = ledger.take(count);
      Ledger.Outcome outcome = send(NumberedSpans.request(first, count));
      ledger.settle(first, count, outcome);
      if (outcome == Ledger.Outcome.UNANSWERED && !pause(PAUSE_AFTER_NO_ANSWER_MILLIS)) {
        return;
      }
    }
  }

  /** Sends one request, again while it is refused; its outcome over every attempt. */
  private Ledger.Outcome send(byte[] request) {
    boolean unanswered = false;
    for (int attempt = 1; ; attempt++) {
      try {
        ClientCalls.blockingUnaryCall(
            channel,
            export,
            CallOptions.DEFAULT.withDeadlineAfter(settings.deadlineMillis(), TimeUnit.MILLISECONDS),
            request);
        return Ledger.Outcome.OK;
      } catch (StatusRuntimeException e) {
        if (isRefusal(e)) {
          ledger.refusal(e.getStatus().getDescription());
        } else {
          unanswered = true;
        }
        if (unanswered || attempt >= settings.maxAttempts() || stopping) {
          return unanswered ? Ledger.Outcome.UNANSWERED : Ledger.Outcome.REFUSED;
        }
        if (!pause(settings.retryPauseMillis())) {
          return Ledger.Outcome.REFUSED;
        }
      }
    }
  }

  /**
   * A refusal the collector answered: UNAVAILABLE or RESOURCE_EXHAUSTED with its status details
   * (RetryInfo). A broken connection is UNAVAILABLE too, but without them.
   */
  static boolean isRefusal(StatusRuntimeException e) {
    Status.Code code = e.getStatus().getCode();
    Metadata trailers = e.getTrailers();
    return (code == Status.Code.UNAVAILABLE || code == Status.Code.RESOURCE_EXHAUSTED)
        && trailers != null
        && trailers.containsKey(STATUS_DETAILS);
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

  /** Stops after the requests under way and waits for the threads; throws if one does not end. */
  void stop() throws InterruptedException {
    stopping = true;
    for (Thread thread : threads) {
      thread.join(JOIN_MILLIS);
      if (thread.isAlive()) {
        throw new IllegalStateException(thread.getName() + " did not stop in time");
      }
    }
    channel.shutdownNow();
    channel.awaitTermination(5, TimeUnit.SECONDS);
  }
}
