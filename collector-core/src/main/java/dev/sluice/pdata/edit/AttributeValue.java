package dev.sluice.pdata.edit;

import dev.sluice.pdata.internal.Internal;
import dev.sluice.pdata.internal.OtlpFields.AnyValue;
import dev.sluice.pdata.internal.OtlpFields.ArrayValue;
import dev.sluice.pdata.internal.OtlpFields.KeyValue;
import dev.sluice.pdata.internal.OtlpFields.KeyValueList;
import dev.sluice.pdata.internal.ProtoWriter;
import dev.sluice.pdata.internal.Varint;
import dev.sluice.pdata.internal.WireType;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * A typed attribute value for {@link AttributeActions}, encoded once (as an OTLP {@code AnyValue})
 * when the editor is configured, so that editing items only copies bytes.
 */
public final class AttributeValue {

  @Internal public final byte[] anyValue;

  private AttributeValue(byte[] anyValue) {
    this.anyValue = anyValue;
  }

  public static AttributeValue string(String value) {
    byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
    ProtoWriter out = new ProtoWriter();
    out.writeLengthDelimitedHeader(AnyValue.STRING_VALUE, utf8.length);
    out.writeBytes(utf8, 0, utf8.length);
    return new AttributeValue(out.toByteArray());
  }

  public static AttributeValue bool(boolean value) {
    ProtoWriter out = new ProtoWriter();
    out.writeTag(AnyValue.BOOL_VALUE, WireType.VARINT);
    out.writeVarint32(value ? 1 : 0);
    return new AttributeValue(out.toByteArray());
  }

  public static AttributeValue integer(long value) {
    ProtoWriter out = new ProtoWriter();
    out.writeTag(AnyValue.INT_VALUE, WireType.VARINT);
    out.writeVarint64(value);
    return new AttributeValue(out.toByteArray());
  }

  public static AttributeValue floating(double value) {
    ProtoWriter out = new ProtoWriter();
    out.writeTag(AnyValue.DOUBLE_VALUE, WireType.I64);
    out.writeFixed64(Double.doubleToRawLongBits(value));
    return new AttributeValue(out.toByteArray());
  }

  public static AttributeValue bytes(byte[] value) {
    ProtoWriter out = new ProtoWriter();
    out.writeLengthDelimitedHeader(AnyValue.BYTES_VALUE, value.length);
    out.writeBytes(value, 0, value.length);
    return new AttributeValue(out.toByteArray());
  }

  /** An {@code array_value} of the elements, in order. */
  public static AttributeValue array(List<AttributeValue> elements) {
    ProtoWriter out = new ProtoWriter();
    int mark = out.beginLengthDelimited(AnyValue.ARRAY_VALUE);
    for (AttributeValue element : elements) {
      out.writeLengthDelimitedHeader(ArrayValue.VALUES, element.anyValue.length);
      out.writeBytes(element.anyValue, 0, element.anyValue.length);
    }
    out.endLengthDelimited(mark);
    return new AttributeValue(out.toByteArray());
  }

  /** A {@code kvlist_value} of the entries, in the map's order. */
  public static AttributeValue kvlist(Map<String, AttributeValue> entries) {
    ProtoWriter out = new ProtoWriter();
    int mark = out.beginLengthDelimited(AnyValue.KVLIST_VALUE);
    for (Map.Entry<String, AttributeValue> entry : entries.entrySet()) {
      byte[] key = entry.getKey().getBytes(StandardCharsets.UTF_8);
      byte[] value = entry.getValue().anyValue;
      int entryBytes =
          Varint.lengthDelimitedSize(KeyValue.KEY, key.length)
              + Varint.lengthDelimitedSize(KeyValue.VALUE, value.length);
      out.writeLengthDelimitedHeader(KeyValueList.VALUES, entryBytes);
      out.writeLengthDelimitedHeader(KeyValue.KEY, key.length);
      out.writeBytes(key, 0, key.length);
      out.writeLengthDelimitedHeader(KeyValue.VALUE, value.length);
      out.writeBytes(value, 0, value.length);
    }
    out.endLengthDelimited(mark);
    return new AttributeValue(out.toByteArray());
  }

  /** The encoded {@code AnyValue} message. */
  @Internal
  public byte[] anyValue() {
    return anyValue;
  }
}
