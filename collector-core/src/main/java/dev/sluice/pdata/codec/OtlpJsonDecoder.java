package dev.sluice.pdata.codec;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.MalformedOtlpException.Kind;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.internal.FieldKind;
import dev.sluice.pdata.internal.FieldSchema;
import dev.sluice.pdata.internal.Hex;
import dev.sluice.pdata.internal.IndexLimits;
import dev.sluice.pdata.internal.Internal;
import dev.sluice.pdata.internal.MessageSchema;
import dev.sluice.pdata.internal.OtlpFields;
import dev.sluice.pdata.internal.OtlpSchema;
import dev.sluice.pdata.internal.ProtoWriter;
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
 * {@link dev.sluice.pdata.codec.OtlpIndexer} like any protobuf request.
 *
 * <p>Not thread-safe: one decoder per thread; its output buffer is reused.
 */
public final class OtlpJsonDecoder {
  private static final BigInteger UINT64_MAX =
      BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

  /**
   * The longest number read from a string, as jackson-core bounds number tokens: parsing digits
   * into a {@link BigDecimal} costs time quadratic in their count.
   */
  static final int MAX_NUMBER_CHARS = 1000;

  /** The most digits an integral value may have before it is out of every field's range. */
  private static final int MAX_INTEGER_DIGITS = 20;

  /**
   * Unknown keys a request may bring beyond one per {@link #INPUT_BYTES_PER_UNKNOWN_KEY} bytes.
   * Each distinct key name costs jackson-core a string and a symbol-table entry (about 100 bytes),
   * so without a bound a request of short distinct keys costs 12 bytes per byte. Keys already met
   * among the last {@link #RECENT_UNKNOWN_KEYS} cost nothing and are not counted: a newer client's
   * few new fields, repeated in every span, never come near the bound.
   */
  static final int MAX_UNKNOWN_KEYS_FIXED = 64;

  static final int INPUT_BYTES_PER_UNKNOWN_KEY = 32;
  private static final int RECENT_UNKNOWN_KEYS = 64;

  /** JSON levels per message level: an object, and an array for repeated fields, with room. */
  private static final int JSON_LEVELS_PER_MESSAGE = 3;

  private final JsonFactory factory;
  private final IndexLimits limits;
  private final ProtoWriter out = new ProtoWriter(4096);

  // The path being decoded, for error messages: field names and, for repeated fields, the index.
  private final FieldSchema[] pathField;
  private final int[] pathIndex;
  private int depth;
  private JsonParser parser;

  // Unknown keys: the last distinct names met (a ring) and how many were counted.
  private final String[] recentUnknownKeys = new String[RECENT_UNKNOWN_KEYS];
  private int unknownKeys;
  private long maxUnknownKeys;

  public OtlpJsonDecoder() {
    this(IndexLimits.DEFAULT);
  }

  @Internal
  public OtlpJsonDecoder(IndexLimits limits) {
    this.limits = limits;
    this.factory =
        JsonFactory.builder()
            // Field names are looked up, never kept: interning every distinct name a client
            // sends would fill the JVM's string table.
            .disable(JsonFactory.Feature.INTERN_FIELD_NAMES)
            .streamReadConstraints(
                StreamReadConstraints.builder()
                    // Deeper than messages may nest, so that nested messages meet the check of
                    // their depth first; unknown values are skipped without recursion.
                    .maxNestingDepth(JSON_LEVELS_PER_MESSAGE * limits.maxNestingDepth() + 4)
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
    limits.checkRequestBytes(length);
    out.reset();
    depth = 0;
    unknownKeys = 0;
    maxUnknownKeys = MAX_UNKNOWN_KEYS_FIXED + length / INPUT_BYTES_PER_UNKNOWN_KEY;
    Arrays.fill(recentUnknownKeys, null);
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
          e instanceof StreamConstraintsException ? Kind.LIMIT : Kind.INVALID_JSON,
          "invalid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new MalformedOtlpException(
          path(), -1, Kind.INVALID_JSON, "unreadable JSON: " + e.getMessage());
    } finally {
      parser = null;
    }
    return out.toByteArray();
  }

  /** Reads the fields of an object whose START_OBJECT is the current token. */
  private void readMessage(MessageSchema schema) throws IOException, MalformedOtlpException {
    JsonParser p = parser;
    JsonToken token;
    // A metric's data is a oneof: protobuf-java's JSON parser refuses a second member, and the
    // indexer would refuse the protobuf written for it, at an offset the client never sent.
    FieldSchema data = null;
    while ((token = p.nextToken()) == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      FieldSchema field = schema.field(name);
      JsonToken value = p.nextToken();
      if (field == null) {
        unknownKey(name);
        skip(value);
        continue;
      }
      if (value == JsonToken.VALUE_NULL) {
        continue;
      }
      pathField[depth] = field;
      pathIndex[depth] = -1;
      if (schema == OtlpSchema.METRIC && OtlpFields.Metric.isData(field.number())) {
        if (data != null) {
          throw error(
              Kind.DATA_MESSAGES,
              "a metric holds one data message, found " + field.name() + " after " + data.name());
        }
        data = field;
      }
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

  /**
   * Skips an unknown value whose first token is current, counting the keys inside it (jackson's
   * {@code skipChildren} would read them too, unseen).
   */
  private void skip(JsonToken token) throws IOException, MalformedOtlpException {
    if (token != JsonToken.START_OBJECT && token != JsonToken.START_ARRAY) {
      return;
    }
    JsonParser p = parser;
    int open = 1;
    while (open > 0) {
      JsonToken next = p.nextToken();
      if (next == null) {
        throw error("unexpected end of input in an unknown value");
      } else if (next == JsonToken.FIELD_NAME) {
        unknownKey(p.currentName());
      } else if (next.isStructStart()) {
        open++;
      } else if (next.isStructEnd()) {
        open--;
      }
    }
  }

  /** Counts an unknown key unless it is one of the last distinct ones met. */
  private void unknownKey(String name) throws MalformedOtlpException {
    for (String recent : recentUnknownKeys) {
      if (name.equals(recent)) {
        return;
      }
    }
    recentUnknownKeys[unknownKeys % RECENT_UNKNOWN_KEYS] = name;
    if (++unknownKeys > maxUnknownKeys) {
      throw error(
          Kind.LIMIT,
          "more than "
              + maxUnknownKeys
              + " distinct unknown keys ("
              + MAX_UNKNOWN_KEYS_FIXED
              + " + one per "
              + INPUT_BYTES_PER_UNKNOWN_KEY
              + " bytes of the request)");
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
          throw error(
              Kind.NESTING_DEPTH,
              "messages nested deeper than the limit of " + limits.maxNestingDepth());
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
      if (!text.isEmpty() && text.length() != 2 * field.idBytes()) {
        throw error(
            Kind.ID_LENGTH,
            "expected "
                + 2 * field.idBytes()
                + " hex digits or an empty string, found "
                + text.length()
                + " characters");
      }
      value = Hex.decode(text);
      if (value == null) {
        throw error(
            "expected "
                + 2 * field.idBytes()
                + " hex digits, found "
                + MalformedOtlpException.quote(text));
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
              throw error("unknown enum value " + MalformedOtlpException.quote(parser.getText()));
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
            return number(text.trim()).doubleValue();
          } catch (NumberFormatException e) {
            throw error("expected a number, found " + MalformedOtlpException.quote(text));
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
      throw error(
          "integer " + shortened(value.toString()) + " out of range [" + min + ", " + max + "]");
    }
    return value.longValue();
  }

  private long readUnsigned64(JsonToken token) throws IOException, MalformedOtlpException {
    BigInteger value = readBigInteger(token);
    if (value.signum() < 0 || value.compareTo(UINT64_MAX) > 0) {
      throw error(
          "integer " + shortened(value.toString()) + " out of range for an unsigned 64-bit field");
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
      return integral(number(text));
    } catch (NumberFormatException | ArithmeticException e) {
      throw error("expected an integer, found " + MalformedOtlpException.quote(text));
    }
  }

  /** Digits for a message: at most {@link MalformedOtlpException#MAX_QUOTED_CHARS} of them. */
  private static String shortened(String digits) {
    int max = MalformedOtlpException.MAX_QUOTED_CHARS;
    return digits.length() <= max ? digits : digits.substring(0, max) + "...";
  }

  /** A number from a string, refused past {@link #MAX_NUMBER_CHARS}. */
  private BigDecimal number(String text) throws MalformedOtlpException {
    if (text.length() > MAX_NUMBER_CHARS) {
      throw error(
          Kind.LIMIT,
          "number of " + text.length() + " characters, longer than " + MAX_NUMBER_CHARS);
    }
    return new BigDecimal(text);
  }

  /**
   * The integer a decimal holds, or an exception. Checked on the digits and the exponent first:
   * {@code 1e999999999} or {@code 1e-999999999} would otherwise make {@code toBigIntegerExact}
   * compute a power of ten of a billion digits.
   */
  private BigInteger integral(BigDecimal value) throws MalformedOtlpException {
    if (value.signum() == 0) {
      return BigInteger.ZERO;
    }
    BigDecimal stripped = value.stripTrailingZeros();
    if (stripped.scale() > 0) {
      throw new ArithmeticException("not an integer");
    }
    // Digits before the decimal point: precision - scale, with the scale zero or negative here.
    if ((long) stripped.precision() - stripped.scale() > MAX_INTEGER_DIGITS) {
      throw error("integer " + shortened(value.toString()) + " out of every range");
    }
    return stripped.toBigIntegerExact();
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
    return error(Kind.INVALID_JSON, reason);
  }

  private MalformedOtlpException error(Kind kind, String reason) {
    JsonLocation location = parser == null ? null : parser.currentTokenLocation();
    return new MalformedOtlpException(
        path(), location == null ? -1 : offsetOf(location), kind, reason);
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
