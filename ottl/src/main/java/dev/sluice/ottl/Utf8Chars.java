package dev.sluice.ottl;

import java.util.Arrays;

/**
 * UTF-8 bytes as a {@link CharSequence}, decoded into a reused buffer: what a regular expression
 * reads. Decoding is one pass (ASCII is copied byte by byte); the bytes were valid UTF-8 when the
 * request was indexed, and literals are encoded by Java.
 */
final class Utf8Chars implements CharSequence {
  private static final int INITIAL_CHARS = 128;

  private char[] chars = new char[INITIAL_CHARS];
  private int length;

  Utf8Chars decode(byte[] bytes, int offset, int count) {
    if (chars.length < count) {
      chars = Arrays.copyOf(chars, Math.max(count, chars.length * 2));
    }
    int n = 0;
    int p = offset;
    int end = offset + count;
    while (p < end) {
      int b = bytes[p];
      if (b >= 0) {
        chars[n++] = (char) b;
        p++;
      } else if ((b & 0xE0) == 0xC0 && p + 1 < end) {
        chars[n++] = (char) (((b & 0x1F) << 6) | (bytes[p + 1] & 0x3F));
        p += 2;
      } else if ((b & 0xF0) == 0xE0 && p + 2 < end) {
        chars[n++] =
            (char) (((b & 0x0F) << 12) | ((bytes[p + 1] & 0x3F) << 6) | (bytes[p + 2] & 0x3F));
        p += 3;
      } else if ((b & 0xF8) == 0xF0 && p + 3 < end) {
        int codePoint =
            ((b & 0x07) << 18)
                | ((bytes[p + 1] & 0x3F) << 12)
                | ((bytes[p + 2] & 0x3F) << 6)
                | (bytes[p + 3] & 0x3F);
        chars[n++] = Character.highSurrogate(codePoint);
        chars[n++] = Character.lowSurrogate(codePoint);
        p += 4;
      } else {
        chars[n++] = '\uFFFD'; // not reached for validated input
        p++;
      }
    }
    length = n;
    return this;
  }

  @Override
  public int length() {
    return length;
  }

  @Override
  public char charAt(int index) {
    if (index < 0 || index >= length) {
      throw new IndexOutOfBoundsException(index);
    }
    return chars[index];
  }

  @Override
  public CharSequence subSequence(int start, int end) {
    return new String(chars, start, end - start);
  }

  @Override
  public String toString() {
    return new String(chars, 0, length);
  }
}
