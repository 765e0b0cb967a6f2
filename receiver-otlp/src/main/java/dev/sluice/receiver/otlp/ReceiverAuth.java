package dev.sluice.receiver.otlp;

import dev.sluice.core.component.AuthConfig;
import dev.sluice.core.component.ComponentSettings;
import dev.sluice.core.component.Host;
import dev.sluice.core.component.ServerAuthenticator;
import dev.sluice.core.telemetry.MetricRegistry;

/**
 * Puts the configured authenticators in front of the receiver's servers, and counts the requests
 * they refuse ({@code sluice_receiver_unauthenticated_requests}, by transport).
 */
final class ReceiverAuth {
  private ReceiverAuth() {}

  static void install(
      ComponentSettings settings,
      OtlpReceiverConfig config,
      Host host,
      GrpcServer grpc,
      HttpServer http) {
    if (grpc != null && config.protocols().grpc().auth() != null) {
      ServerAuthenticator authenticator =
          host.serverAuthenticator(config.protocols().grpc().auth());
      grpc.authenticate(new GrpcAuthInterceptor(authenticator, refused(settings, "grpc")));
    }
    HttpServerConfig httpConfig = config.protocols().http();
    if (http != null && httpConfig.auth() != null) {
      AuthConfig auth = httpConfig.auth();
      http.authenticate(
          new HttpAuthHandler.Factory(
              host.serverAuthenticator(auth),
              refused(settings, "http"),
              httpConfig.cors() == null ? null : new Cors(httpConfig.cors())));
    }
  }

  private static MetricRegistry.Counter refused(ComponentSettings settings, String transport) {
    return settings
        .metrics()
        .counter(
            "sluice_receiver_unauthenticated_requests",
            "Requests refused because their credentials were missing or wrong.",
            "receiver",
            settings.id().toString(),
            "transport",
            transport);
  }
}
