package dev.sluice.bench.load;

import io.grpc.Drainable;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * gRPC marshallers that pass bytes through: requests go out as the encoded arrays they are (no
 * protobuf-java), bodies come in as arrays of their exact length, responses are drained and
 * dropped.
 */
public final class PassThrough {
  private PassThrough() {}

  /** The gRPC service name of a signal's Export method. */
  public static String serviceName(dev.sluice.pdata.Signal signal) {
    return switch (signal) {
      case TRACES -> "opentelemetry.proto.collector.trace.v1.TraceService";
      case METRICS -> "opentelemetry.proto.collector.metrics.v1.MetricsService";
      case LOGS -> "opentelemetry.proto.collector.logs.v1.LogsService";
    };
  }

  /**
   * A signal's unary {@code Export} method over byte arrays, the one descriptor every client and
   * server of the bench builds: {@code requests} and {@code responses} say which side keeps what it
   * reads ({@link #BYTES}) and which drops it ({@link #DISCARD}).
   */
  public static MethodDescriptor<byte[], byte[]> exportMethod(
      dev.sluice.pdata.Signal signal,
      MethodDescriptor.Marshaller<byte[]> requests,
      MethodDescriptor.Marshaller<byte[]> responses) {
    return MethodDescriptor.<byte[], byte[]>newBuilder()
        .setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(MethodDescriptor.generateFullMethodName(serviceName(signal), "Export"))
        .setRequestMarshaller(requests)
        .setResponseMarshaller(responses)
        .build();
  }

  private static final byte[] EMPTY = new byte[0];

  /** Writes arrays as they are; reads a message into one array of its exact length. */
  public static final MethodDescriptor.Marshaller<byte[]> BYTES =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
          return new BytesStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
          return readAll(stream);
        }
      };

  /** Reads a message and keeps nothing: responses, and the floor server's discarding reads. */
  public static final MethodDescriptor.Marshaller<byte[]> DISCARD =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
          return new BytesStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
          try {
            while (stream.skip(Long.MAX_VALUE) > 0 || stream.read() >= 0) {
              // drained in chunks of whatever the stream skips at once
            }
            return EMPTY;
          } catch (IOException e) {
            throw Status.INTERNAL.withCause(e).asRuntimeException();
          }
        }
      };

  /** A message in one array of its exact length, as Sluice's receiver reads it. */
  public static byte[] readAll(InputStream stream) {
    try {
      if (stream instanceof KnownLength) {
        int size = stream.available();
        byte[] bytes = new byte[size];
        int read = stream.readNBytes(bytes, 0, size);
        if (read == size && stream.read() < 0) {
          return bytes;
        }
        throw Status.INTERNAL.withDescription("message length changed").asRuntimeException();
      }
      return stream.readAllBytes();
    } catch (StatusRuntimeException e) {
      throw e;
    } catch (IOException e) {
      throw Status.INTERNAL.withCause(e).asRuntimeException();
    }
  }

  /**
   * A request body that gRPC writes with one copy: it knows its length and drains itself into the
   * framer's buffers.
   */
  static final class BytesStream extends ByteArrayInputStream implements KnownLength, Drainable {
    BytesStream(byte[] bytes) {
      super(bytes);
    }

    @Override
    public int drainTo(OutputStream target) throws IOException {
      int length = count - pos;
      target.write(buf, pos, length);
      pos = count;
      return length;
    }
  }
}
