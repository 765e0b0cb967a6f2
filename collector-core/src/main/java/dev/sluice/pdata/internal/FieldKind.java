package dev.sluice.pdata.internal;

/** The protobuf scalar and message types that OTLP uses, with the wire type each is sent as. */
public enum FieldKind {
  INT32(WireType.VARINT),
  INT64(WireType.VARINT),
  UINT32(WireType.VARINT),
  UINT64(WireType.VARINT),
  SINT32(WireType.VARINT),
  BOOL(WireType.VARINT),
  ENUM(WireType.VARINT),
  FIXED32(WireType.I32),
  FIXED64(WireType.I64),
  SFIXED64(WireType.I64),
  DOUBLE(WireType.I64),
  STRING(WireType.LEN),
  BYTES(WireType.LEN),
  MESSAGE(WireType.LEN);

  private final int wireType;

  FieldKind(int wireType) {
    this.wireType = wireType;
  }

  /** The wire type of one value of this kind (not packed). */
  public int wireType() {
    return wireType;
  }

  /** Numeric kinds can be packed when repeated. */
  public boolean isPackable() {
    return wireType != WireType.LEN;
  }

  /** Kinds whose JSON form is a string of decimal digits (64-bit integers, per proto3 JSON). */
  public boolean isJsonString64() {
    return this == INT64 || this == UINT64 || this == FIXED64 || this == SFIXED64;
  }
}
