package dev.sluice.receiver.otlp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.luben.zstd.Zstd;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.grpc.OtlpGrpc;
import dev.sluice.pdata.Signal;
import dev.sluice.testkit.SequencedSpans;
import io.grpc.CallOptions;
import io.grpc.Codec;
import io.grpc.CompressorRegistry;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.zip.GZIPOutputStream;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the gRPC receiver answers to compressed messages that are bombs, corrupt or truncated, sent
 * by a real grpc-java client whose codec mangles what it compresses.
 */
class GrpcDecompressionTest {
  private final MetricRegistry metrics = new MetricRegistry();
  private final RecordingConsumer traces = new RecordingConsumer(1500);
  private OtlpReceiver receiver;

  @BeforeEach
  void start() throws Exception {
    GrpcServerConfig grpc =
        new GrpcServerConfig(
            "127.0.0.1:0", "tcp", null, 1, 0, GrpcServerConfig.Keepalive.DEFAULT, false);
    receiver = TestReceivers.start(metrics, grpc, null, traces);
  }

  @AfterEach
  void stop() throws Exception {
    TestReceivers.shutdown(receiver);
  }

  /** Sends {@code body} compressed by {@code encoding}, then changed by {@code mangle}. */
  private void send(String encoding, byte[] body, UnaryOperator<byte[]> mangle) throws Exception {
    CompressorRegistry registry = CompressorRegistry.newEmptyInstance();
    registry.register(new Mangling(encoding, mangle));
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", receiver.grpcPort())
            .usePlaintext()
            .compressorRegistry(registry)
            .build();
    try {
      MethodDescriptor<byte[], byte[]> method =
          MethodDescriptor.<byte[], byte[]>newBuilder()
              .setType(MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(OtlpGrpc.exportMethod(Signal.TRACES))
              .setRequestMarshaller(OtlpGrpc.Bytes.MARSHALLER)
              .setResponseMarshaller(OtlpGrpc.Bytes.MARSHALLER)
              .build();
      ClientCalls.blockingUnaryCall(
          channel,
          method,
          CallOptions.DEFAULT.withCompression(encoding).withDeadlineAfter(10, TimeUnit.SECONDS),
          body);
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private static Status.Code codeOf(Throwable e) {
    return ((StatusRuntimeException) e).getStatus().getCode();
  }

  @ParameterizedTest
  @ValueSource(strings = {"gzip", "zstd"})
  void acceptsAWellCompressedRequest(String encoding) throws Exception {
    send(encoding, SequencedSpans.request("svc", 0, 5).toByteArray(), UnaryOperator.identity());

    assertThat(traces.requests).hasSize(1);
  }

  @ParameterizedTest
  @ValueSource(strings = {"gzip", "zstd"})
  void answersABombResourceExhausted(String encoding) {
    // 8 MiB of zeros in a few KiB, over the 1 MiB limit once decompressed.
    assertThatThrownBy(() -> send(encoding, new byte[8 << 20], UnaryOperator.identity()))
        .isInstanceOf(StatusRuntimeException.class)
        .satisfies(e -> assertThat(codeOf(e)).isEqualTo(Status.Code.RESOURCE_EXHAUSTED));
    assertThat(traces.requests).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"gzip", "zstd"})
  void answersATruncatedMessageInvalidArgument(String encoding) {
    assertRefusedAsInvalid(encoding, c -> Arrays.copyOf(c, c.length / 2))
        .hasMessageContaining("cannot decompress the request");
  }

  @ParameterizedTest
  @ValueSource(strings = {"gzip", "zstd"})
  void answersAMessageWithACorruptHeaderInvalidArgument(String encoding) {
    assertRefusedAsInvalid(
            encoding,
            c -> {
              byte[] corrupt = c.clone();
              corrupt[0] ^= 0x55;
              corrupt[1] ^= 0x55;
              return corrupt;
            })
        .hasMessageContaining("cannot decompress the request");
  }

  @ParameterizedTest
  @ValueSource(strings = {"gzip", "zstd"})
  void answersACorruptBodyInvalidArgument(String encoding) {
    assertRefusedAsInvalid(
        encoding,
        c -> {
          byte[] corrupt = c.clone();
          for (int i = 20; i < corrupt.length - 20; i += 7) {
            corrupt[i] ^= (byte) 0xa5;
          }
          return corrupt;
        });
  }

  /** Sends a 20-span request compressed with {@code encoding}, then {@code mangle}d. */
  private AbstractThrowableAssert<?, ? extends Throwable> assertRefusedAsInvalid(
      String encoding, UnaryOperator<byte[]> mangle) {
    byte[] body = SequencedSpans.request("svc", 0, 20).toByteArray();
    return assertThatThrownBy(() -> send(encoding, body, mangle))
        .isInstanceOf(StatusRuntimeException.class)
        .satisfies(e -> assertThat(codeOf(e)).isEqualTo(Status.Code.INVALID_ARGUMENT));
  }

  /** A client codec that compresses with the reference library, then mangles the result. */
  private static final class Mangling implements Codec {
    private final String encoding;
    private final UnaryOperator<byte[]> mangle;

    Mangling(String encoding, UnaryOperator<byte[]> mangle) {
      this.encoding = encoding;
      this.mangle = mangle;
    }

    @Override
    public String getMessageEncoding() {
      return encoding;
    }

    @Override
    public OutputStream compress(OutputStream os) {
      return new ByteArrayOutputStream() {
        @Override
        public void close() throws IOException {
          byte[] plain = toByteArray();
          byte[] compressed;
          if (encoding.equals("zstd")) {
            compressed = Zstd.compress(plain);
          } else {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (OutputStream gzip = new GZIPOutputStream(out)) {
              gzip.write(plain);
            }
            compressed = out.toByteArray();
          }
          os.write(mangle.apply(compressed));
          os.close();
        }
      };
    }

    @Override
    public InputStream decompress(InputStream is) {
      return is;
    }
  }
}
