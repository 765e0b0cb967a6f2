package dev.sluice.connector.servicegraph;

import dev.sluice.pdata.view.AnyValueView;
import dev.sluice.pdata.view.ValueText;
import java.util.Base64;

/**
 * Attribute values as the text the Collector puts in a service name, a dimension or a peer (its
 * {@code AsString}): strings as they are, bools as {@code true}/{@code false}, ints in decimal,
 * doubles in Go's shortest form, bytes in standard base64. Arrays and maps, which Go writes as
 * JSON, are written as the empty string here.
 */
final class AttributeText {
  private AttributeText() {}

  static String of(AnyValueView value) {
    return switch (value.type()) {
      case STRING -> value.stringValue().asString();
      case BOOL -> value.boolValue() ? "true" : "false";
      case INT -> Long.toString(value.intValue());
      case DOUBLE -> ValueText.goDouble(value.doubleValue());
      case BYTES -> {
        byte[] bytes = new byte[value.bytesLength()];
        value.copyBytes(bytes, 0);
        yield Base64.getEncoder().encodeToString(bytes);
      }
      default -> "";
    };
  }
}
