package dev.sluice.exporter.otlp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.testkit.SequencedSpans;
import io.grpc.Codec;
import io.grpc.Compressor;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.util.zip.Deflater;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class GzipCompressorTest {
  private static final byte[] BATCH = SequencedSpans.request("svc", 0, 1000).toByteArray();

  private static byte[] compress(Compressor compressor, byte[] message) throws Exception {
    ByteArrayOutputStream wire = new ByteArrayOutputStream();
    try (OutputStream out = compressor.compress(wire)) {
      out.write(message);
    }
    return wire.toByteArray();
  }

  private static byte[] gunzip(byte[] compressed) throws Exception {
    return new GZIPInputStream(new ByteArrayInputStream(compressed)).readAllBytes();
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 5, 9, Deflater.DEFAULT_COMPRESSION})
  void writesGzipThatTheJdkReadsBack(int level) throws Exception {
    byte[] compressed = compress(new GzipCompressor(level), BATCH);

    assertThat(gunzip(compressed)).isEqualTo(BATCH);
    assertThat(compressed.length).isLessThan(BATCH.length / 4);
  }

  @Test
  void compressesAtItsLevel() throws Exception {
    byte[] fast = compress(new GzipCompressor(1), BATCH);
    byte[] small = compress(new GzipCompressor(9), BATCH);

    assertThat(small.length).isLessThan(fast.length);
  }

  @Test
  void atTheDefaultLevelWritesWhatGrpcJavasGzipWrites() throws Exception {
    Compressor compressor = new GzipCompressor(Deflater.DEFAULT_COMPRESSION);

    assertThat(compressor.getMessageEncoding()).isEqualTo("gzip");
    assertThat(compress(compressor, BATCH)).isEqualTo(compress(new Codec.Gzip(), BATCH));
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 10, -2})
  void rejectsALevelDeflaterDoesNotHave(int level) {
    assertThatThrownBy(() -> new GzipCompressor(level))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("no gzip level " + level);
  }
}
