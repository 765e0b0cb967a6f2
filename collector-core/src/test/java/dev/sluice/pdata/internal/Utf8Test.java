package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class Utf8Test {
  private final CharsetDecoder decoder =
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT);

  /** The JDK's answer: where its strict decoder stops on {@code bytes[from, to)}, or -1. */
  private int jdkFirstInvalid(byte[] bytes, int from, int to) {
    decoder.reset();
    ByteBuffer in = ByteBuffer.wrap(bytes, from, to - from);
    CharBuffer out = CharBuffer.allocate(to - from + 1);
    CoderResult result = decoder.decode(in, out, true);
    if (result.isError()) {
      return in.position();
    }
    result = decoder.flush(out);
    return result.isError() ? in.position() : -1;
  }

  /**
   * Checks {@code bytes} placed at every offset 0 to 7 of a larger array (every alignment of the
   * eight-byte fast path), with bytes around it that would change the answer if read.
   */
  private void checkAtEveryAlignment(byte[] bytes) {
    for (int from = 0; from < 8; from++) {
      for (byte around : new byte[] {(byte) 0x80, (byte) 0xE2, 'a'}) {
        byte[] buffer = new byte[from + bytes.length + 9];
        Arrays.fill(buffer, around);
        System.arraycopy(bytes, 0, buffer, from, bytes.length);
        int to = from + bytes.length;
        int expected = jdkFirstInvalid(buffer, from, to);
        assertThat(Utf8.firstInvalid(buffer, from, to))
            .as("%s at offset %d", HexFormat.ofDelimiter(" ").formatHex(bytes), from)
            .isEqualTo(expected);
      }
    }
  }

  @Test
  void agreesWithTheJdkOnRandomTextBiasedTowardMultiByteSequences() {
    SplittableRandom random = new SplittableRandom(8);
    int invalid = 0;
    for (int i = 0; i < 6000; i++) {
      byte[] bytes = randomText(random);
      if (jdkFirstInvalid(bytes, 0, bytes.length) >= 0) {
        invalid++;
      }
      checkAtEveryAlignment(bytes);
    }
    // Both outcomes are well represented.
    assertThat(invalid).isBetween(1000, 5000);
  }

  @Test
  void findsOneBadByteAtEveryPositionOfAsciiRuns() {
    for (int length = 1; length <= 40; length++) {
      for (int bad = 0; bad < length; bad++) {
        for (byte badByte : new byte[] {(byte) 0x80, (byte) 0xC0, (byte) 0xFF, (byte) 0xE2}) {
          byte[] bytes = new byte[length];
          Arrays.fill(bytes, (byte) 'x');
          bytes[bad] = badByte;
          for (int from = 0; from < 8; from++) {
            byte[] buffer = new byte[from + length + 8];
            System.arraycopy(bytes, 0, buffer, from, length);
            assertThat(Utf8.firstInvalid(buffer, from, from + length))
                .as("length %d, bad byte at %d, from %d", length, bad, from)
                .isEqualTo(from + bad);
          }
        }
      }
    }
  }

  @Test
  void agreesWithTheJdkOnEveryShortSequence() {
    byte[] seconds = {0x00, 0x41, (byte) 0x7F, (byte) 0x80, (byte) 0x8F, (byte) 0x90, (byte) 0x9F};
    byte[] more = {(byte) 0xA0, (byte) 0xBF, (byte) 0xC0, (byte) 0xC2, (byte) 0xF0, (byte) 0xFF};
    byte[] tails = concat(seconds, more);
    for (int lead = 0; lead < 256; lead++) {
      checkAtEveryAlignment(new byte[] {(byte) lead});
      for (int second = 0; second < 256; second++) {
        byte[] two = {(byte) lead, (byte) second};
        assertThat(Utf8.firstInvalid(two, 0, 2)).isEqualTo(jdkFirstInvalid(two, 0, 2));
        if (lead >= 0xE0 && lead <= 0xF7) {
          for (byte third : tails) {
            byte[] three = {(byte) lead, (byte) second, third};
            assertThat(Utf8.firstInvalid(three, 0, 3))
                .as(HexFormat.of().formatHex(three))
                .isEqualTo(jdkFirstInvalid(three, 0, 3));
            if (lead >= 0xF0) {
              for (byte fourth : tails) {
                byte[] four = {(byte) lead, (byte) second, third, fourth, 'z'};
                assertThat(Utf8.firstInvalid(four, 0, 5))
                    .as(HexFormat.of().formatHex(four))
                    .isEqualTo(jdkFirstInvalid(four, 0, 5));
              }
            }
          }
        }
      }
    }
  }

  @Test
  void rejectsOverlongFormsSurrogatesAndCodePointsAboveTheLast() {
    String[] invalid = {
      "c0 80", // overlong NUL
      "c1 bf", // overlong U+007F
      "e0 80 80", // overlong NUL, three bytes
      "e0 9f bf", // overlong U+07FF
      "f0 80 80 80", // overlong NUL, four bytes
      "f0 8f bf bf", // overlong U+FFFF
      "ed a0 80", // U+D800, a high surrogate
      "ed bf bf", // U+DFFF, a low surrogate
      "ed a0 bd ed b8 80", // a surrogate pair encoded as two three-byte sequences (CESU-8)
      "f4 90 80 80", // U+110000
      "f5 80 80 80",
      "ff",
      "80",
      "e2 82", // cut short
    };
    for (String hex : invalid) {
      byte[] bytes = concat(new byte[] {'o', 'k'}, HexFormat.ofDelimiter(" ").parseHex(hex));
      assertThat(Utf8.firstInvalid(bytes, 0, bytes.length)).as(hex).isEqualTo(2);
      checkAtEveryAlignment(bytes);
    }
    String[] valid = {
      "c2 80", "df bf", "e0 a0 80", "ed 9f bf", "ee 80 80", "f0 90 80 80", "f4 8f bf bf"
    };
    for (String hex : valid) {
      byte[] bytes = HexFormat.ofDelimiter(" ").parseHex(hex);
      assertThat(Utf8.firstInvalid(bytes, 0, bytes.length)).as(hex).isEqualTo(-1);
    }
  }

  @Test
  void looksOnlyInsideTheRange() {
    byte[] euro = "x€y".getBytes(StandardCharsets.UTF_8); // 78 e2 82 ac 79
    assertThat(Utf8.firstInvalid(euro, 0, 5)).isEqualTo(-1);
    assertThat(Utf8.firstInvalid(euro, 0, 4)).isEqualTo(-1);
    assertThat(Utf8.firstInvalid(euro, 0, 3)).isEqualTo(1); // cut inside the euro sign
    assertThat(Utf8.firstInvalid(euro, 2, 5)).isEqualTo(2); // starts on a continuation byte
    assertThat(Utf8.firstInvalid(euro, 4, 5)).isEqualTo(-1);
    assertThat(Utf8.firstInvalid(euro, 3, 3)).isEqualTo(-1);
  }

  /**
   * Random text: ASCII runs of every length, valid sequences of two, three and four bytes
   * (including the edges of each range), and now and then an invalid or cut sequence.
   */
  private static byte[] randomText(SplittableRandom random) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int pieces = 1 + random.nextInt(12);
    for (int p = 0; p < pieces; p++) {
      int choice = random.nextInt(100);
      if (choice < 25) {
        int run = random.nextInt(20);
        for (int i = 0; i < run; i++) {
          out.write(0x20 + random.nextInt(0x5F));
        }
      } else if (choice < 85) {
        int codePoint = randomCodePoint(random);
        out.writeBytes(new String(Character.toChars(codePoint)).getBytes(StandardCharsets.UTF_8));
      } else if (choice < 92) {
        // A valid sequence cut short.
        byte[] full =
            new String(Character.toChars(0x800 + random.nextInt(0x10F800 - 0x800)))
                .getBytes(StandardCharsets.UTF_8);
        if (full.length > 1) {
          out.write(full, 0, 1 + random.nextInt(full.length - 1));
        }
      } else {
        out.write(random.nextInt(256));
      }
    }
    return out.toByteArray();
  }

  private static int randomCodePoint(SplittableRandom random) {
    int[] edges = {
      0x80, 0x7FF, 0x800, 0xFFF, 0x1000, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF, 0x10000, 0x3FFFF, 0x40000,
      0xFFFFF, 0x100000, 0x10FFFF
    };
    switch (random.nextInt(4)) {
      case 0:
        return edges[random.nextInt(edges.length)];
      case 1:
        return 0x80 + random.nextInt(0x800 - 0x80);
      case 2:
        int c = 0x800 + random.nextInt(0x10000 - 0x800);
        return Character.isSurrogate((char) c) ? 0xFFFD : c;
      default:
        return 0x10000 + random.nextInt(0x110000 - 0x10000);
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
