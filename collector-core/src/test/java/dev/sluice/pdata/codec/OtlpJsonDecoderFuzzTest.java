package dev.sluice.pdata.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.Message;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.testkit.AllocationBound;
import dev.sluice.testkit.FuzzerHooks;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.io.InputStream;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeAll;

/**
 * Coverage-guided fuzzing of the OTLP/JSON decoder (the first byte of an input picks the signal,
 * the rest is the JSON). For every input: only {@link MalformedOtlpException} escapes; decoding
 * allocates within {@link AllocationBound}, accepted or not; and what the decoder accepts yields
 * protobuf bytes that the indexer accepts and protobuf-java parses.
 *
 * <p>Regression inputs: {@code
 * src/test/resources/dev/sluice/pdata/codec/OtlpJsonDecoderFuzzTestInputs/}. Fuzzing: {@code
 * bench/fuzz.sh OtlpJsonDecoderFuzzTest#decode 10m}.
 */
class OtlpJsonDecoderFuzzTest {
  private static final OtlpJsonDecoder DECODER = new OtlpJsonDecoder();
  private static final OtlpIndexer INDEXER = new OtlpIndexer();

  /**
   * Inputs that take the decoder's and jackson-core's error paths: the first exception of each kind
   * loads and initialises classes (jackson's nesting check alone allocates 450 KB once per JVM).
   */
  private static final String[] ERROR_PATHS = {
    "{\"resourceLogs\":[{\"x\":",
    "{\"u\":" + "[".repeat(400),
    "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":\"zz\",\"kind\":\"A\\n\"}]}]}]}",
    "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"startTimeUnixNano\":\"1e999\"}]}]}]}",
    "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"startTimeUnixNano\":1.5}]}]}]}",
    "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"kind\":\"X\"}]}]}]}",
    "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"flags\":-1}]}]}]}",
    "{\"resourceLogs\":[{\"scopeLogs\":[{\"logRecords\":[{\"body\":{\"bytesValue\":\"*\"}}]}]}]}",
    "{\"resourceLogs\":[{\"scopeLogs\":[{\"logRecords\":[{\"body\":{\"doubleValue\":\"x\"}}]}]}]}",
    "{\"a\":\"\\ud800\"}",
    "{\"a\":01}",
    "[1]",
    "{} {}",
    "{\"a\":\"\u0001\"}",
  };

  @BeforeAll
  static void warmUp() throws Exception {
    warmUp(DECODER);
    try (InputStream in =
        OtlpJsonDecoderFuzzTest.class.getResourceAsStream("/otlp-examples/trace.json")) {
      INDEXER.index(Signal.TRACES, DECODER.decode(Signal.TRACES, in.readAllBytes()));
    }
  }

  /** Loads and initialises the decoder's classes (and jackson-core's), on both paths. */
  static void warmUp(OtlpJsonDecoder decoder) throws Exception {
    try (InputStream in =
        OtlpJsonDecoderFuzzTest.class.getResourceAsStream("/otlp-examples/metrics.json")) {
      decoder.decode(Signal.METRICS, in.readAllBytes());
    }
    for (String json : ERROR_PATHS) {
      for (Signal signal : Signal.values()) {
        try {
          decoder.decode(signal, json.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } catch (MalformedOtlpException expected) {
          // The error path is what is being warmed.
        }
      }
    }
  }

  @FuzzTest
  void decode(byte[] input) throws Exception {
    if (input.length == 0) {
      return;
    }
    Signal signal = Signal.values()[(input[0] & 0xFF) % Signal.values().length];
    byte[] json = Arrays.copyOfRange(input, 1, input.length);
    check(signal, json);
  }

  static void check(Signal signal, byte[] json) throws Exception {
    byte[][] decoded = new byte[1][];
    AllocationBound.Outcome outcome =
        AllocationBound.measure(() -> decoded[0] = DECODER.decode(signal, json));
    if (outcome.allocatedBytes() > AllocationBound.limitFor(json.length)) {
      // The first pass through a path loads classes and links its string concatenations, once per
      // JVM, and the fuzzer's hooks allocate on every call: measure again with the hooks paused,
      // on new decoders whose buffers have not grown for larger inputs, the first one taking the
      // one-time costs.
      for (int pass = 0; pass < 2; pass++) {
        OtlpJsonDecoder fresh = new OtlpJsonDecoder();
        fresh.decode(Signal.TRACES, "{}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        outcome = FuzzerHooks.measurePaused(() -> decoded[0] = fresh.decode(signal, json));
      }
    }
    FuzzerHooks.assertWithin(outcome, signal + " JSON decoding", json.length);
    if (outcome.thrown() != null) {
      if (!(outcome.thrown() instanceof MalformedOtlpException)) {
        throw outcome.thrown();
      }
      assertThat(outcome.thrown().getMessage().length())
          .as("message length")
          .isLessThanOrEqualTo(MalformedOtlpException.MAX_MESSAGE_CHARS + 32);
      return;
    }
    byte[] bytes = decoded[0];
    assertThatCode(() -> INDEXER.index(signal, bytes))
        .as("the indexer refuses what the JSON decoder wrote")
        .doesNotThrowAnyException();
    assertThatCode(() -> parse(signal, bytes))
        .as("protobuf-java refuses what the JSON decoder wrote")
        .doesNotThrowAnyException();
  }

  private static Message parse(Signal signal, byte[] bytes) throws Exception {
    switch (signal) {
      case TRACES:
        return ExportTraceServiceRequest.parseFrom(bytes);
      case METRICS:
        return ExportMetricsServiceRequest.parseFrom(bytes);
      default:
        return ExportLogsServiceRequest.parseFrom(bytes);
    }
  }
}
