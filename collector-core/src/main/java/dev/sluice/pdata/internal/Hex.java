package dev.sluice.pdata.internal;

import java.nio.charset.StandardCharsets;

/** Lowercase hex for trace and span IDs, as OTLP/JSON writes them and the views show them. */
public final class Hex {
  private static final byte[] DIGITS = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  private Hex() {}

  /**
   * Writes {@code length} bytes as {@code 2 * length} lowercase hex characters into {@code out}.
   */
  public static void encode(byte[] bytes, int offset, int length, char[] out) {
    for (int i = 0; i < length; i++) {
      int b = bytes[offset + i] & 0xFF;
      out[2 * i] = (char) DIGITS[b >>> 4];
      out[2 * i + 1] = (char) DIGITS[b & 0xF];
    }
  }

  /** Appends {@code length} bytes as {@code 2 * length} lowercase hex characters to {@code out}. */
  public static void append(byte[] bytes, int offset, int length, StringBuilder out) {
    for (int i = 0; i < length; i++) {
      int b = bytes[offset + i] & 0xFF;
      out.append((char) DIGITS[b >>> 4]).append((char) DIGITS[b & 0xF]);
    }
  }

  /** Decodes hex digits (either case); null when the text is not an even run of hex digits. */
  public static byte[] decode(String text) {
    if ((text.length() & 1) != 0) {
      return null;
    }
    byte[] bytes = new byte[text.length() / 2];
    for (int i = 0; i < bytes.length; i++) {
      int high = digit(text.charAt(2 * i));
      int low = digit(text.charAt(2 * i + 1));
      if (high < 0 || low < 0) {
        return null;
      }
      bytes[i] = (byte) ((high << 4) | low);
    }
    return bytes;
  }

  private static int digit(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
    }
    return -1;
  }
}
