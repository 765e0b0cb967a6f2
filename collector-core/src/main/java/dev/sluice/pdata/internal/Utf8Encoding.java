package dev.sluice.pdata.internal;

/**
 * Encodes Java strings as UTF-8 straight into a {@link ProtoWriter}, without a byte array per
 * string, refusing strings that have no UTF-8 form (an unpaired surrogate): protobuf's string
 * fields must hold valid UTF-8, and the edge would refuse an item that did not.
 */
public final class Utf8Encoding {
  private static final int ONE_BYTE_LIMIT = 0x80;
  private static final int TWO_BYTE_LIMIT = 0x800;

  public Utf8Encoding() {}

  /**
   * The length of {@code text} in UTF-8.
   *
   * @throws IllegalArgumentException naming {@code what} when the text holds an unpaired surrogate
   */
  public static int length(String text, String what) {
    int length = text.length();
    int bytes = length;
    for (int i = 0; i < length; i++) {
      char c = text.charAt(i);
      if (c < ONE_BYTE_LIMIT) {
        continue;
      }
      if (c < TWO_BYTE_LIMIT) {
        bytes += 1;
      } else if (!Character.isSurrogate(c)) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < length
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        bytes += 2; // four bytes for the two chars
        i++;
      } else {
        throw new IllegalArgumentException(
            what + " is not valid Unicode: an unpaired surrogate at index " + i);
      }
    }
    return bytes;
  }

  /** Writes {@code text}, whose UTF-8 length {@link #length} gave, into {@code out}. */
  public static void write(ProtoWriter out, String text, int utf8Length) {
    out.ensureRemaining(utf8Length);
    byte[] b = out.array();
    int p = out.size();
    int length = text.length();
    for (int i = 0; i < length; i++) {
      char c = text.charAt(i);
      if (c < ONE_BYTE_LIMIT) {
        b[p++] = (byte) c;
      } else if (c < TWO_BYTE_LIMIT) {
        b[p++] = (byte) (0xC0 | (c >>> 6));
        b[p++] = (byte) (0x80 | (c & 0x3F));
      } else if (!Character.isSurrogate(c)) {
        b[p++] = (byte) (0xE0 | (c >>> 12));
        b[p++] = (byte) (0x80 | ((c >>> 6) & 0x3F));
        b[p++] = (byte) (0x80 | (c & 0x3F));
      } else {
        int codePoint = Character.toCodePoint(c, text.charAt(++i));
        b[p++] = (byte) (0xF0 | (codePoint >>> 18));
        b[p++] = (byte) (0x80 | ((codePoint >>> 12) & 0x3F));
        b[p++] = (byte) (0x80 | ((codePoint >>> 6) & 0x3F));
        b[p++] = (byte) (0x80 | (codePoint & 0x3F));
      }
    }
    out.advance(p - out.size());
  }
}
