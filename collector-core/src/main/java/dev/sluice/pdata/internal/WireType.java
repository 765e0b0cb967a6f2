package dev.sluice.pdata.internal;

/** Protobuf wire types and tag arithmetic. */
public final class WireType {
  public static final int VARINT = 0;
  public static final int I64 = 1;
  public static final int LEN = 2;
  public static final int SGROUP = 3;
  public static final int EGROUP = 4;
  public static final int I32 = 5;

  /** A tag is {@code fieldNumber << TYPE_BITS | wireType}. */
  public static final int TYPE_BITS = 3;

  /** The largest field number protobuf allows (2^29 - 1). */
  public static final int MAX_FIELD_NUMBER = (1 << 29) - 1;

  private WireType() {}

  public static int tag(int fieldNumber, int wireType) {
    return (fieldNumber << TYPE_BITS) | wireType;
  }

  public static String name(int wireType) {
    switch (wireType) {
      case VARINT:
        return "varint";
      case I64:
        return "fixed64";
      case LEN:
        return "length-delimited";
      case SGROUP:
        return "start-group";
      case EGROUP:
        return "end-group";
      case I32:
        return "fixed32";
      default:
        return "invalid wire type " + wireType;
    }
  }
}
