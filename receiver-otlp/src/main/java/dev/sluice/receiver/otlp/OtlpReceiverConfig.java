package dev.sluice.receiver.otlp;

import dev.sluice.component.AuthConfig;
import dev.sluice.component.AuthReference;
import dev.sluice.component.AuthSide;
import dev.sluice.component.ComponentConfig;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.OptionalSection;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code otlp} receiver's configuration, with the OpenTelemetry Collector's keys: a protocol is
 * served when its section is present, even empty ({@code grpc:}).
 */
public record OtlpReceiverConfig(Protocols protocols) implements ComponentConfig {
  public static final OtlpReceiverConfig DEFAULT =
      new OtlpReceiverConfig(new Protocols(GrpcServerConfig.DEFAULT, HttpServerConfig.DEFAULT));

  /** The protocols served; a missing section is null. */
  public record Protocols(
      @OptionalSection GrpcServerConfig grpc, @OptionalSection HttpServerConfig http) {}

  @Override
  public List<AuthReference> authReferences() {
    List<AuthReference> references = new ArrayList<>();
    if (protocols != null && protocols.grpc() != null) {
      AuthConfig.reference(
          protocols.grpc().auth(), "protocols.grpc.auth", AuthSide.SERVER, references);
    }
    if (protocols != null && protocols.http() != null) {
      AuthConfig.reference(
          protocols.http().auth(), "protocols.http.auth", AuthSide.SERVER, references);
    }
    return references;
  }

  @Override
  public void validate(ConfigProblems problems) {
    if (protocols == null || (protocols.grpc() == null && protocols.http() == null)) {
      problems.add("protocols", "must specify at least one protocol: grpc or http");
    }
  }
}
