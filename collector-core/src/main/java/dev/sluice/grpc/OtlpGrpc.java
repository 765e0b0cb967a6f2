package dev.sluice.grpc;

import dev.sluice.pdata.Signal;
import io.grpc.MethodDescriptor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** The OTLP gRPC services' names, and a marshaller for bytes kept as they are. */
public final class OtlpGrpc {
  private OtlpGrpc() {}

  /** The service of a signal: {@code opentelemetry.proto.collector.trace.v1.TraceService}, ... */
  public static String serviceName(Signal signal) {
    switch (signal) {
      case TRACES:
        return "opentelemetry.proto.collector.trace.v1.TraceService";
      case METRICS:
        return "opentelemetry.proto.collector.metrics.v1.MetricsService";
      default:
        return "opentelemetry.proto.collector.logs.v1.LogsService";
    }
  }

  /** The full name of a signal's {@code Export} method. */
  public static String exportMethod(Signal signal) {
    return MethodDescriptor.generateFullMethodName(serviceName(signal), "Export");
  }

  /** Messages as byte arrays, neither parsed nor written by protobuf-java. */
  public enum Bytes implements MethodDescriptor.Marshaller<byte[]> {
    MARSHALLER;

    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        return stream.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
