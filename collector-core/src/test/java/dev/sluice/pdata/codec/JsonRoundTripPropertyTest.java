package dev.sluice.pdata.codec;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.UnknownFieldSet;
import dev.sluice.pdata.Signal;
import dev.sluice.testkit.RandomRequests;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * JSON to protobuf to JSON for generated requests that use every field: what the encoder writes,
 * the decoder reads back to the same message, protobuf-java's JSON parser reads to the same
 * message, and encoding again gives the same JSON. OTLP/JSON has no unknown fields, so the expected
 * message is the generated one without them.
 */
class JsonRoundTripPropertyTest {
  private static final int CASES = Integer.getInteger("sluice.props.cases", 200);

  private final OtlpJsonEncoder encoder = new OtlpJsonEncoder();
  private final OtlpJsonDecoder decoder = new OtlpJsonDecoder();

  @ParameterizedTest
  @EnumSource(Signal.class)
  void generatedRequestsRoundTripThroughJson(Signal signal) throws Exception {
    for (int seed = 0; seed < CASES; seed++) {
      Message request =
          RandomRequests.request(
              signal,
              new Random(seed),
              RandomRequests.Sizes.DEFAULT,
              RandomRequests.headers(new Random(seed), RandomRequests.Sizes.DEFAULT, 2));
      byte[] bytes = request.toByteArray();
      Message expected = normalized(request, false);

      byte[] json = encoder.encode(signal, bytes, 0, bytes.length);
      byte[] decoded = decoder.decode(signal, json);

      String what = signal + " seed " + seed;
      Message actual = OtlpJsonTest.parse(signal, decoded);
      assertThat(actual).as(what).isEqualTo(expected);
      // protobuf-java's JSON parser reads -0.0 as 0.0; the check against it forgives that alone.
      assertThat(
              normalized(
                  OtlpJsonTest.protobufJavaParse(signal, new String(json, StandardCharsets.UTF_8)),
                  true))
          .as(what)
          .isEqualTo(normalized(request, true));
      assertThat(
              new String(
                  encoder.encode(signal, decoded, 0, decoded.length), StandardCharsets.UTF_8))
          .as(what)
          .isEqualTo(new String(json, StandardCharsets.UTF_8));
    }
  }

  /**
   * The message with unknown fields removed at every level and, with {@code positiveZeros}, every
   * -0.0 made 0.0.
   */
  @SuppressWarnings("unchecked")
  static Message normalized(Message message, boolean positiveZeros) {
    Message.Builder builder = message.toBuilder();
    builder.setUnknownFields(UnknownFieldSet.getDefaultInstance());
    for (Map.Entry<FieldDescriptor, Object> entry : message.getAllFields().entrySet()) {
      FieldDescriptor field = entry.getKey();
      if (field.getJavaType() == FieldDescriptor.JavaType.DOUBLE && positiveZeros) {
        if (field.isRepeated()) {
          builder.clearField(field);
          for (Double value : (List<Double>) entry.getValue()) {
            builder.addRepeatedField(field, value == 0 ? 0.0 : value);
          }
        } else if ((Double) entry.getValue() == 0) {
          builder.setField(field, 0.0);
        }
        continue;
      }
      if (field.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
        continue;
      }
      if (field.isRepeated()) {
        builder.clearField(field);
        for (Message element : (List<Message>) entry.getValue()) {
          builder.addRepeatedField(field, normalized(element, positiveZeros));
        }
      } else {
        builder.setField(field, normalized((Message) entry.getValue(), positiveZeros));
      }
    }
    return builder.build();
  }
}
