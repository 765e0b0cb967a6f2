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
import java.util.List;
import java.util.Locale;

/**
 * A call's gRPC metadata, kept with the request it carries, as the Collector's gRPC receivers leave
 * it readable to the components behind them (a routing connector's {@code request} context). Read
 * in place when asked, nothing copied per call: the call's {@link Metadata} is not changed once the
 * call has started.
 */
final class GrpcMetadata implements RequestMetadata {
  private static final Context.Key<GrpcMetadata> KEY = Context.key("sluice-request-metadata");
  private static final String BINARY_SUFFIX = Metadata.BINARY_HEADER_SUFFIX;

  private final Metadata headers;

  private GrpcMetadata(Metadata headers) {
    this.headers = headers;
  }

  /** The interceptor that keeps each call's metadata in its context. */
  static ServerInterceptor interceptor() {
    return new ServerInterceptor() {
      @Override
      public <Q, A> ServerCall.Listener<Q> interceptCall(
          ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
        Context context = Context.current().withValue(KEY, new GrpcMetadata(headers));
        return Contexts.interceptCall(context, call, headers, next);
      }
    };
  }

  /** The metadata of the call being handled on this thread; none outside a call. */
  static RequestMetadata current() {
    GrpcMetadata metadata = KEY.get();
    return metadata == null ? RequestMetadata.NONE : metadata;
  }

  @Override
  public List<String> values(String key) {
    String name = key.toLowerCase(Locale.ROOT);
    if (name.isEmpty() || name.startsWith(":")) {
      return List.of();
    }
    Iterable<?> values;
    try {
      values =
          name.endsWith(BINARY_SUFFIX)
              ? headers.getAll(Metadata.Key.of(name, Metadata.BINARY_BYTE_MARSHALLER))
              : headers.getAll(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER));
    } catch (IllegalArgumentException e) {
      return List.of(); // not a valid metadata key: no call carries it
    }
    if (values == null) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    for (Object value : values) {
      out.add(
          value instanceof byte[] bytes
              ? new String(bytes, StandardCharsets.UTF_8)
              : (String) value);
    }
    return List.copyOf(out);
  }
}
