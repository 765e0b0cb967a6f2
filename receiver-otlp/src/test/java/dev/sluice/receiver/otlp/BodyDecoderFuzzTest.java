package dev.sluice.receiver.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.github.luben.zstd.ZstdInputStream;
import dev.sluice.testkit.AllocationBound;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;
import java.util.zip.Inflater;
import java.util.zip.InflaterInputStream;
import org.junit.jupiter.api.BeforeAll;
import org.xerial.snappy.Snappy;
import org.xerial.snappy.SnappyFramedInputStream;

/**
 * Fuzzes {@link BodyDecoder} under every encoding (the input's first byte picks it): only {@link
 * BodyDecoder.TooLarge} and {@link BodyDecoder.Undecodable} escape, the allocation stays within
 * {@link AllocationBound} of the body plus the output produced, and whatever decodes is what the
 * reference library (java.util.zip, zstd-jni, snappy-java) makes of the same bytes.
 */
class BodyDecoderFuzzTest {
  static final String[] ENCODINGS = {"gzip", "deflate", "zstd", "snappy", "x-snappy-framed"};

  /** Small, so that the fuzzer reaches the limit often. */
  static final long LIMIT_BYTES = 256 * 1024;

  /** How much output a reference stream may produce in the test before it is cut off. */
  private static final int REFERENCE_CAP_BYTES = (int) LIMIT_BYTES + 1;

  @BeforeAll
  static void warmUp() throws Exception {
    byte[] plain = "warm up every decoder once".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    for (String encoding : ENCODINGS) {
      byte[] body = BodyEncodings.compress(encoding, plain);
      assertThat(BodyDecoder.decode(encoding, body, LIMIT_BYTES)).isEqualTo(plain);
      warmUpFailure(encoding);
    }
  }

  private static void warmUpFailure(String encoding) {
    for (byte[] garbage : new byte[][] {{}, {1, 2, 3}, {(byte) 0xff, 0, 0, 0}}) {
      try {
        BodyDecoder.decode(encoding, garbage, LIMIT_BYTES);
      } catch (BodyDecoder.TooLarge | BodyDecoder.Undecodable expected) {
        // The error path's classes are loaded too.
      }
    }
  }

  @FuzzTest
  void decodesWithinBoundAsTheReferenceDoes(byte[] input) throws Exception {
    if (input.length == 0) {
      return;
    }
    String encoding = ENCODINGS[(input[0] & 0xff) % ENCODINGS.length];
    byte[] body = Arrays.copyOfRange(input, 1, input.length);
    BodyDecoder.Output[] out = new BodyDecoder.Output[1];
    byte[][] decoded = new byte[1][];
    // Once unmeasured: a path's first run in the JVM links its string concatenations and loads its
    // classes, which costs up to a few hundred KiB once and nothing after.
    AllocationBound.measure(() -> BodyDecoder.decode(encoding, body, LIMIT_BYTES));
    AllocationBound.Outcome outcome =
        AllocationBound.measure(
            () -> {
              out[0] = new BodyDecoder.Output(body.length, LIMIT_BYTES);
              decoded[0] = BodyDecoder.decode(encoding, body, out[0]);
            });
    Exception thrown = outcome.thrown();
    if (thrown != null
        && !(thrown instanceof BodyDecoder.TooLarge)
        && !(thrown instanceof BodyDecoder.Undecodable)) {
      throw new AssertionError(encoding + ": undocumented " + thrown, thrown);
    }
    if (thrown != null) {
      assertThat(thrown.getMessage()).hasSizeLessThan(2 * BodyDecoder.MAX_QUOTED_CHARS + 128);
    }
    long produced = decoded[0] != null ? decoded[0].length : out[0] == null ? 0 : out[0].size;
    outcome.assertWithin(encoding, body.length + produced);
    if (decoded[0] != null) {
      assertThat(decoded[0].length).isLessThanOrEqualTo((int) LIMIT_BYTES);
      byte[] reference = reference(encoding, body);
      assertThat(reference).as(encoding + ": what the reference decodes").isEqualTo(decoded[0]);
    }
  }

  /** What the reference library makes of a body we decoded (so it is not a bomb). */
  static byte[] reference(String encoding, byte[] body) {
    try {
      switch (encoding) {
        case "gzip":
          return readCapped(new GZIPInputStream(new ByteArrayInputStream(body)));
        case "deflate":
          boolean zlib =
              body.length >= 2
                  && (body[0] & 0x0f) == 8
                  && (((body[0] & 0xff) << 8) | (body[1] & 0xff)) % 31 == 0;
          return readCapped(
              new InflaterInputStream(new ByteArrayInputStream(body), new Inflater(!zlib)));
        case "zstd":
          return readCapped(new ZstdInputStream(new ByteArrayInputStream(body)));
        case "snappy":
          return body.length >= 10 && body[0] == (byte) 0xff
              ? readCapped(new SnappyFramedInputStream(new ByteArrayInputStream(body)))
              : Snappy.uncompress(body);
        default:
          return readCapped(new SnappyFramedInputStream(new ByteArrayInputStream(body)));
      }
    } catch (IOException e) {
      throw new AssertionError(encoding + ": we decoded what the reference refuses: " + e, e);
    }
  }

  private static byte[] readCapped(InputStream in) throws IOException {
    try (in) {
      return in.readNBytes(REFERENCE_CAP_BYTES);
    }
  }
}
