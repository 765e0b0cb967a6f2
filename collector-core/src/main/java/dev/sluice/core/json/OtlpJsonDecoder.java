package dev.sluice.core.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import dev.sluice.core.MalformedOtlpException;
import dev.sluice.core.otlp.FieldKind;
import dev.sluice.core.otlp.FieldSchema;
import dev.sluice.core.otlp.IndexLimits;
import dev.sluice.core.otlp.MessageSchema;
import dev.sluice.core.otlp.Signal;
import dev.sluice.core.wire.ProtoWriter;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;

/**
 * Transcodes OTLP/JSON into protobuf bytes in one streaming pass (jackson-core, no object model),
 * following the OTLP JSON rules: keys in lowerCamelCase or as proto field names, trace and span IDs
 * in hex, other bytes in base64, enums as integers or names, 64-bit integers as decimal strings or
 * numbers, unknown keys ignored, {@code null} as absent.
 *
 * <p>Default values of fields without explicit presence are left out, as protobuf does, so the
 * bytes decode to the message protobuf-java's JSON parser builds. The result still goes through the
 * {@link dev.sluice.core.otlp.OtlpIndexer} like any protobuf request.
 *
 * <p>Not thread-safe: one decoder per thread; its output buffer is reused.
 */
public final class OtlpJsonDecoder {
  private static final BigInteger UINT64_MAX =
      BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

  private final JsonFactory factory;
  private final IndexLimits limits;
  private final ProtoWriter out = new ProtoWriter(4096);

  // The path being decoded, for error messages: field names and, for repeated fields, the index.
  private final FieldSchema[] pathField;
  private final int[] pathIndex;
  private int depth;
  private JsonParser parser;

  public OtlpJsonDecoder() {
    this(IndexLimits.DEFAULT);
  }

  public OtlpJsonDecoder(IndexLimits limits) {
    this.limits = limits;
    this.factory =
        JsonFactory.builder()
            .streamReadConstraints(
                StreamReadConstraints.builder()
                    .maxNestingDepth(limits.maxNestingDepth() + 2)
                    .maxStringLength(limits.maxRequestBytes())
                    .build())
            .build();
    pathField = new FieldSchema[limits.maxNestingDepth() + 2];
    pathIndex = new int[limits.maxNestingDepth() + 2];
  }

  /** Decodes a whole array holding one OTLP/JSON request. */
  public byte[] decode(Signal signal, byte[] json) throws MalformedOtlpException {
    return decode(signal, json, 0, json.length);
  }

  /**
   * Decodes {@code json[offset, offset + length)}, an {@code Export*ServiceRequest} in OTLP/JSON,
   * and returns its protobuf encoding in a new array.
   */
  public byte[] decode(Signal signal, byte[] json, int offset, int length)
      throws MalformedOtlpException {
    out.reset();
    depth = 0;
    // A rejected request leaves its path behind.
    Arrays.fill(pathField, null);
    try (JsonParser p = factory.createParser(json, offset, length)) {
      parser = p;
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw error("expected a JSON object");
      }
      readMessage(signal.request());
      if (p.nextToken() != null) {
        throw error("unexpected content after the request object");
      }
    } catch (JsonProcessingException e) {
      JsonLocation location = e.getLocation();
      throw new MalformedOtlpException(
          path(),
          location == null ? -1 : offsetOf(location),
          "invalid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new MalformedOtlpException(path(), -1, "unreadable JSON: " + e.getMessage());
    } finally {
      parser = null;
    }
    return out.toByteArray();
  }

  /** Reads the fields of an object whose START_OBJECT is the current token. */
  private void readMessage(MessageSchema schema) throws IOException, MalformedOtlpException {
    JsonParser p = parser;
    JsonToken token;
    while ((token = p.nextToken()) == JsonToken.FIELD_NAME) {
      FieldSchema field = schema.field(p.currentName());
      JsonToken value = p.nextToken();
      if (field == null) {
        p.skipChildren();
        continue;
      }
      if (value == JsonToken.VALUE_NULL) {
        continue;
      }
      pathField[depth] = field;
      pathIndex[depth] = -1;
      if (field.isRepeated()) {
        readRepeated(field, value);
      } else {
        readValue(field, value);
      }
      pathField[depth] = null;
    }
    if (token != JsonToken.END_OBJECT) {
      throw error("expected a field name or the end of the object");
    }
  }

  private void readRepeated(FieldSchema field, JsonToken token)
      throws IOException, MalformedOtlpException {
    if (token != JsonToken.START_ARRAY) {
      throw error("expected an array");
    }
    JsonParser p = parser;
    if (field.isPacked()) {
      if (p.nextToken() == JsonToken.END_ARRAY) {
        return;
      }
      int mark = out.beginLengthDelimited(field.number());
      int index = 0;
      do {
        pathIndex[depth] = index++;
        writeScalar(field, p.currentToken(), false);
      } while (p.nextToken() != JsonToken.END_ARRAY);
      out.endLengthDelimited(mark);
      return;
    }
    int index = 0;
    while ((token = p.nextToken()) != JsonToken.END_ARRAY) {
      pathIndex[depth] = index++;
      if (token == JsonToken.VALUE_NULL) {
        throw error("null is not allowed in an array");
      }
      readValue(field, token);
    }
  }

  private void readValue(FieldSchema field, JsonToken token)
      throws IOException, MalformedOtlpException {
    switch (field.kind()) {
      case MESSAGE:
        if (token != JsonToken.START_OBJECT) {
          throw error("expected an object");
        }
        if (depth + 1 > limits.maxNestingDepth()) {
          throw error("messages nested deeper than the limit of " + limits.maxNestingDepth());
        }
        int mark = out.beginLengthDelimited(field.number());
        depth++;
        readMessage(field.message());
        depth--;
        out.endLengthDelimited(mark);
        return;
      case STRING:
        writeString(field, token);
        return;
      case BYTES:
        writeBytes(field, token);
        return;
      default:
        writeScalar(field, token, true);
    }
  }

  private void writeString(FieldSchema field, JsonToken token)
      throws IOException, MalformedOtlpException {
    if (token != JsonToken.VALUE_STRING) {
      throw error("expected a string");
    }
    String text = parser.getText();
    if (text.isEmpty() && omitsDefault(field)) {
      return;
    }
    int unpaired = unpairedSurrogate(text);
    if (unpaired >= 0) {
      throw error("unpaired UTF-16 surrogate at character " + unpaired + " of the string");
    }
    byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
    out.writeLengthDelimitedHeader(field.number(), utf8.length);
    out.writeBytes(utf8, 0, utf8.length);
  }

  private static int unpairedSurrogate(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
          i++;
        } else {
          return i;
        }
      } else if (Character.isLowSurrogate(c)) {
        return i;
      }
    }
    return -1;
  }

  private void writeBytes(FieldSchema field, JsonToken token)
      throws IOException, MalformedOtlpException {
    if (token != JsonToken.VALUE_STRING) {
      throw error("expected a string");
    }
    String text = parser.getText();
    byte[] value;
    if (field.idBytes() > 0) {
      value = Hex.decode(text);
      if (value == null) {
        throw error("expected " + 2 * field.idBytes() + " hex digits, found \"" + text + "\"");
      }
      if (value.length != 0 && value.length != field.idBytes()) {
        throw error(
            "expected "
                + 2 * field.idBytes()
                + " hex digits or an empty string, found "
                + text.length()
                + " characters");
      }
    } else {
      try {
        value =
            text.indexOf('-') >= 0 || text.indexOf('_') >= 0
                ? Base64.getUrlDecoder().decode(text)
                : Base64.getDecoder().decode(text);
      } catch (IllegalArgumentException e) {
        throw error("invalid base64: " + e.getMessage());
      }
    }
    if (value.length == 0 && omitsDefault(field)) {
      return;
    }
    out.writeLengthDelimitedHeader(field.number(), value.length);
    out.writeBytes(value, 0, value.length);
  }

  /**
   * Writes a numeric, boolean or enum value; with {@code tagged} false, only the value (an element
   * of a packed array).
   */
  private void writeScalar(FieldSchema field, JsonToken token, boolean tagged)
      throws IOException, MalformedOtlpException {
    FieldKind kind = field.kind();
    boolean skipDefault = tagged && omitsDefault(field);
    switch (kind) {
      case BOOL:
        {
          boolean value;
          if (token == JsonToken.VALUE_TRUE) {
            value = true;
          } else if (token == JsonToken.VALUE_FALSE) {
            value = false;
          } else {
            throw error("expected true or false");
          }
          if (!(skipDefault && !value)) {
            tag(field, tagged);
            out.writeVarint32(value ? 1 : 0);
          }
          return;
        }
      case DOUBLE:
        {
          double value = readDouble(token);
          if (!(skipDefault && Double.doubleToRawLongBits(value) == 0)) {
            tag(field, tagged);
            out.writeFixed64(Double.doubleToRawLongBits(value));
          }
          return;
        }
      case ENUM:
        {
          int value;
          if (token == JsonToken.VALUE_STRING && !isInteger(parser.getText())) {
            value = field.enumNames().indexOf(parser.getText());
            if (value < 0) {
              throw error("unknown enum value \"" + parser.getText() + "\"");
            }
          } else {
            value = (int) readInteger(token, Integer.MIN_VALUE, Integer.MAX_VALUE);
          }
          if (!(skipDefault && value == 0)) {
            tag(field, tagged);
            out.writeVarint64(value);
          }
          return;
        }
      default:
        writeInteger(field, token, tagged, skipDefault);
    }
  }

  private void writeInteger(FieldSchema field, JsonToken token, boolean tagged, boolean skipDefault)
      throws IOException, MalformedOtlpException {
    FieldKind kind = field.kind();
    long value;
    switch (kind) {
      case INT32:
      case SINT32:
        value = readInteger(token, Integer.MIN_VALUE, Integer.MAX_VALUE);
        break;
      case UINT32:
      case FIXED32:
        value = readInteger(token, 0, 0xFFFFFFFFL);
        break;
      case UINT64:
      case FIXED64:
        value = readUnsigned64(token);
        break;
      default:
        value = readInteger(token, Long.MIN_VALUE, Long.MAX_VALUE);
    }
    if (skipDefault && value == 0) {
      return;
    }
    tag(field, tagged);
    switch (kind) {
      case SINT32:
        out.writeVarint32((((int) value) << 1) ^ (((int) value) >> 31));
        return;
      case FIXED32:
        out.writeFixed32((int) value);
        return;
      case FIXED64:
      case SFIXED64:
        out.writeFixed64(value);
        return;
      case INT32:
        // Negative int32 values are sign-extended to ten bytes, as protobuf writes them.
        out.writeVarint64((int) value);
        return;
      default:
        out.writeVarint64(value);
    }
  }

  /**
   * Whether a default value is left out, as protobuf does for singular fields without explicit
   * presence; an element of a repeated field is always kept.
   */
  private static boolean omitsDefault(FieldSchema field) {
    return !field.isRepeated() && !field.hasExplicitPresence();
  }

  private void tag(FieldSchema field, boolean tagged) {
    if (tagged) {
      out.writeTag(field.number(), field.kind().wireType());
    }
  }

  private double readDouble(JsonToken token) throws IOException, MalformedOtlpException {
    if (token == JsonToken.VALUE_NUMBER_INT || token == JsonToken.VALUE_NUMBER_FLOAT) {
      return parser.getDoubleValue();
    }
    if (token == JsonToken.VALUE_STRING) {
      String text = parser.getText();
      switch (text) {
        case "NaN":
          return Double.NaN;
        case "Infinity":
          return Double.POSITIVE_INFINITY;
        case "-Infinity":
          return Double.NEGATIVE_INFINITY;
        default:
          try {
            return new BigDecimal(text.trim()).doubleValue();
          } catch (NumberFormatException e) {
            throw error("expected a number, found \"" + text + "\"");
          }
      }
    }
    throw error("expected a number");
  }

  /** An integer in {@code [min, max]} from a JSON number or a decimal string. */
  private long readInteger(JsonToken token, long min, long max)
      throws IOException, MalformedOtlpException {
    BigInteger value = readBigInteger(token);
    if (value.compareTo(BigInteger.valueOf(min)) < 0
        || value.compareTo(BigInteger.valueOf(max)) > 0) {
      throw error("integer " + value + " out of range [" + min + ", " + max + "]");
    }
    return value.longValue();
  }

  private long readUnsigned64(JsonToken token) throws IOException, MalformedOtlpException {
    BigInteger value = readBigInteger(token);
    if (value.signum() < 0 || value.compareTo(UINT64_MAX) > 0) {
      throw error("integer " + value + " out of range for an unsigned 64-bit field");
    }
    return value.longValue();
  }

  private BigInteger readBigInteger(JsonToken token) throws IOException, MalformedOtlpException {
    if (token == JsonToken.VALUE_NUMBER_INT) {
      return parser.getBigIntegerValue();
    }
    String text;
    if (token == JsonToken.VALUE_NUMBER_FLOAT) {
      text = parser.getText();
    } else if (token == JsonToken.VALUE_STRING) {
      text = parser.getText().trim();
    } else {
      throw error("expected an integer");
    }
    try {
      if (isInteger(text)) {
        return new BigInteger(text);
      }
      // Proto3 JSON allows integral values in exponent or fraction form, such as 1e3 or 5.0.
      return new BigDecimal(text).toBigIntegerExact();
    } catch (NumberFormatException | ArithmeticException e) {
      throw error("expected an integer, found \"" + text + "\"");
    }
  }

  private static boolean isInteger(String text) {
    int start = text.startsWith("-") ? 1 : 0;
    if (text.length() == start || text.length() > 40) {
      return false;
    }
    for (int i = start; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  private MalformedOtlpException error(String reason) {
    JsonLocation location = parser == null ? null : parser.currentTokenLocation();
    return new MalformedOtlpException(path(), location == null ? -1 : offsetOf(location), reason);
  }

  private static long offsetOf(JsonLocation location) {
    long bytes = location.getByteOffset();
    return bytes >= 0 ? bytes : location.getCharOffset();
  }

  private String path() {
    StringBuilder path = new StringBuilder();
    for (int d = 0; d <= depth && d < pathField.length; d++) {
      FieldSchema field = pathField[d];
      if (field == null) {
        break;
      }
      if (path.length() > 0) {
        path.append('.');
      }
      path.append(field.name());
      if (pathIndex[d] >= 0) {
        path.append('[').append(pathIndex[d]).append(']');
      }
    }
    return path.toString();
  }
}
