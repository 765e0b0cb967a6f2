package dev.sluice.receiver.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.component.telemetry.ReceiverTelemetry;
import dev.sluice.testkit.AllocationBound;
import dev.sluice.testkit.FuzzerHooks;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;

/**
 * Fuzzes the OTLP/HTTP server's own pipeline (codec, request tracker, body aggregator, handler) in
 * an {@link EmbeddedChannel} with arbitrary bytes from a client: nothing escapes the pipeline but
 * closing the channel, every buffer allocated is released, every answer is one of the statuses
 * listed here, and one connection's input costs within the allocation bound.
 *
 * <p>The receiver is in no pipeline, so that no body goes on to the indexer (fuzzed on its own):
 * bodies are answered 404 before they are decompressed; {@link BodyDecoderFuzzTest} fuzzes that.
 */
class HttpPipelineFuzzTest {
  /** Small, so that the fuzzer reaches it. */
  static final long LIMIT_BYTES = 1024;

  /**
   * 100 Continue; 204 for a CORS preflight; 400, 404, 405, 413, 415 from the handler, the gate and
   * the aggregator; 414 and 431 for a request line or headers over the codec's limits; 417 for an
   * expectation the aggregator does not know.
   */
  static final Set<Integer> STATUSES = Set.of(100, 204, 400, 404, 405, 413, 414, 415, 417, 431);

  /**
   * What one request and its answer cost beyond their bytes, in AllocationBound's per-byte units:
   * Netty's request, headers and aggregated message, the handler's answer, the encoded response.
   * Measured without the fuzzer: about 15 KiB per pipelined 404 whatever its size (a preflight and
   * a 405: 33 KiB). Under the Jazzer agent its regex hooks on the CORS origin patterns add about 50
   * KiB per match (the same two answers: 139 KiB), so the allowance is 8 x 8 KiB = 64 KiB.
   */
  static final int ANSWER_BYTES = 8 * 1024;

  private static final Pattern STATUS_LINE = Pattern.compile("HTTP/1\\.1 (\\d{3}) ");

  private static final HttpServerConfig CONFIG =
      new HttpServerConfig(
          "127.0.0.1:0",
          null,
          new HttpServerConfig.Cors(List.of("https://*.example"), List.of("x-tenant"), 60),
          LIMIT_BYTES,
          false,
          "/v1/traces",
          "/v1/metrics",
          "/v1/logs");

  private static final RequestHandler HANDLER =
      new RequestHandler(
          Map.of(), new ReceiverTelemetry(new MetricRegistry(), ComponentId.parse("otlp"), "http"));

  private static final OtlpHttpHandler.Routes ROUTES = new OtlpHttpHandler.Routes(CONFIG, HANDLER);

  private static final EdgeAdmission ADMISSION =
      new EdgeAdmission(
          HANDLER,
          InFlightBytes.ofMib(CONFIG.maxInFlightBytesMib()),
          new ComponentSettings(
              ComponentId.parse("otlp"), ComponentKind.RECEIVER, new MetricRegistry()),
          "http");

  @BeforeAll
  static void warmUp() {
    String answer =
        exchange(
            ("POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n"
                    + "Content-Length: 2\r\n\r\nab")
                .getBytes(StandardCharsets.US_ASCII),
            new TrackingAllocator());
    assertThat(answer).startsWith("HTTP/1.1 404 ").contains("not in a traces pipeline");
  }

  @FuzzTest
  void answersAnyBytesWithinBound(byte[] input) {
    TrackingAllocator allocator = new TrackingAllocator();
    exchange(input, allocator); // once unmeasured: first runs link and load what they use
    allocator.unreleased();
    String[] answers = new String[1];
    AllocationBound.Outcome outcome =
        AllocationBound.measure(() -> answers[0] = exchange(input, allocator));
    if (outcome.thrown() != null) {
      throw new AssertionError("escaped the pipeline: " + outcome.thrown(), outcome.thrown());
    }
    assertThat(allocator.unreleased()).as("buffers not released").isEmpty();
    Matcher statuses = STATUS_LINE.matcher(answers[0]);
    int answered = 0;
    while (statuses.find()) {
      assertThat(Integer.parseInt(statuses.group(1))).isIn(STATUSES);
      answered++;
    }
    long size = input.length + (long) ANSWER_BYTES * answered;
    if (outcome.allocatedBytes() > AllocationBound.limitFor(size)) {
      // The fuzzer's hooks allocate too (string searches of the HTTP codec): measure once more
      // without them before judging.
      outcome = FuzzerHooks.measurePaused(() -> exchange(input, allocator));
    }
    FuzzerHooks.assertWithin(outcome, "http pipeline", size);
  }

  /** Feeds {@code input} to a new connection in two reads; what it answered, in ISO-8859-1. */
  static String exchange(byte[] input, TrackingAllocator allocator) {
    EmbeddedChannel channel = new EmbeddedChannel();
    channel.config().setAllocator(allocator);
    HttpServer.addHttpHandlers(channel.pipeline(), CONFIG, ROUTES, ADMISSION, null);
    int split = input.length == 0 ? 0 : (input[0] & 0xff) * input.length / 256;
    write(channel, allocator, input, 0, split);
    write(channel, allocator, input, split, input.length - split);
    List<ByteBuf> written = new ArrayList<>();
    for (Object out; (out = channel.readOutbound()) != null; ) {
      written.add((ByteBuf) out);
    }
    channel.finishAndReleaseAll();
    StringBuilder answers = new StringBuilder();
    for (ByteBuf buffer : written) {
      answers.append(buffer.toString(StandardCharsets.ISO_8859_1));
      buffer.release();
    }
    return answers.toString();
  }

  private static void write(
      EmbeddedChannel channel, TrackingAllocator allocator, byte[] input, int from, int length) {
    if (length > 0 && channel.isOpen()) {
      ByteBuf read = allocator.heapBuffer(length);
      read.writeBytes(input, from, length);
      channel.writeInbound(read);
    }
  }
}
