package dev.sluice.receiver.otlp;

import dev.sluice.grpc.OtlpGrpc;
import dev.sluice.pdata.Signal;
import io.grpc.ForwardingServerCall;
import io.grpc.ForwardingServerCallListener;
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
 * it arrives. Calls it lets through go on to the service, which requests their message, guarded
 * ({@link GuardedCall}) so that their {@link GrpcInFlightTracer} can still refuse them while their
 * message is arriving.
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
      GrpcInFlightTracer tracer = GrpcInFlightTracer.KEY.get();
      if (tracer == null) {
        return next.startCall(call, headers);
      }
      GuardedCall<Q, R> guarded = new GuardedCall<>(call, admission, signal);
      tracer.admitted(guarded);
      return guarded.guard(next.startCall(guarded, headers));
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

  /**
   * A call that can be refused while its message is still arriving: closed with UNAVAILABLE and
   * RetryInfo, after which what the service would still do with it (its message, its answer) is
   * dropped, since the client has its answer. All on the call's transport thread.
   */
  static final class GuardedCall<Q, R>
      extends ForwardingServerCall.SimpleForwardingServerCall<Q, R> {
    private final EdgeAdmission admission;
    private final Signal signal;
    private volatile boolean refused;

    GuardedCall(ServerCall<Q, R> call, EdgeAdmission admission, Signal signal) {
      super(call);
      this.admission = admission;
      this.signal = signal;
    }

    /** Refuses the call because the bytes in flight went past their bound; once only. */
    void refuseInFlight() {
      if (refused) {
        return;
      }
      refused = true;
      EdgeAdmission.Refusal refusal = admission.overshot(signal);
      super.close(
          Status.UNAVAILABLE.withDescription(refusal.message()),
          unavailableTrailers(refusal.message(), refusal.retryDelayMillis()));
    }

    @Override
    public void sendHeaders(Metadata headers) {
      if (!refused) {
        super.sendHeaders(headers);
      }
    }

    @Override
    public void sendMessage(R message) {
      if (!refused) {
        super.sendMessage(message);
      }
    }

    @Override
    public void close(Status status, Metadata trailers) {
      if (!refused) {
        super.close(status, trailers);
      }
    }

    ServerCall.Listener<Q> guard(ServerCall.Listener<Q> listener) {
      return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(listener) {
        @Override
        public void onMessage(Q message) {
          if (!refused) {
            super.onMessage(message);
          }
        }

        @Override
        public void onHalfClose() {
          if (!refused) {
            super.onHalfClose();
          }
        }

        @Override
        public void onReady() {
          if (!refused) {
            super.onReady();
          }
        }
      };
    }
  }
}
