package dev.sluice.receiver.otlp;

import dev.sluice.component.AuthConfig;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Host;
import dev.sluice.component.ServerAuthenticator;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.component.telemetry.RateLimitedLog;
import java.util.logging.Level;

/**
 * Puts the configured authenticators in front of the receiver's servers, and counts the requests
 * they refuse ({@code sluice_receiver_unauthenticated_requests}, by transport) and those they ask
 * to come back later ({@code sluice_receiver_auth_deferred_requests}, by transport).
 */
final class ReceiverAuth {
  /**
   * The delay a client is asked to wait after a {@code TRY_LATER}: about the window over which an
   * authenticator's budget for slow checks refills (basicauth's is a second).
   */
  static final long RETRY_DELAY_MILLIS = 1_000;

  /** At most one log line per interval about deferred requests: an attack sends thousands. */
  private static final long DEFERRED_LOG_INTERVAL_MILLIS = 10_000;

  private ReceiverAuth() {}

  /** What a transport counts and logs of the requests its authenticator does not accept. */
  record Refusals(
      MetricRegistry.Counter unauthenticated,
      MetricRegistry.Counter deferred,
      RateLimitedLog deferredLog,
      String transport) {
    void countDeferred() {
      deferred.increment();
      deferredLog.log(
          "authentication deferred a "
              + transport
              + " request, answered retry later: the authenticator cannot afford to check"
              + " credentials now (its budget for slow checks spent by many wrong ones?)");
    }
  }

  static void install(
      ComponentSettings settings,
      OtlpReceiverConfig config,
      Host host,
      GrpcServer grpc,
      HttpServer http) {
    if (grpc != null && config.protocols().grpc().auth() != null) {
      ServerAuthenticator authenticator =
          host.serverAuthenticator(config.protocols().grpc().auth());
      grpc.authenticate(new GrpcAuthInterceptor(authenticator, refusals(settings, "grpc")));
    }
    HttpServerConfig httpConfig = config.protocols().http();
    if (http != null && httpConfig.auth() != null) {
      AuthConfig auth = httpConfig.auth();
      http.authenticate(
          new HttpAuthHandler.Factory(
              host.serverAuthenticator(auth),
              refusals(settings, "http"),
              httpConfig.cors() == null ? null : new Cors(httpConfig.cors())));
    }
  }

  static Refusals refusals(ComponentSettings settings, String transport) {
    MetricRegistry.Counter unauthenticated =
        settings
            .metrics()
            .counter(
                "sluice_receiver_unauthenticated_requests",
                "Requests refused because their credentials were missing or wrong.",
                "receiver",
                settings.id().toString(),
                "transport",
                transport);
    MetricRegistry.Counter deferred =
        settings
            .metrics()
            .counter(
                "sluice_receiver_auth_deferred_requests",
                "Requests answered retry later, unchecked, because the authenticator could not"
                    + " afford to check their credentials then.",
                "receiver",
                settings.id().toString(),
                "transport",
                transport);
    return new Refusals(
        unauthenticated,
        deferred,
        new RateLimitedLog(settings.logger(), Level.WARNING, DEFERRED_LOG_INTERVAL_MILLIS),
        transport);
  }
}
