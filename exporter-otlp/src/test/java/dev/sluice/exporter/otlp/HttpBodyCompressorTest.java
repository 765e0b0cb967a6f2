package dev.sluice.exporter.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.luben.zstd.Zstd;
import dev.sluice.pdata.codec.MarshalContext;
import dev.sluice.testkit.SequencedSpans;
import java.io.ByteArrayInputStream;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.GZIPInputStream;
import java.util.zip.InflaterInputStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Each encoding's output is what its standard decoder reads back, body after body. */
class HttpBodyCompressorTest {
  /** Reads {@code compressed} back with the encoding's standard decoder. */
  static byte[] decompress(String encoding, byte[] compressed, int originalLength)
      throws Exception {
    switch (encoding) {
      case "gzip":
        // GZIPInputStream checks the trailer's CRC-32 and length.
        return new GZIPInputStream(new ByteArrayInputStream(compressed)).readAllBytes();
      case "deflate":
        return new InflaterInputStream(new ByteArrayInputStream(compressed)).readAllBytes();
      default:
        return Zstd.decompress(compressed, originalLength);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"gzip", "deflate", "zstd"})
  void compressesBodyAfterBodyIntoItsReusedBuffer(String encoding) throws Exception {
    byte[] spans = SequencedSpans.request("svc", 0, 2000).toByteArray();
    byte[] noise = new byte[300_000];
    new Random(7).nextBytes(noise);
    byte[] small = Arrays.copyOfRange(spans, 0, 100);
    HttpBodyCompressor compressor =
        new HttpBodyCompressor(encoding, CompressionParams.DEFAULT.levelFor(encoding));

    for (byte[] body : new byte[][] {small, spans, noise, small, new byte[0], spans}) {
      // At an offset, as a body may sit in a larger buffer.
      byte[] buffer = new byte[body.length + 16];
      System.arraycopy(body, 0, buffer, 7, body.length);

      int length = compressor.compress(buffer, 7, body.length);

      byte[] compressed = Arrays.copyOf(compressor.output(), length);
      assertThat(decompress(encoding, compressed, body.length)).isEqualTo(body);
      if (body == spans) {
        assertThat(length).isLessThan(body.length / 4);
      }
    }
  }

  @ParameterizedTest
  @CsvSource({"gzip, 1, 9", "deflate, 1, 9", "zstd, 1, 19"})
  void compressesAtTheLevelItIsMadeWith(String encoding, int fast, int small) throws Exception {
    byte[] spans = SequencedSpans.request("svc", 0, 2000).toByteArray();

    byte[] fastBody = compressOnce(new HttpBodyCompressor(encoding, fast), spans);
    byte[] smallBody = compressOnce(new HttpBodyCompressor(encoding, small), spans);

    assertThat(smallBody.length).isLessThan(fastBody.length);
    assertThat(decompress(encoding, fastBody, spans.length)).isEqualTo(spans);
    assertThat(decompress(encoding, smallBody, spans.length)).isEqualTo(spans);
  }

  private static byte[] compressOnce(HttpBodyCompressor compressor, byte[] body) {
    int length = compressor.compress(body, 0, body.length);
    return Arrays.copyOf(compressor.output(), length);
  }

  @ParameterizedTest
  @ValueSource(strings = {"gzip", "zstd"})
  void releaseDropsAnOutputBufferGrownForAnOutsizedBody(String encoding) throws Exception {
    HttpBodyCompressor compressor =
        new HttpBodyCompressor(encoding, CompressionParams.DEFAULT.levelFor(encoding));
    byte[] small = SequencedSpans.request("svc", 0, 10).toByteArray();
    compressor.compress(small, 0, small.length);
    byte[] kept = compressor.output();
    compressor.release();
    assertThat(compressor.output()).isSameAs(kept);

    // Random bytes do not compress: the output grows past the bound with the input.
    byte[] outsized = new byte[MarshalContext.MAX_RETAINED_OUTPUT_BYTES + 1024];
    new Random(7).nextBytes(outsized);
    int length = compressor.compress(outsized, 0, outsized.length);
    assertThat(compressor.output().length).isGreaterThan(MarshalContext.MAX_RETAINED_OUTPUT_BYTES);
    assertThat(length).isGreaterThan(outsized.length - 1);
    compressor.release();
    assertThat(compressor.output().length).isLessThanOrEqualTo(64 * 1024);

    int again = compressor.compress(small, 0, small.length);
    assertThat(decompress(encoding, Arrays.copyOf(compressor.output(), again), small.length))
        .isEqualTo(small);
  }
}
