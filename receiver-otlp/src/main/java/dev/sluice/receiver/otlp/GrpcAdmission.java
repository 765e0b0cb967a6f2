package dev.sluice.receiver.otlp;

import dev.sluice.core.grpc.OtlpGrpc;
import dev.sluice.core.otlp.Signal;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.HashMap;
import java.util.Map;

/**
 * Refuses an Export call at its start, when its headers have arrived and before any message is
 * requested, if {@link EdgeAdmission} says so: the call is closed with UNAVAILABLE and RetryInfo,
 * its message is never read, and what the client still sends for it is dropped by the transport as
 * it arrives. Calls it lets through go on to the service, which requests their message.
 */
final class GrpcAdmission implements ServerInterceptor {
  static final Metadata.Key<byte[]> STATUS_DETAILS =
      Metadata.Key.of("grpc-status-details-bin", Metadata.BINARY_BYTE_MARSHALLER);

  private static final ServerCall.Listener<Object> NOTHING = new ServerCall.Listener<>() {};

  private final EdgeAdmission admission;
  private final Map<String, Signal> signals = new HashMap<>();

  GrpcAdmission(EdgeAdmission admission) {
    this.admission = admission;
    for (Signal signal : Signal.values()) {
      signals.put(OtlpGrpc.serviceName(signal), signal);
    }
  }

  @Override
  @SuppressWarnings("unchecked")
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    Signal signal = signals.get(call.getMethodDescriptor().getServiceName());
    EdgeAdmission.Refusal refusal = signal == null ? null : admission.atHeaders(signal);
    if (refusal == null) {
      return next.startCall(call, headers);
    }
    call.close(
        Status.UNAVAILABLE.withDescription(refusal.message()),
        unavailableTrailers(refusal.message(), refusal.retryDelayMillis()));
    return (ServerCall.Listener<Q>) NOTHING;
  }

  /** Trailers whose {@code grpc-status-details-bin} is UNAVAILABLE with a RetryInfo. */
  static Metadata unavailableTrailers(String message, long retryDelayMillis) {
    Metadata trailers = new Metadata();
    trailers.put(
        STATUS_DETAILS,
        RpcStatus.encode(Status.Code.UNAVAILABLE.value(), message, retryDelayMillis));
    return trailers;
  }
}
