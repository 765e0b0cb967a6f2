package dev.sluice.pdata.view;

import dev.sluice.pdata.internal.Internal;
import dev.sluice.pdata.internal.MessageView;
import java.nio.charset.StandardCharsets;

/**
 * A UTF-8 string field of an indexed request, read in place: compared against bytes or a {@code
 * String} without decoding, copied into a caller's buffer, or decoded on request ({@link
 * #asString()}, the one method here that allocates). The bytes were checked to be valid UTF-8 when
 * the request was indexed.
 *
 * <p>Owned by the view that returned it and re-pointed by that view's next read of the same field;
 * valid only as long as that view (see {@link BatchView}).
 */
public final class TextView {
  private static final int ONE_BYTE_LIMIT = 0x80;
  private static final int TWO_BYTE_LIMIT = 0x800;
  private static final int CONTINUATION = 0x80;
  private static final int CONTINUATION_MASK = 0x3F;
  private static final int TWO_BYTE_LEAD = 0xC0;
  private static final int THREE_BYTE_LEAD = 0xE0;
  private static final int FOUR_BYTE_LEAD = 0xF0;
  private static final int SIX_BITS = 6;

  private byte[] bytes = MessageView.NO_BYTES;
  private int offset;
  private int length;

  TextView() {}

  @Internal
  public void wrap(byte[] bytes, int offset, int length) {
    // Storing a reference costs a GC write barrier; most wraps point at the same request again.
    if (this.bytes != bytes) {
      this.bytes = bytes;
    }
    this.offset = offset;
    this.length = length;
  }

  @Internal
  public void clear() {
    offset = 0;
    length = 0;
  }

  /** Lets go of the request's bytes, so that a long-lived view does not keep them reachable. */
  void release() {
    bytes = MessageView.NO_BYTES;
    clear();
  }

  /** Length in UTF-8 bytes. */
  public int length() {
    return length;
  }

  public boolean isEmpty() {
    return length == 0;
  }

  public byte byteAt(int index) {
    if (index < 0 || index >= length) {
      throw new IndexOutOfBoundsException(index);
    }
    return bytes[offset + index];
  }

  public boolean contentEquals(byte[] utf8) {
    return contentEquals(utf8, 0, utf8.length);
  }

  public boolean contentEquals(byte[] utf8, int utf8Offset, int utf8Length) {
    return utf8Length == length
        && java.util.Arrays.equals(
            bytes, offset, offset + length, utf8, utf8Offset, utf8Offset + utf8Length);
  }

  /** Whether the text equals {@code text}, compared code point by code point without decoding. */
  public boolean contentEquals(CharSequence text) {
    return encodedPrefixLength(text) == length;
  }

  public boolean startsWith(byte[] utf8Prefix) {
    return utf8Prefix.length <= length
        && java.util.Arrays.equals(
            bytes, offset, offset + utf8Prefix.length, utf8Prefix, 0, utf8Prefix.length);
  }

  /**
   * Whether the text starts with {@code prefix}, compared by code points: a prefix that ends with
   * half of a surrogate pair matches nothing.
   */
  public boolean startsWith(CharSequence prefix) {
    return encodedPrefixLength(prefix) >= 0;
  }

  /** Copies the UTF-8 bytes into {@code destination} at {@code destinationOffset}; returns them. */
  public int copyTo(byte[] destination, int destinationOffset) {
    System.arraycopy(bytes, offset, destination, destinationOffset, length);
    return length;
  }

  /** The text as a {@code String}. Allocates. */
  public String asString() {
    return new String(bytes, offset, length, StandardCharsets.UTF_8);
  }

  /** {@link #asString()}: allocates. */
  @Override
  public String toString() {
    return asString();
  }

  /**
   * How many bytes from the start are the UTF-8 encoding of {@code text}, or -1 when they are not.
   * A lone surrogate never matches: valid UTF-8 cannot hold one.
   */
  private int encodedPrefixLength(CharSequence text) {
    int p = offset;
    int end = offset + length;
    int count = text.length();
    for (int i = 0; i < count; i++) {
      char c = text.charAt(i);
      if (c < ONE_BYTE_LIMIT) {
        if (p >= end || bytes[p] != c) {
          return -1;
        }
        p++;
      } else if (c < TWO_BYTE_LIMIT) {
        if (end - p < 2
            || bytes[p] != (byte) (TWO_BYTE_LEAD | (c >>> SIX_BITS))
            || bytes[p + 1] != continuation(c, 0)) {
          return -1;
        }
        p += 2;
      } else if (!Character.isSurrogate(c)) {
        if (end - p < 3
            || bytes[p] != (byte) (THREE_BYTE_LEAD | (c >>> (2 * SIX_BITS)))
            || bytes[p + 1] != continuation(c, 1)
            || bytes[p + 2] != continuation(c, 0)) {
          return -1;
        }
        p += 3;
      } else {
        if (!Character.isHighSurrogate(c)
            || i + 1 >= count
            || !Character.isLowSurrogate(text.charAt(i + 1))) {
          return -1;
        }
        int codePoint = Character.toCodePoint(c, text.charAt(++i));
        if (end - p < 4
            || bytes[p] != (byte) (FOUR_BYTE_LEAD | (codePoint >>> (3 * SIX_BITS)))
            || bytes[p + 1] != continuation(codePoint, 2)
            || bytes[p + 2] != continuation(codePoint, 1)
            || bytes[p + 3] != continuation(codePoint, 0)) {
          return -1;
        }
        p += 4;
      }
    }
    return p - offset;
  }

  private static byte continuation(int codePoint, int sixBitGroup) {
    return (byte) (CONTINUATION | ((codePoint >>> (sixBitGroup * SIX_BITS)) & CONTINUATION_MASK));
  }
}
