package dev.sluice.receiver.otlp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.testkit.AllocationBound;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BodyDecoderTest {
  /** The HTTP receiver's default {@code max_request_body_size}. */
  private static final long LIMIT_BYTES = 20L << 20;

  private static final byte[] ZEROS = new byte[(int) LIMIT_BYTES + 4096];

  @BeforeAll
  static void warmUp() throws Exception {
    BodyDecoderFuzzTest.warmUp();
  }

  @ParameterizedTest
  @ValueSource(strings = {"gzip", "deflate", "raw-deflate", "zstd", "snappy", "x-snappy-framed"})
  void refusesABombAtTheLimitWithinTheAllocationBound(String encoding) throws Exception {
    byte[] bomb = BodyEncodings.compress(encoding, ZEROS);
    String header = encoding.equals("raw-deflate") ? "deflate" : encoding;
    assertThat(bomb.length).as("a bomb is small").isLessThan(ZEROS.length / 20);

    AllocationBound.Outcome outcome =
        AllocationBound.measure(() -> BodyDecoder.decode(header, bomb, LIMIT_BYTES));

    assertThat(outcome.thrown())
        .isInstanceOf(BodyDecoder.TooLarge.class)
        .hasMessageContaining("limit of " + LIMIT_BYTES);
    outcome.assertWithin(encoding, bomb.length + LIMIT_BYTES + 1);
  }

  @ParameterizedTest
  @ValueSource(strings = {"gzip", "deflate", "zstd", "snappy", "x-snappy-framed"})
  void acceptsABodyOfExactlyTheLimit(String encoding) throws Exception {
    byte[] body = Arrays.copyOf(ZEROS, 64 * 1024);
    byte[] compressed = BodyEncodings.compress(encoding, body);

    assertThat(BodyDecoder.decode(encoding, compressed, body.length)).isEqualTo(body);
    assertThatThrownBy(() -> BodyDecoder.decode(encoding, compressed, body.length - 1))
        .isInstanceOf(BodyDecoder.TooLarge.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"gzip", "deflate", "zstd", "snappy", "x-snappy-framed"})
  void refusesATruncatedBodyAsUndecodable(String encoding) throws Exception {
    byte[] body = BodyEncodings.compress(encoding, "a span or two".repeat(100).getBytes());
    byte[] truncated = Arrays.copyOf(body, body.length - 3);

    AllocationBound.Outcome outcome =
        AllocationBound.measure(() -> BodyDecoder.decode(encoding, truncated, LIMIT_BYTES));

    assertThat(outcome.thrown())
        .isInstanceOf(BodyDecoder.Undecodable.class)
        .hasMessageStartingWith(
            "cannot decode the "
                + (encoding.equals("x-snappy-framed") ? "snappy framed" : encoding)
                + " body");
    outcome.assertWithin(encoding, truncated.length + 1300);
  }

  @ParameterizedTest
  @ValueSource(strings = {"gzip", "deflate", "zstd", "snappy", "x-snappy-framed"})
  void refusesAnEmptyBodyWithinTheBound(String encoding) {
    for (int i = 0; i < 3; i++) {
      AllocationBound.Outcome outcome =
          AllocationBound.measure(() -> BodyDecoder.decode(encoding, new byte[0], LIMIT_BYTES));

      assertThat(outcome.thrown()).isInstanceOf(BodyDecoder.Undecodable.class);
      outcome.assertWithin(encoding, 0);
    }
  }

  @Test
  void doesNotAllocateWhatASnappyBlockDeclaresBeforeCheckingIt() {
    // A varint declaring 16 MiB, then a literal of one byte: far less than declared.
    byte[] liar = {(byte) 0x80, (byte) 0x80, (byte) 0x80, 0x08, 0x00, 'x'};

    AllocationBound.Outcome outcome =
        AllocationBound.measure(() -> BodyDecoder.decode("snappy", liar, LIMIT_BYTES));

    assertThat(outcome.thrown())
        .isInstanceOf(BodyDecoder.Undecodable.class)
        .hasMessageContaining("not a valid snappy block");
    outcome.assertWithin("snappy", liar.length);
  }

  @Test
  void refusesASnappyBlockDeclaringMoreThanTheLimitAsTooLarge() {
    byte[] liar = {(byte) 0x80, (byte) 0x80, (byte) 0x80, 0x7f, 0x00, 'x'};

    assertThatThrownBy(() -> BodyDecoder.decode("snappy", liar, LIMIT_BYTES))
        .isInstanceOf(BodyDecoder.TooLarge.class);
  }

  @Test
  void doesNotAllocateWhatAFramedSnappyChunkDeclares() {
    byte[] liar = {
      (byte) 0xff,
      0x06,
      0x00,
      0x00,
      's',
      'N',
      'a',
      'P',
      'p',
      'Y',
      0x00,
      (byte) 0xff,
      (byte) 0xff,
      (byte) 0xff
    };

    AllocationBound.Outcome outcome =
        AllocationBound.measure(() -> BodyDecoder.decode("x-snappy-framed", liar, LIMIT_BYTES));

    assertThat(outcome.thrown())
        .isInstanceOf(BodyDecoder.Undecodable.class)
        .hasMessageContaining("truncated at offset 10");
    outcome.assertWithin("x-snappy-framed", liar.length);
  }

  @Test
  void refusesAFramedSnappyChunkWithAWrongChecksum() throws Exception {
    byte[] body = BodyEncodings.compress("x-snappy-framed", "spans".repeat(50).getBytes());
    body[14] ^= 1; // the first data chunk's checksum

    assertThatThrownBy(() -> BodyDecoder.decode("x-snappy-framed", body, LIMIT_BYTES))
        .isInstanceOf(BodyDecoder.Undecodable.class)
        .hasMessageContaining("checksum mismatch");
  }

  @Test
  void refusesAZlibStreamThatNeedsAPresetDictionary() {
    // A zlib header with FDICT set, then a dictionary id: java.util.zip alone reads it as empty.
    byte[] body = {0x78, (byte) 0xbb, 0x00, 0x00, 0x00, 0x01, 0x03, 0x00};

    assertThatThrownBy(() -> BodyDecoder.decode("deflate", body, LIMIT_BYTES))
        .isInstanceOf(BodyDecoder.Undecodable.class)
        .hasMessageContaining("preset dictionary");
  }

  @Test
  void boundsTheZstdWindowByTheLimit() {
    assertThat(BodyDecoder.zstdWindowLog(LIMIT_BYTES)).isEqualTo(25);
    assertThat(BodyDecoder.zstdWindowLog(4 << 20)).isEqualTo(22);
    assertThat(BodyDecoder.zstdWindowLog(100)).isEqualTo(10);
    assertThat(BodyDecoder.zstdWindowLog(Long.MAX_VALUE)).isEqualTo(27);
  }

  @Test
  void quotesAnUnknownEncodingCutToABoundedLength() {
    String encoding = "x".repeat(10_000);

    assertThatThrownBy(() -> BodyDecoder.decode(encoding, new byte[1], LIMIT_BYTES))
        .isInstanceOf(BodyDecoder.Undecodable.class)
        .hasMessageEndingWith("...\"")
        .message()
        .hasSizeLessThan(BodyDecoder.MAX_QUOTED_CHARS + 64);
  }
}
