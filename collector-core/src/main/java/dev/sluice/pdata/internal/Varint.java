package dev.sluice.pdata.internal;

/** Sizes of varint encodings. */
public final class Varint {
  private Varint() {}

  /** Bytes needed to encode {@code value} as an unsigned varint (1 to 5). */
  public static int size32(int value) {
    // Each 7 significant bits take one byte; 0 still takes one.
    int bits = 32 - Integer.numberOfLeadingZeros(value | 1);
    return (bits + 6) / 7;
  }

  /** Bytes needed to encode {@code value} as an unsigned varint (1 to 10). */
  public static int size64(long value) {
    int bits = 64 - Long.numberOfLeadingZeros(value | 1);
    return (bits + 6) / 7;
  }

  /** Bytes of a length-delimited field: tag, length prefix and payload. */
  public static int lengthDelimitedSize(int fieldNumber, int payloadBytes) {
    return size32(WireType.tag(fieldNumber, WireType.LEN)) + size32(payloadBytes) + payloadBytes;
  }
}
