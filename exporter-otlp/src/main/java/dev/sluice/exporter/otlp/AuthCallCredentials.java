package dev.sluice.exporter.otlp;

import dev.sluice.component.ClientAuthenticator;
import io.grpc.CallCredentials;
import io.grpc.Metadata;
import java.util.Map;
import java.util.concurrent.Executor;

/**
 * A client authenticator's headers as gRPC call credentials: grpc-java asks for them as each call
 * starts, so a credential that changes (a re-read token file) reaches the next call.
 */
final class AuthCallCredentials extends CallCredentials {
  private final ClientAuthenticator authenticator;

  AuthCallCredentials(ClientAuthenticator authenticator) {
    this.authenticator = authenticator;
  }

  @Override
  public void applyRequestMetadata(
      RequestInfo requestInfo, Executor appExecutor, MetadataApplier applier) {
    Metadata metadata = new Metadata();
    for (Map.Entry<String, String> header : authenticator.requestHeaders().entrySet()) {
      metadata.put(
          Metadata.Key.of(header.getKey(), Metadata.ASCII_STRING_MARSHALLER), header.getValue());
    }
    applier.apply(metadata);
  }
}
