package dev.sluice.exporter.otlp.testkit;

import dev.sluice.grpc.ZstdCodec;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.DecompressorRegistry;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerStreamTracer;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse;
import io.opentelemetry.proto.collector.logs.v1.LogsServiceGrpc;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse;
import io.opentelemetry.proto.collector.metrics.v1.MetricsServiceGrpc;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import io.opentelemetry.proto.metrics.v1.Metric;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A test OTLP destination: a grpc-java server on the opentelemetry-proto stubs (protobuf-java
 * parses everything it gets) that records requests and headers, and can fail calls on script or
 * hold them until released.
 */
public final class OtlpSink implements AutoCloseable {
  private static final Context.Key<Metadata> HEADERS = Context.key("headers");

  private final Server server;
  private final List<ExportTraceServiceRequest> traces = new ArrayList<>();
  private final List<ExportMetricsServiceRequest> metrics = new ArrayList<>();
  private final List<ExportLogsServiceRequest> logs = new ArrayList<>();
  private final List<Metadata> headers = new ArrayList<>();
  private final Deque<Supplier<StatusRuntimeException>> failures = new ArrayDeque<>();
  private volatile CountDownLatch gate = new CountDownLatch(0);
  private volatile boolean forgetHeld;
  private long partialRejections;
  private int calls;
  private final List<Long> callNanos = new ArrayList<>();
  private final List<Long> wireSizes = new ArrayList<>();

  private OtlpSink(int port) throws IOException {
    ServerInterceptor captureHeaders =
        new ServerInterceptor() {
          @Override
          public <Q, R> ServerCall.Listener<Q> interceptCall(
              ServerCall<Q, R> call, Metadata metadata, ServerCallHandler<Q, R> next) {
            return Contexts.interceptCall(
                Context.current().withValue(HEADERS, metadata), call, metadata, next);
          }
        };
    server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", port))
            .maxInboundMessageSize(64 << 20)
            .addStreamTracerFactory(
                new ServerStreamTracer.Factory() {
                  @Override
                  public ServerStreamTracer newServerStreamTracer(
                      String method, Metadata metadata) {
                    return new ServerStreamTracer() {
                      @Override
                      public void inboundMessageRead(
                          int seqNo, long wireSize, long uncompressedSize) {
                        recordWireSize(wireSize);
                      }
                    };
                  }
                })
            .decompressorRegistry(
                DecompressorRegistry.getDefaultInstance().with(ZstdCodec.INSTANCE, true))
            .addService(ServerInterceptors.intercept(new Traces(), captureHeaders))
            .addService(ServerInterceptors.intercept(new Metrics(), captureHeaders))
            .addService(ServerInterceptors.intercept(new Logs(), captureHeaders))
            .build()
            .start();
  }

  /** Starts a sink on a free loopback port. */
  public static OtlpSink start() throws IOException {
    return new OtlpSink(0);
  }

  public int port() {
    return ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
  }

  public String endpoint() {
    return "127.0.0.1:" + port();
  }

  /** Fails the next calls with these errors, in order. */
  public synchronized OtlpSink failNext(Supplier<StatusRuntimeException>... errors) {
    failures.addAll(List.of(errors));
    return this;
  }

  /** Answers the next successful calls with a partial success rejecting this many units. */
  public synchronized OtlpSink rejectPartially(long units) {
    partialRejections = units;
    return this;
  }

  /** Holds every call until {@link #release()}. */
  public OtlpSink hold() {
    gate = new CountDownLatch(1);
    return this;
  }

  public OtlpSink release() {
    gate.countDown();
    return this;
  }

  /**
   * From now on, calls held by {@link #hold()} are answered UNAVAILABLE when released and not
   * recorded: a backend that never took what it had not answered (a crash test releases them only
   * once their client is dead).
   */
  public OtlpSink forgetHeldCalls() {
    forgetHeld = true;
    return this;
  }

  /** Calls received, failed ones included. */
  public synchronized int calls() {
    return calls;
  }

  /** When each call arrived ({@link System#nanoTime()}), failed ones included. */
  public synchronized List<Long> callTimes() {
    return List.copyOf(callNanos);
  }

  public synchronized List<ExportTraceServiceRequest> traces() {
    return List.copyOf(traces);
  }

  public synchronized List<ExportMetricsServiceRequest> metrics() {
    return List.copyOf(metrics);
  }

  public synchronized List<ExportLogsServiceRequest> logs() {
    return List.copyOf(logs);
  }

  public synchronized List<Metadata> headers() {
    return List.copyOf(headers);
  }

  /** Each message's size as it came, compressed if it was, in the order they came. */
  public synchronized List<Long> wireSizes() {
    return List.copyOf(wireSizes);
  }

  private synchronized void recordWireSize(long bytes) {
    wireSizes.add(bytes);
  }

  public synchronized long spans() {
    return traces.stream()
        .flatMap(r -> r.getResourceSpansList().stream())
        .flatMap(r -> r.getScopeSpansList().stream())
        .mapToLong(s -> s.getSpansCount())
        .sum();
  }

  public synchronized long logRecords() {
    return logs.stream()
        .flatMap(r -> r.getResourceLogsList().stream())
        .flatMap(r -> r.getScopeLogsList().stream())
        .mapToLong(s -> s.getLogRecordsCount())
        .sum();
  }

  public synchronized long dataPoints() {
    return metrics.stream()
        .flatMap(r -> r.getResourceMetricsList().stream())
        .flatMap(r -> r.getScopeMetricsList().stream())
        .flatMap(s -> s.getMetricsList().stream())
        .mapToLong(OtlpSink::dataPoints)
        .sum();
  }

  private static long dataPoints(Metric metric) {
    switch (metric.getDataCase()) {
      case GAUGE:
        return metric.getGauge().getDataPointsCount();
      case SUM:
        return metric.getSum().getDataPointsCount();
      case HISTOGRAM:
        return metric.getHistogram().getDataPointsCount();
      case EXPONENTIAL_HISTOGRAM:
        return metric.getExponentialHistogram().getDataPointsCount();
      case SUMMARY:
        return metric.getSummary().getDataPointsCount();
      default:
        return 0;
    }
  }

  /** Waits until {@code condition} holds; false if the timeout passed first. */
  public boolean await(Supplier<Boolean> condition, long timeout, TimeUnit unit)
      throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    synchronized (this) {
      while (!condition.get()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
      return true;
    }
  }

  /** Records the call; returns the error to answer with, or null to accept. */
  private StatusRuntimeException receive(Runnable record) {
    CountDownLatch held = gate;
    boolean holding = held.getCount() > 0;
    try {
      held.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Status.CANCELLED.asRuntimeException();
    }
    synchronized (this) {
      calls++;
      callNanos.add(System.nanoTime());
      headers.add(HEADERS.get());
      if (holding && forgetHeld) {
        notifyAll();
        return Status.UNAVAILABLE.withDescription("held, then forgotten").asRuntimeException();
      }
      Supplier<StatusRuntimeException> failure = failures.pollFirst();
      if (failure != null) {
        notifyAll();
        return failure.get();
      }
      record.run();
      notifyAll();
      return null;
    }
  }

  private synchronized long takeRejections() {
    return partialRejections;
  }

  private final class Traces extends TraceServiceGrpc.TraceServiceImplBase {
    @Override
    public void export(
        ExportTraceServiceRequest request, StreamObserver<ExportTraceServiceResponse> response) {
      StatusRuntimeException error = receive(() -> traces.add(request));
      if (error != null) {
        response.onError(error);
        return;
      }
      ExportTraceServiceResponse.Builder answer = ExportTraceServiceResponse.newBuilder();
      long rejected = takeRejections();
      if (rejected > 0) {
        answer.getPartialSuccessBuilder().setRejectedSpans(rejected).setErrorMessage("too old");
      }
      response.onNext(answer.build());
      response.onCompleted();
    }
  }

  private final class Metrics extends MetricsServiceGrpc.MetricsServiceImplBase {
    @Override
    public void export(
        ExportMetricsServiceRequest request,
        StreamObserver<ExportMetricsServiceResponse> response) {
      StatusRuntimeException error = receive(() -> metrics.add(request));
      if (error != null) {
        response.onError(error);
        return;
      }
      response.onNext(ExportMetricsServiceResponse.getDefaultInstance());
      response.onCompleted();
    }
  }

  private final class Logs extends LogsServiceGrpc.LogsServiceImplBase {
    @Override
    public void export(
        ExportLogsServiceRequest request, StreamObserver<ExportLogsServiceResponse> response) {
      StatusRuntimeException error = receive(() -> logs.add(request));
      if (error != null) {
        response.onError(error);
        return;
      }
      response.onNext(ExportLogsServiceResponse.getDefaultInstance());
      response.onCompleted();
    }
  }

  @Override
  public void close() throws InterruptedException {
    release();
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }
}
