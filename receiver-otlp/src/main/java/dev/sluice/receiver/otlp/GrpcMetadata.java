package dev.sluice.receiver.otlp;

import dev.sluice.pdata.RequestMetadata;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A call's gRPC metadata, kept with the request it carries when the receiver has {@code
 * include_metadata: true}: the interceptor puts the call's {@link Metadata} in its context, and the
 * export copies it into the request ({@link RequestMetadata#of}, counted in the memory bound).
 */
final class GrpcMetadata {
  private static final Context.Key<Metadata> KEY = Context.key("sluice-request-metadata");

  private GrpcMetadata() {}

  /** The interceptor that keeps each call's metadata in its context. */
  static ServerInterceptor interceptor() {
    return new ServerInterceptor() {
      @Override
      public <Q, A> ServerCall.Listener<Q> interceptCall(
          ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
        return Contexts.interceptCall(
            Context.current().withValue(KEY, headers), call, headers, next);
      }
    };
  }

  /** A copy of the metadata of the call being handled on this thread; none outside a call. */
  static RequestMetadata current() {
    Metadata headers = KEY.get();
    if (headers == null) {
      return RequestMetadata.NONE;
    }
    Map<String, List<String>> copy = new HashMap<>();
    for (String name : headers.keys()) {
      List<String> values = new ArrayList<>();
      if (name.endsWith(Metadata.BINARY_HEADER_SUFFIX)) {
        for (byte[] value :
            headers.getAll(Metadata.Key.of(name, Metadata.BINARY_BYTE_MARSHALLER))) {
          values.add(new String(value, StandardCharsets.UTF_8));
        }
      } else {
        for (String value :
            headers.getAll(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER))) {
          values.add(value);
        }
      }
      copy.put(name, values);
    }
    return RequestMetadata.of(copy);
  }
}
