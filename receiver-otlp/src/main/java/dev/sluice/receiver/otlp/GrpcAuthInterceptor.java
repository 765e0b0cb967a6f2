package dev.sluice.receiver.otlp;

import dev.sluice.component.AuthOutcome;
import dev.sluice.component.RequestHeaders;
import dev.sluice.component.ServerAuthenticator;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Checks each call's metadata with the server's authenticator before the call starts: a call it
 * refuses is closed with {@code UNAUTHENTICATED} without ever being handed to the service, so its
 * message is never requested, read or decompressed. A call it cannot check now is closed the same
 * way with {@code UNAVAILABLE} and a {@code RetryInfo}, which clients retry.
 */
final class GrpcAuthInterceptor implements ServerInterceptor {
  private final ServerAuthenticator authenticator;
  private final ReceiverAuth.Refusals refusals;

  /** Metadata keys by header name: the authenticator asks for the same one or two each call. */
  private final ConcurrentHashMap<String, Metadata.Key<String>> keys = new ConcurrentHashMap<>();

  GrpcAuthInterceptor(ServerAuthenticator authenticator, ReceiverAuth.Refusals refusals) {
    this.authenticator = authenticator;
    this.refusals = refusals;
  }

  @Override
  public <Q, A> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
    RequestHeaders view = name -> headers.get(key(name));
    AuthOutcome outcome = authenticator.check(view);
    if (outcome == AuthOutcome.ACCEPTED) {
      return next.startCall(call, headers);
    }
    if (outcome == AuthOutcome.TRY_LATER) {
      refusals.countDeferred();
      String message = authenticator.tryLater();
      call.close(
          Status.UNAVAILABLE.withDescription(message),
          GrpcAdmission.unavailableTrailers(message, ReceiverAuth.RETRY_DELAY_MILLIS));
    } else {
      refusals.unauthenticated().increment();
      call.close(Status.UNAUTHENTICATED.withDescription(authenticator.refusal()), new Metadata());
    }
    return new ServerCall.Listener<>() {};
  }

  private Metadata.Key<String> key(String name) {
    Metadata.Key<String> key = keys.get(name);
    if (key == null) {
      key =
          keys.computeIfAbsent(
              name,
              n -> Metadata.Key.of(n.toLowerCase(Locale.ROOT), Metadata.ASCII_STRING_MARSHALLER));
    }
    return key;
  }
}
