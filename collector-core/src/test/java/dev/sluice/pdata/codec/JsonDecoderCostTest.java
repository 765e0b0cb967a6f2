package dev.sluice.pdata.codec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.MalformedOtlpException.Kind;
import dev.sluice.pdata.Signal;
import dev.sluice.testkit.AllocationBound;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * What an OTLP/JSON request may cost the decoder, accepted or refused: within {@link
 * AllocationBound} on a decoder that has seen one small request, with no work that grows faster
 * than the input (numbers with huge exponents, long digit strings, deep nesting, many keys).
 */
class JsonDecoderCostTest {
  private static final int MIB = 1 << 20;
  private static final String SPAN_START =
      "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"name\":\"s\",";
  private static final String SPAN_END = "}]}]}]}";

  private static OtlpJsonDecoder warmDecoder() throws Exception {
    OtlpJsonDecoder decoder = new OtlpJsonDecoder();
    OtlpJsonDecoderFuzzTest.warmUp(decoder);
    return decoder;
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static AllocationBound.Outcome decode(Signal signal, String json) throws Exception {
    OtlpJsonDecoder decoder = warmDecoder();
    byte[] bytes = utf8(json);
    return AllocationBound.measure(() -> decoder.decode(signal, bytes))
        .assertWithin("JSON of " + bytes.length + " bytes", bytes.length);
  }

  private static MalformedOtlpException refused(AllocationBound.Outcome outcome) {
    assertThat(outcome.thrown()).isInstanceOf(MalformedOtlpException.class);
    MalformedOtlpException e = (MalformedOtlpException) outcome.thrown();
    assertThat(e.getMessage().length())
        .isLessThanOrEqualTo(MalformedOtlpException.MAX_MESSAGE_CHARS);
    return e;
  }

  @Test
  void refusesAnIntegerWithAHugeExponentWithoutComputingIt() throws Exception {
    for (String value : new String[] {"1e999999999", "\"1e999999999\"", "\"1e-999999999\""}) {
      MalformedOtlpException e =
          refused(decode(Signal.TRACES, SPAN_START + "\"startTimeUnixNano\":" + value + SPAN_END));

      assertThat(e.fieldPath()).endsWith("spans[0].start_time_unix_nano");
      assertThat(e.kind()).isEqualTo(Kind.INVALID_JSON);
    }
  }

  @Test
  void acceptsIntegralValuesInExponentForm() throws Exception {
    AllocationBound.Outcome outcome =
        decode(Signal.TRACES, SPAN_START + "\"startTimeUnixNano\":\"17e17\"" + SPAN_END);

    assertThat(outcome.thrown()).isNull();
  }

  @Test
  void refusesANumberStringLongerThanJacksonAllowsANumber() throws Exception {
    String digits = "1".repeat(MIB);

    MalformedOtlpException e =
        refused(
            decode(
                Signal.METRICS,
                "{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":[{\"gauge\":{\"dataPoints\":"
                    + "[{\"asDouble\":\""
                    + digits
                    + "\"}]}}]}]}]}"));

    assertThat(e.kind()).isEqualTo(Kind.LIMIT);
    assertThat(e.reason()).contains("longer than " + OtlpJsonDecoder.MAX_NUMBER_CHARS);
  }

  @Test
  void quotesAFewCharactersOfAMegabyteTraceId() throws Exception {
    MalformedOtlpException e =
        refused(
            decode(
                Signal.TRACES, SPAN_START + "\"traceId\":\"" + "z".repeat(MIB) + "\"" + SPAN_END));

    assertThat(e.kind()).isEqualTo(Kind.ID_LENGTH);
    assertThat(e.getMessage()).hasSizeLessThan(300);
  }

  @Test
  void quotesEscapedInputInAnUnknownEnumName() throws Exception {
    MalformedOtlpException e =
        refused(
            decode(
                Signal.TRACES,
                SPAN_START + "\"kind\":\"A\\n\\\"B" + "x".repeat(MIB) + "\"" + SPAN_END));

    assertThat(e.reason()).startsWith("unknown enum value \"A\\u000a\\\"Bxxx").endsWith("...\"");
    assertThat(e.getMessage()).hasSizeLessThan(300);
  }

  @Test
  void refusesTenThousandNestedArrays() throws Exception {
    String deep = "[".repeat(10_000) + "]".repeat(10_000);

    MalformedOtlpException e = refused(decode(Signal.LOGS, "{\"unknown\":" + deep + "}"));

    assertThat(e.kind()).isEqualTo(Kind.LIMIT);
  }

  @Test
  void refusesMessagesNestedPastTheLimit() throws Exception {
    StringBuilder value = new StringBuilder("{\"stringValue\":\"x\"}");
    for (int i = 0; i < 60; i++) {
      value.insert(0, "{\"arrayValue\":{\"values\":[").append("]}}");
    }

    MalformedOtlpException e =
        refused(
            decode(
                Signal.TRACES,
                SPAN_START
                    + "\"attributes\":[{\"key\":\"k\",\"value\":"
                    + value
                    + "}]"
                    + SPAN_END));

    assertThat(e.kind()).isEqualTo(Kind.NESTING_DEPTH);
  }

  @Test
  void refusesAHundredThousandDistinctUnknownKeys() throws Exception {
    StringBuilder json = new StringBuilder("{");
    for (int i = 0; i < 100_000; i++) {
      json.append('"').append(Integer.toString(i, 36)).append("\":0,");
    }
    json.append("\"resourceSpans\":[]}");

    MalformedOtlpException e = refused(decode(Signal.TRACES, json.toString()));

    assertThat(e.kind()).isEqualTo(Kind.LIMIT);
    assertThat(e.reason()).contains("distinct unknown keys");
  }

  @Test
  void countsUnknownKeysInsideSkippedValues() throws Exception {
    StringBuilder json = new StringBuilder("{\"future\":[{");
    for (int i = 0; i < 100_000; i++) {
      json.append(i == 0 ? "" : ",").append('"').append(Integer.toString(i, 36)).append("\":{}");
    }
    json.append("}],\"resourceSpans\":[]}");

    assertThat(refused(decode(Signal.TRACES, json.toString())).kind()).isEqualTo(Kind.LIMIT);
  }

  @Test
  void acceptsAFewNewKeysInEverySpan() throws Exception {
    StringBuilder spans = new StringBuilder();
    for (int i = 0; i < 20_000; i++) {
      spans.append(i == 0 ? "" : ",").append("{\"name\":\"s\",\"newField\":1,\"other\":{\"x\":2}}");
    }

    AllocationBound.Outcome outcome =
        decode(
            Signal.TRACES, "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[" + spans + "]}]}]}");

    assertThat(outcome.thrown()).isNull();
  }

  @Test
  void acceptsAMegabyteString() throws Exception {
    String body =
        "{\"resourceLogs\":[{\"scopeLogs\":[{\"logRecords\":[{\"body\":{\"stringValue\":\"";

    assertThat(decode(Signal.LOGS, body + "é".repeat(MIB / 2) + "\"}}]}]}]}").thrown()).isNull();
  }

  @Test
  void acceptsHalfAMillionExplicitBoundsOnceItsBufferHasGrown() throws Exception {
    // Two characters of JSON become eight bytes of protobuf, the largest growth JSON allows: the
    // output and its copy alone are 8 bytes per byte. Within the bound once the decoder's buffer
    // has grown to such an output (see the note on growth in OtlpJsonDecoder).
    String bounds = "0,".repeat(MIB / 4) + "0";
    byte[] json =
        utf8(
            "{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":[{\"histogram\":{\"dataPoints\":"
                + "[{\"explicitBounds\":["
                + bounds
                + "]}]}}]}]}]}");
    OtlpJsonDecoder decoder = warmDecoder();
    decoder.decode(Signal.METRICS, json);

    AllocationBound.Outcome outcome =
        AllocationBound.measure(() -> decoder.decode(Signal.METRICS, json))
            .assertWithin("explicit bounds", json.length);

    assertThat(outcome.thrown()).isNull();
  }

  @Test
  void acceptsManyShortAttributes() throws Exception {
    StringBuilder attributes = new StringBuilder();
    for (int i = 0; i < 20_000; i++) {
      attributes
          .append(i == 0 ? "" : ",")
          .append("{\"key\":\"k\",\"value\":{\"stringValue\":\"v\"}}");
    }

    assertThat(
            decode(Signal.TRACES, SPAN_START + "\"attributes\":[" + attributes + "]" + SPAN_END)
                .thrown())
        .isNull();
  }
}
