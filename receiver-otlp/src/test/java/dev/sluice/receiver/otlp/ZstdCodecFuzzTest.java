package dev.sluice.receiver.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdInputStream;
import dev.sluice.grpc.ZstdCodec;
import dev.sluice.testkit.AllocationBound;
import io.grpc.Status;
import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.BeforeAll;

/**
 * Fuzzes gRPC zstd decompression as the receiver does it: {@link ZstdCodec}'s stream, bounded as
 * grpc-java bounds it by {@code max_recv_msg_size_mib}, read by the receiver's request marshaller.
 * Nothing escapes the marshaller; a failure is INVALID_ARGUMENT or RESOURCE_EXHAUSTED; the
 * allocation stays within the bound of the message plus the output produced; and what decodes is
 * what zstd-jni's reference stream makes of it.
 */
class ZstdCodecFuzzTest {
  static final int LIMIT_BYTES = 256 * 1024;

  @BeforeAll
  static void warmUp() throws Exception {
    byte[] plain = "warm up".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    assertThat(parse(Zstd.compress(plain), new long[1]).body()).isEqualTo(plain);
    parse(new byte[] {1, 2, 3}, new long[1]);
    parse(Zstd.compress(new byte[LIMIT_BYTES + 1]), new long[1]);
  }

  static GrpcServer.Incoming parse(byte[] message, long[] produced) throws IOException {
    InputStream decompressed = ZstdCodec.INSTANCE.decompress(new ByteArrayInputStream(message));
    return GrpcServer.IncomingMarshaller.INSTANCE.parse(
        new SizeEnforcing(decompressed, LIMIT_BYTES, produced));
  }

  @FuzzTest
  void decompressesWithinBound(byte[] message) throws Exception {
    long[] produced = new long[1];
    parse(message, produced); // once unmeasured: first runs link and load what they use
    GrpcServer.Incoming[] incoming = new GrpcServer.Incoming[1];
    AllocationBound.Outcome outcome =
        AllocationBound.measure(() -> incoming[0] = parse(message, produced));
    if (outcome.thrown() != null) {
      throw new AssertionError("escaped the marshaller: " + outcome.thrown(), outcome.thrown());
    }
    outcome.assertWithin("zstd", message.length + produced[0]);
    GrpcServer.Incoming result = incoming[0];
    if (result.error() != null) {
      assertThat(result.error().getCode())
          .isIn(Status.Code.INVALID_ARGUMENT, Status.Code.RESOURCE_EXHAUSTED);
      assertThat(result.error().getDescription()).hasSizeLessThan(512);
      return;
    }
    byte[] reference;
    try (InputStream in = new ZstdInputStream(new ByteArrayInputStream(message))) {
      reference = in.readNBytes(LIMIT_BYTES + 1);
    } catch (IOException e) {
      throw new AssertionError("decoded what zstd-jni refuses: " + e, e);
    }
    assertThat(result.body()).isEqualTo(reference);
  }

  /** As grpc-java's own: RESOURCE_EXHAUSTED once more than the limit has been read. */
  static final class SizeEnforcing extends FilterInputStream {
    private final long limitBytes;
    private final long[] count;

    SizeEnforcing(InputStream in, long limitBytes, long[] count) {
      super(in);
      this.limitBytes = limitBytes;
      this.count = count;
      count[0] = 0;
    }

    @Override
    public int read() throws IOException {
      int b = in.read();
      if (b >= 0) {
        counted(1);
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int read = in.read(b, off, len);
      if (read > 0) {
        counted(read);
      }
      return read;
    }

    private void counted(int bytes) {
      count[0] += bytes;
      if (count[0] > limitBytes) {
        throw Status.RESOURCE_EXHAUSTED
            .withDescription("Decompressed gRPC message exceeds maximum size " + limitBytes)
            .asRuntimeException();
      }
    }
  }
}
