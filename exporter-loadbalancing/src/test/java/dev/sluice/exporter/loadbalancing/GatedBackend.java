package dev.sluice.exporter.loadbalancing;

import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A backend of the pool as an operator may have misconfigured it: a real gRPC trace server on
 * loopback with an interceptor in front, as an authenticator or a proxy is, that refuses calls
 * before the service sees them. It can require a bearer token (and answer {@code UNAUTHENTICATED}
 * without it), refuse every call with a status, or let calls through to a service that records what
 * it took.
 */
final class GatedBackend implements AutoCloseable {
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final Server server;
  private final List<ExportTraceServiceRequest> traces = new ArrayList<>();
  private final AtomicInteger refused = new AtomicInteger();
  private volatile String requiredToken;
  private volatile Status refusal;

  private GatedBackend() throws IOException {
    ServerInterceptor gate =
        new ServerInterceptor() {
          @Override
          public <Q, R> ServerCall.Listener<Q> interceptCall(
              ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
            Status status = refusal;
            String token = requiredToken;
            if (status == null
                && token != null
                && !("Bearer " + token).equals(headers.get(AUTHORIZATION))) {
              status = Status.UNAUTHENTICATED.withDescription("missing or wrong bearer token");
            }
            if (status == null) {
              return next.startCall(call, headers);
            }
            refused.incrementAndGet();
            call.close(status, new Metadata());
            return new ServerCall.Listener<>() {};
          }
        };
    server =
        NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
            .addService(ServerInterceptors.intercept(new Traces(), gate))
            .build()
            .start();
  }

  /** A backend that takes everything until told otherwise. */
  static GatedBackend start() throws IOException {
    return new GatedBackend();
  }

  /** From now on, calls without {@code Authorization: Bearer <token>} are UNAUTHENTICATED. */
  GatedBackend requireToken(String token) {
    requiredToken = token;
    return this;
  }

  /** From now on, every call is answered with {@code status}; null lets them through again. */
  GatedBackend refuseWith(Status status) {
    refusal = status;
    return this;
  }

  /** Takes everything from now on. */
  GatedBackend open() {
    requiredToken = null;
    refusal = null;
    return this;
  }

  String endpoint() {
    return "127.0.0.1:" + ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
  }

  int refusedCalls() {
    return refused.get();
  }

  synchronized List<ExportTraceServiceRequest> traces() {
    return List.copyOf(traces);
  }

  private synchronized void record(ExportTraceServiceRequest request) {
    traces.add(request);
  }

  private final class Traces extends TraceServiceGrpc.TraceServiceImplBase {
    @Override
    public void export(
        ExportTraceServiceRequest request, StreamObserver<ExportTraceServiceResponse> response) {
      record(request);
      response.onNext(ExportTraceServiceResponse.getDefaultInstance());
      response.onCompleted();
    }
  }

  @Override
  public void close() {
    server.shutdownNow();
    try {
      server.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
