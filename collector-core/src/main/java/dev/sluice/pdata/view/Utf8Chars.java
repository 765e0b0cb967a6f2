package dev.sluice.pdata.view;

/**
 * UTF-8 bytes decoded into a reused char buffer, for matching a {@link java.util.regex.Pattern}
 * against a key or string value without making a {@code String}; remembers where each char starts
 * in the bytes, so that a match's bounds map back to byte offsets. Malformed sequences (bytes the
 * edge did not check, written by another processor) decode as U+FFFD, one per byte.
 *
 * <p>Reused: one per thread, valid until the next {@link #decode}.
 */
public final class Utf8Chars implements CharSequence {
  private static final char REPLACEMENT = '\uFFFD';
  private static final int INITIAL_CHARS = 64;

  private char[] chars = new char[INITIAL_CHARS];
  // byteOffsets[i]: where char i starts, relative to the decoded bytes; [length] is their end.
  private int[] byteOffsets = new int[INITIAL_CHARS + 1];
  private int length;

  /** Decodes {@code [offset, offset + byteLength)} of {@code bytes}. */
  public Utf8Chars decode(byte[] bytes, int offset, int byteLength) {
    if (chars.length < byteLength) {
      chars = new char[Math.max(byteLength, chars.length * 2)];
      byteOffsets = new int[chars.length + 1];
    }
    int n = 0;
    int p = offset;
    int end = offset + byteLength;
    while (p < end) {
      int start = p;
      int b = bytes[p] & 0xFF;
      int codePoint;
      int size;
      if (b < 0x80) {
        codePoint = b;
        size = 1;
      } else if (b >= 0xC2 && b < 0xE0) {
        codePoint = b & 0x1F;
        size = 2;
      } else if (b >= 0xE0 && b < 0xF0) {
        codePoint = b & 0x0F;
        size = 3;
      } else if (b >= 0xF0 && b < 0xF5) {
        codePoint = b & 0x07;
        size = 4;
      } else {
        codePoint = REPLACEMENT;
        size = 1;
      }
      boolean valid = start + size <= end;
      for (int i = 1; valid && i < size; i++) {
        int c = bytes[start + i] & 0xFF;
        valid = (c & 0xC0) == 0x80;
        codePoint = codePoint << 6 | (c & 0x3F);
      }
      if (!valid) {
        codePoint = REPLACEMENT;
        size = 1;
      }
      p = start + size;
      if (codePoint >= Character.MIN_SUPPLEMENTARY_CODE_POINT) {
        byteOffsets[n] = start - offset;
        chars[n++] = Character.highSurrogate(codePoint);
        byteOffsets[n] = start - offset;
        chars[n++] = Character.lowSurrogate(codePoint);
      } else {
        byteOffsets[n] = start - offset;
        chars[n++] = (char) codePoint;
      }
    }
    byteOffsets[n] = byteLength;
    length = n;
    return this;
  }

  /** Where char {@code index} (or the end, at {@link #length()}) starts in the decoded bytes. */
  public int byteOffset(int index) {
    return byteOffsets[index];
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
