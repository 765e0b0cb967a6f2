package dev.sluice.processor.resourcedetection;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Parses {@code OTEL_RESOURCE_ATTRIBUTES} as the OpenTelemetry specification writes it: {@code
 * key1=value1,key2=value2}, spaces around keys and values ignored, keys and values percent-decoded
 * (so {@code %2C} is a comma and {@code %3D} an equals sign; {@code +} stays a plus). A trailing
 * comma is accepted. Any malformed entry discards the whole variable, as the specification asks and
 * the Go collector does: an entry without {@code =} or with an empty key, an empty entry between
 * commas, an invalid escape ({@code %zz}), or bytes that are not UTF-8 once decoded. A key given
 * twice takes its last value.
 */
final class OtelResourceAttributes {
  private static final int HEX_RADIX = 16;
  private static final char ASCII_LIMIT = 128;

  private OtelResourceAttributes() {}

  /**
   * The attributes in {@code text}, the value of the environment variable {@code variable}, in the
   * order written.
   *
   * @throws DetectionException (permanent) naming the variable and the malformed entry
   */
  static Map<String, String> parse(String variable, String text) throws DetectionException {
    Map<String, String> attributes = new LinkedHashMap<>();
    String all = text.strip();
    if (all.isEmpty()) {
      return attributes;
    }
    String[] entries = all.split(",", -1);
    for (int i = 0; i < entries.length; i++) {
      String entry = entries[i];
      if (entry.isBlank()) {
        if (i == entries.length - 1) {
          break;
        }
        throw malformed("invalid resource format, empty entry at position " + (i + 1), variable);
      }
      int equals = entry.indexOf('=');
      if (equals < 0) {
        throw malformed(
            "invalid resource format, invalid text: " + ResourceDetectionConfig.quote(entry),
            variable);
      }
      String key = decode(entry.substring(0, equals).strip(), entry, variable);
      String value = decode(entry.substring(equals + 1).strip(), entry, variable);
      if (key.isEmpty()) {
        throw malformed(
            "invalid resource format, empty key in " + ResourceDetectionConfig.quote(entry),
            variable);
      }
      attributes.put(key, value);
    }
    return attributes;
  }

  private static String decode(String text, String entry, String variable)
      throws DetectionException {
    if (text.indexOf('%') < 0) {
      return text;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(text.length());
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (c != '%') {
        int end = i + 1;
        while (end < text.length() && text.charAt(end) != '%') {
          end++;
        }
        bytes.writeBytes(text.substring(i, end).getBytes(StandardCharsets.UTF_8));
        i = end;
        continue;
      }
      int high = i + 1 < text.length() ? hex(text.charAt(i + 1)) : -1;
      int low = i + 2 < text.length() ? hex(text.charAt(i + 2)) : -1;
      if (high < 0 || low < 0) {
        String escape = text.substring(i, Math.min(i + 3, text.length()));
        throw malformed(
            "invalid resource format in attribute: "
                + ResourceDetectionConfig.quote(entry)
                + ", err: invalid URL escape "
                + ResourceDetectionConfig.quote(escape),
            variable);
      }
      bytes.write(high * HEX_RADIX + low);
      i += 3;
    }
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes.toByteArray()))
          .toString();
    } catch (CharacterCodingException e) {
      throw malformed(
          "invalid resource format in attribute: "
              + ResourceDetectionConfig.quote(entry)
              + ", err: not UTF-8 once percent-decoded",
          variable);
    }
  }

  private static int hex(char c) {
    // Character.digit also takes non-ASCII digits, which are no escape.
    return c < ASCII_LIMIT ? Character.digit(c, HEX_RADIX) : -1;
  }

  private static DetectionException malformed(String what, String variable) {
    return new DetectionException(variable + ": " + what, true);
  }
}
