package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import com.google.protobuf.UnknownFieldSet;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The indexer against malformed input: truncations and bit flips compared with protobuf-java, and
 * the exact error (path, offset, reason) for each kind of problem it checks.
 */
class MalformedInputTest {
  private static final String SPAN0 = "resource_spans[0].scope_spans[0].spans[0]";

  private final OtlpIndexer indexer = new OtlpIndexer();

  // Valid requests of every signal.

  private static Parser<? extends Message> parser(Signal signal) {
    switch (signal) {
      case TRACES:
        return ExportTraceServiceRequest.parser();
      case METRICS:
        return ExportMetricsServiceRequest.parser();
      default:
        return ExportLogsServiceRequest.parser();
    }
  }

  private record Sample(Signal signal, String name, byte[] bytes) {}

  private static List<Sample> samples() {
    List<Sample> samples = new ArrayList<>();
    samples.add(
        new Sample(
            Signal.TRACES,
            "3 resources (the middle one without scopes), 2 spans per scope",
            OtlpTestData.traces(new int[] {2, 0, 1}, 2).toByteArray()));
    samples.add(
        new Sample(Signal.TRACES, "one span", OtlpTestData.traces(new int[] {1}, 1).toByteArray()));
    samples.add(
        new Sample(
            Signal.TRACES, "unknown fields everywhere", tracesWithUnknownFields().toByteArray()));
    samples.add(
        new Sample(
            Signal.METRICS,
            "2 resources, every metric type",
            OtlpTestData.metrics(new int[] {1, 1}).toByteArray()));
    samples.add(
        new Sample(
            Signal.METRICS, "one resource", OtlpTestData.metrics(new int[] {1}).toByteArray()));
    samples.add(
        new Sample(
            Signal.LOGS,
            "2 resources, 3 scopes",
            OtlpTestData.logs(new int[] {2, 1}, 2).toByteArray()));
    samples.add(
        new Sample(Signal.LOGS, "one record", OtlpTestData.logs(new int[] {1}, 1).toByteArray()));
    return samples;
  }

  /** Unknown fields in the request and in every level under it down to attribute values. */
  private static ExportTraceServiceRequest tracesWithUnknownFields() {
    ExportTraceServiceRequest.Builder request =
        OtlpTestData.traces(new int[] {2, 0}, 1).toBuilder();
    request.setUnknownFields(OtlpTestData.unknownFields(0));
    int seed = 1;
    for (ResourceSpans.Builder block : request.getResourceSpansBuilderList()) {
      block.setUnknownFields(OtlpTestData.unknownFields(seed++));
      block.getResourceBuilder().setUnknownFields(OtlpTestData.unknownFields(seed++));
      for (ScopeSpans.Builder scope : block.getScopeSpansBuilderList()) {
        scope.setUnknownFields(OtlpTestData.unknownFields(seed++));
        scope.getScopeBuilder().setUnknownFields(OtlpTestData.unknownFields(seed++));
        for (Span.Builder span : scope.getSpansBuilderList()) {
          span.setUnknownFields(OtlpTestData.unknownFields(seed++));
          span.getAttributesBuilder(0)
              .getValueBuilder()
              .setUnknownFields(OtlpTestData.unknownFields(seed++));
          span.getEventsBuilder(0).setUnknownFields(OtlpTestData.unknownFields(seed++));
        }
      }
    }
    return request.build();
  }

  // Comparison with protobuf-java.

  /** protobuf-java's parse, or null when it rejects the bytes. */
  private static Message protobufParse(Signal signal, byte[] bytes) {
    try {
      return parser(signal).parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      return null;
    }
  }

  /** Our index, or null when the indexer rejects the bytes; anything else thrown fails the test. */
  private OtlpIndex ourIndex(Signal signal, byte[] bytes, String what) {
    try {
      return indexer.index(signal, bytes);
    } catch (MalformedOtlpException e) {
      if (e.offset() < 0 || e.offset() > bytes.length) {
        fail("%s: offset out of the request: %s", what, e.getMessage());
      }
      return null;
    } catch (Throwable t) {
      throw new AssertionError(what + ": the indexer threw " + t, t);
    }
  }

  /**
   * What our marshaler writes for the whole index, parsed by protobuf-java, must equal protobuf's
   * own parse of the input, less the request's unknown fields (which the indexer drops).
   */
  private static void assertMarshalsLikeProtobufParses(
      Signal signal, OtlpIndex index, Message parsed, String what) {
    byte[] marshaled;
    try {
      marshaled = OtlpMarshaler.toByteArray(Batch.of(index));
    } catch (Throwable t) {
      throw new AssertionError(what + ": the marshaler threw " + t, t);
    }
    Message expected =
        parsed.toBuilder().setUnknownFields(UnknownFieldSet.getDefaultInstance()).build();
    Message actual = protobufParse(signal, marshaled);
    if (actual == null) {
      fail("%s: protobuf-java rejects the marshaled bytes", what);
    }
    if (!actual.equals(expected)) {
      fail("%s: marshaled request differs%\nexpected:%\n%s%\nactual:%\n%s", what, expected, actual);
    }
  }

  /**
   * The same after cutting the batch into a few pieces and adding them back in order: adjacent
   * slices of one block come out as that block again. Metrics are cut only between metrics (a
   * metric cut between data points comes out as two metrics, by design).
   */
  private static void assertSplitAndMergedBackMarshalsLikeProtobufParses(
      Signal signal, OtlpIndex index, Message parsed, SplittableRandom random, String what) {
    List<Long> cuts = new ArrayList<>();
    for (int item = 0; item <= index.itemCount(); item++) {
      long unit = index.unitsBefore(item);
      if (unit > 0 && unit < index.unitCount() && !cuts.contains(unit)) {
        cuts.add(unit);
      }
    }
    if (cuts.isEmpty()) {
      return;
    }
    Batch source = Batch.of(index);
    Batch merged = new Batch(signal);
    long moved = 0;
    List<Long> chosen = new ArrayList<>();
    for (int piece = 1 + random.nextInt(3); piece > 0; piece--) {
      long cut = cuts.get(random.nextInt(cuts.size()));
      if (cut <= moved) {
        continue;
      }
      chosen.add(cut);
      Batch part = new Batch(signal);
      assertThat(source.moveTo(part, cut - moved)).isEqualTo(cut - moved);
      moved = cut;
      merged.addAll(part);
    }
    merged.addAll(source);
    assertThat(merged.unitCount()).isEqualTo(index.unitCount());
    Message expected =
        parsed.toBuilder().setUnknownFields(UnknownFieldSet.getDefaultInstance()).build();
    Message actual = protobufParse(signal, OtlpMarshaler.toByteArray(merged));
    if (actual == null || !actual.equals(expected)) {
      fail(
          "%s, cut at %s and merged back: marshaled request differs%nexpected:%n%s%nactual:%n%s",
          what, chosen, expected, actual);
    }
  }

  @Test
  void cuttingABatchAndAddingThePiecesBackChangesNothing() throws Exception {
    SplittableRandom random = new SplittableRandom(5);
    for (Sample sample : samples()) {
      OtlpIndex index = indexer.index(sample.signal(), sample.bytes());
      Message parsed = protobufParse(sample.signal(), sample.bytes());
      for (int i = 0; i < 30; i++) {
        assertSplitAndMergedBackMarshalsLikeProtobufParses(
            sample.signal(), index, parsed, random, sample.name());
      }
    }
  }

  // Truncation.

  @Test
  void everyTruncationIsRejectedExactlyWhenProtobufRejectsIt() throws Exception {
    for (Sample sample : samples()) {
      byte[] bytes = sample.bytes();
      List<Integer> accepted = new ArrayList<>();
      for (int length = 0; length <= bytes.length; length++) {
        byte[] prefix = Arrays.copyOf(bytes, length);
        String what =
            sample.signal() + " " + sample.name() + " cut to " + length + " of " + bytes.length;
        OtlpIndex index = ourIndex(sample.signal(), prefix, what);
        Message parsed = protobufParse(sample.signal(), prefix);
        if ((index != null) != (parsed != null)) {
          fail(
              "%s: indexer accepts: %s, protobuf-java accepts: %s",
              what, index != null, parsed != null);
        }
        if (index != null) {
          accepted.add(length);
          assertMarshalsLikeProtobufParses(sample.signal(), index, parsed, what);
        }
      }
      // What protobuf-java accepts: the cuts between the request's own fields (its resource
      // blocks), the empty prefix included; any cut inside a resource block leaves a length that
      // runs past the end.
      assertThat(accepted).as(sample.name()).isEqualTo(topLevelFieldBoundaries(bytes));
    }
  }

  /** 0 and the end of every field of the request itself. */
  private static List<Integer> topLevelFieldBoundaries(byte[] request) throws IOException {
    List<Integer> boundaries = new ArrayList<>(List.of(0));
    CodedInputStream in = CodedInputStream.newInstance(request);
    while (!in.isAtEnd()) {
      in.skipField(in.readTag());
      boundaries.add(in.getTotalBytesRead());
    }
    return boundaries;
  }

  // Bit flips.

  @Test
  void bitFlipsAreRejectedOrIndexedAsProtobufParsesThem() {
    List<Sample> samples = samples();
    SplittableRandom random = new SplittableRandom(20240611);
    int flips = 3000;
    int accepted = 0;
    int protobufOnly = 0;
    for (int i = 0; i < flips; i++) {
      Sample sample = samples.get(i % samples.size());
      byte[] bytes = sample.bytes().clone();
      int bits = random.nextInt(4) == 0 ? 2 + random.nextInt(3) : 1;
      StringBuilder where = new StringBuilder();
      for (int b = 0; b < bits; b++) {
        int bit = random.nextInt(bytes.length * 8);
        bytes[bit >>> 3] ^= (byte) (1 << (bit & 7));
        where.append(' ').append(bit >>> 3).append('.').append(bit & 7);
      }
      String what = sample.signal() + " " + sample.name() + " with bits flipped at" + where;
      OtlpIndex index = ourIndex(sample.signal(), bytes, what);
      Message parsed = protobufParse(sample.signal(), bytes);
      if (index != null) {
        accepted++;
        if (parsed == null) {
          fail("%s: accepted, but protobuf-java rejects it", what);
        }
        assertMarshalsLikeProtobufParses(sample.signal(), index, parsed, what);
        assertSplitAndMergedBackMarshalsLikeProtobufParses(
            sample.signal(), index, parsed, random, what);
      } else if (parsed != null) {
        protobufOnly++; // stricter than protobuf-java: IDs, wire types, one data field
      }
    }
    // Both outcomes are common, so the comparison above means something.
    assertThat(accepted).isBetween(flips / 10, flips * 9 / 10);
    assertThat(protobufOnly).isPositive();
  }

  // Exact errors: path, offset and reason.

  @Test
  void hugeLengthPrefix() {
    byte[] span =
        concat(
            new byte[] {0x2A, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x0F},
            OtlpTestData.utf8("ab"));
    byte[] request = traceRequestWithSpan(span);
    // Request header: three one-byte tags and three one-byte lengths; the name's length is at 7.
    assertRejected(
        Signal.TRACES,
        request,
        SPAN0 + ".name",
        7,
        "length 4294967295 exceeds the 2 bytes left in the enclosing message");
    assertProtobufRejects(Signal.TRACES, request);

    byte[] outermost = {0x0A, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x0F, 1, 2, 3};
    assertRejected(
        Signal.LOGS,
        outermost,
        "resource_logs[0]",
        1,
        "length 4294967295 exceeds the 3 bytes left in the enclosing message");
    assertProtobufRejects(Signal.LOGS, outermost);
  }

  @Test
  void elevenByteVarint() {
    byte[] kind = new byte[12];
    kind[0] = 0x30; // kind, varint
    Arrays.fill(kind, 1, 11, (byte) 0x80);
    kind[11] = 0x01;
    byte[] request = traceRequestWithSpan(spanAfterMarker("MARK", kind));
    int varintAt = indexOf(request, "MARK") + 4 + 1;
    assertRejected(
        Signal.TRACES, request, SPAN0 + ".kind", varintAt, "varint longer than 10 bytes");
    assertProtobufRejects(Signal.TRACES, request);
  }

  @Test
  void wrongWireTypeOnAKnownField() {
    // spans[1].name sent as a varint.
    byte[] span0 = OtlpTestData.span(0).toByteArray();
    byte[] span1 = spanAfterMarker("MARK", new byte[] {0x28, 0x07});
    byte[] request = requestWithItems(span0, span1);
    assertRejected(
        Signal.TRACES,
        request,
        "resource_spans[0].scope_spans[0].spans[1].name",
        indexOf(request, "MARK") + 4,
        "wire type 0 (varint), expected 2 (length-delimited) for string");
    // protobuf-java keeps it as an unknown field instead.
    assertProtobufAccepts(Signal.TRACES, request);

    // A message sent as a fixed64: the scope of a scope block.
    byte[] scopeBlock = encode(out -> out.writeFixed64(OtlpFields.ScopeBlock.SCOPE, 5));
    byte[] request2 = requestWithScopeBlock(scopeBlock);
    assertRejected(
        Signal.TRACES,
        request2,
        "resource_spans[0].scope_spans[0].scope",
        4,
        "wire type 1 (fixed64), expected 2 (length-delimited) for message");
  }

  @Test
  void invalidUtf8DeepInsideAnAttributeValue() {
    ExportTraceServiceRequest.Builder builder = OtlpTestData.traces(new int[] {1}, 2).toBuilder();
    Span.Builder span =
        builder.getResourceSpansBuilder(0).getScopeSpansBuilder(0).getSpansBuilder(1);
    span.setAttributes(2, OtlpTestData.attribute("bad", OtlpTestData.string("xx@BAD@yy")));
    byte[] valid = builder.build().toByteArray();
    int bad = indexOf(valid, "@BAD@") + 1;
    byte[] request = patch(valid, bad, 0xFF);
    assertRejected(
        Signal.TRACES,
        request,
        "resource_spans[0].scope_spans[0].spans[1].attributes[2].value.string_value",
        bad,
        "invalid UTF-8");
    assertProtobufRejects(Signal.TRACES, request);
  }

  /** A span as SDKs write it: ids, name, kind, times, string attributes around integer ones. */
  private static Span.Builder sdkShapedSpan(String name, String third) {
    return Span.newBuilder()
        .setTraceId(ByteString.copyFrom(new byte[16]))
        .setSpanId(ByteString.copyFrom(new byte[8]))
        .setName(name)
        .setKind(Span.SpanKind.SPAN_KIND_SERVER)
        .setStartTimeUnixNano(1_700_000_000_000_000_000L)
        .setEndTimeUnixNano(1_700_000_000_001_000_000L)
        .addAttributes(OtlpTestData.attribute("http.request.method", OtlpTestData.string("GET")))
        .addAttributes(
            OtlpTestData.attribute("server.port", AnyValue.newBuilder().setIntValue(8443).build()))
        .addAttributes(OtlpTestData.attribute("url.path", OtlpTestData.string("/api/v1/users")))
        .addAttributes(OtlpTestData.attribute("user_agent.original", OtlpTestData.string(third)))
        .addAttributes(OtlpTestData.attribute("http.route", OtlpTestData.string("/api/v1/users")))
        .setFlags(0x301);
  }

  private static byte[] tracesRequest(Span span) {
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder()
                .addScopeSpans(
                    ScopeSpans.newBuilder()
                        .addSpans(Span.newBuilder().setName("a"))
                        .addSpans(span)))
        .build()
        .toByteArray();
  }

  @Test
  void multiByteUtf8AnywhereInASpansTextFieldsIsAccepted() throws Exception {
    // The name, kind and string attributes are checked for ASCII together, as runs of adjacent
    // fields; a run with any other byte is checked string by string.
    for (String text :
        new String[] {"ascii only", "h\u00e9llo", "\u65e5\u672c", "\ud83d\ude00 x"}) {
      byte[] request = tracesRequest(sdkShapedSpan("GET " + text, text).build());
      assertThat(indexer.index(Signal.TRACES, request).itemCount()).as(text).isEqualTo(2);
    }
  }

  @Test
  void aSpansStatusIsCheckedWhateverItsShape() throws Exception {
    // None, empty and a code alone are checked inline; a message sends it to the general loop.
    for (Status status :
        List.of(
            Status.getDefaultInstance(),
            Status.newBuilder().setCode(Status.StatusCode.STATUS_CODE_ERROR).build(),
            Status.newBuilder().setCode(Status.StatusCode.STATUS_CODE_OK).build(),
            Status.newBuilder()
                .setCode(Status.StatusCode.STATUS_CODE_ERROR)
                .setMessage("h\u00e9llo")
                .build())) {
      byte[] request =
          tracesRequest(sdkShapedSpan("GET /", "curl/8.5.0").setStatus(status).build());
      assertMarshalsLikeProtobufParses(
          Signal.TRACES,
          indexer.index(Signal.TRACES, request),
          ExportTraceServiceRequest.parseFrom(request),
          status.toString());
    }

    byte[] valid =
        tracesRequest(
            sdkShapedSpan("GET /", "curl/8.5.0")
                .setStatus(Status.newBuilder().setCode(Status.StatusCode.STATUS_CODE_ERROR))
                .build());
    int status = indexOf(valid, new byte[] {0x7A, 0x02, 0x18, 0x02});
    assertRejected(
        Signal.TRACES,
        patch(valid, status + 2, 0x10),
        "resource_spans[0].scope_spans[0].spans[1].status.message",
        status + 2,
        "wire type 0 (varint), expected 2 (length-delimited) for string");
    assertRejected(
        Signal.TRACES,
        patch(valid, status + 3, 0x82),
        "resource_spans[0].scope_spans[0].spans[1].status.code",
        status + 3,
        "truncated varint");
  }

  @Test
  void invalidUtf8InATextRunIsFoundAtItsField() {
    byte[] valid = tracesRequest(sdkShapedSpan("GET /users", "curl/8.5.0 @BAD@").build());
    int bad = indexOf(valid, "@BAD@") + 1;
    assertRejected(
        Signal.TRACES,
        patch(valid, bad, 0xFF),
        "resource_spans[0].scope_spans[0].spans[1].attributes[3].value.string_value",
        bad,
        "invalid UTF-8");

    byte[] validName = tracesRequest(sdkShapedSpan("GET @BAD@", "curl/8.5.0").build());
    int badName = indexOf(validName, "@BAD@");
    assertRejected(
        Signal.TRACES,
        patch(validName, badName, 0xC3, 0x28),
        "resource_spans[0].scope_spans[0].spans[1].name",
        badName,
        "invalid UTF-8");
  }

  @Test
  void invalidUtf8AtTheEndOfALongPath() {
    ExportTraceServiceRequest.Builder builder =
        OtlpTestData.traces(new int[] {1, 2}, 1).toBuilder();
    Span.Event.Builder event =
        builder
            .getResourceSpansBuilder(1)
            .getScopeSpansBuilder(1)
            .getSpansBuilder(0)
            .getEventsBuilder(1);
    event.addAttributes(
        OtlpTestData.attribute(
            "k",
            OtlpTestData.kvlist(
                OtlpTestData.attribute("a", OtlpTestData.string("1")),
                OtlpTestData.attribute(
                    "b",
                    OtlpTestData.array(
                        OtlpTestData.string("x"),
                        OtlpTestData.string("y"),
                        OtlpTestData.string("z@BAD@z"))))));
    byte[] valid = builder.build().toByteArray();
    int bad = indexOf(valid, "@BAD@") + 1;
    byte[] request = patch(valid, bad, 0x80); // a continuation byte without a lead
    assertRejected(
        Signal.TRACES,
        request,
        "resource_spans[1].scope_spans[1].spans[0].events[1].attributes[0].value.kvlist_value"
            + ".values[1].value.array_value.values[2].string_value",
        bad,
        "invalid UTF-8");
  }

  @Test
  void invalidUtf8InMetricsAndLogs() {
    ExportMetricsServiceRequest.Builder metrics = OtlpTestData.metrics(new int[] {1}).toBuilder();
    metrics
        .getResourceMetricsBuilder(0)
        .getScopeMetricsBuilder(0)
        .getMetricsBuilder(1)
        .getSumBuilder()
        .getDataPointsBuilder(2)
        .getAttributesBuilder(0)
        .setKey("k@BAD@");
    byte[] valid = metrics.build().toByteArray();
    int bad = indexOf(valid, "@BAD@");
    byte[] request = patch(valid, bad, 0xC3, 0x28); // a lead byte, then no continuation
    assertRejected(
        Signal.METRICS,
        request,
        "resource_metrics[0].scope_metrics[0].metrics[1].sum.data_points[2].attributes[0].key",
        bad,
        "invalid UTF-8");

    ExportLogsServiceRequest.Builder logs = OtlpTestData.logs(new int[] {1}, 2).toBuilder();
    logs.getResourceLogsBuilder(0)
        .getScopeLogsBuilder(0)
        .getLogRecordsBuilder(1)
        .setBody(OtlpTestData.string("body @BAD@"));
    byte[] validLogs = logs.build().toByteArray();
    int badLog = indexOf(validLogs, "@BAD@") + 2;
    byte[] logRequest = patch(validLogs, badLog, 0xF8);
    assertRejected(
        Signal.LOGS,
        logRequest,
        "resource_logs[0].scope_logs[0].log_records[1].body.string_value",
        badLog,
        "invalid UTF-8");
  }

  @Test
  void overlongUtf8AndEncodedSurrogates() {
    ExportTraceServiceRequest.Builder builder = OtlpTestData.traces(new int[] {1}, 1).toBuilder();
    builder.getResourceSpansBuilder(0).getScopeSpansBuilder(0).getSpansBuilder(0).setName("a@@b");
    byte[] valid = builder.build().toByteArray();
    int at = indexOf(valid, "@@");
    byte[] overlong = patch(valid, at, 0xC0, 0xAF); // '/' in two bytes
    assertRejected(Signal.TRACES, overlong, SPAN0 + ".name", at, "invalid UTF-8");
    assertProtobufRejects(Signal.TRACES, overlong);

    builder.getResourceSpansBuilder(0).getScopeSpansBuilder(0).getScopeBuilder().setName("s@@@s");
    byte[] valid2 = builder.build().toByteArray();
    int at2 = indexOf(valid2, "@@@");
    byte[] surrogate = patch(valid2, at2, 0xED, 0xA0, 0x80); // U+D800
    assertRejected(
        Signal.TRACES,
        surrogate,
        "resource_spans[0].scope_spans[0].scope.name",
        at2,
        "invalid UTF-8");
    assertProtobufRejects(Signal.TRACES, surrogate);

    byte[] overlong3 = patch(valid2, at2, 0xE0, 0x80, 0xAF); // '/' in three bytes
    assertRejected(
        Signal.TRACES,
        overlong3,
        "resource_spans[0].scope_spans[0].scope.name",
        at2,
        "invalid UTF-8");
    assertProtobufRejects(Signal.TRACES, overlong3);
  }

  /** Writes from the end of an array toward its start: messages from the inside out. */
  private static final class ReverseWriter {
    private byte[] buffer = new byte[1 << 16];
    private int start = buffer.length;

    void prepend(byte[] bytes) {
      while (start < bytes.length) {
        byte[] grown = new byte[buffer.length * 2];
        System.arraycopy(buffer, start, grown, grown.length - size(), size());
        start += grown.length - buffer.length;
        buffer = grown;
      }
      start -= bytes.length;
      System.arraycopy(bytes, 0, buffer, start, bytes.length);
    }

    int size() {
      return buffer.length - start;
    }

    /** Makes everything written so far the payload of a length-delimited field. */
    void wrap(int fieldNumber) {
      int length = size();
      prepend(encode(out -> out.writeUInt32NoTag(length)));
      prepend(encode(out -> out.writeTag(fieldNumber, 2)));
    }

    byte[] toByteArray() {
      return Arrays.copyOfRange(buffer, start, buffer.length);
    }
  }

  /**
   * A traces request whose deepest message is at {@code depth} (ResourceSpans is 1): span attribute
   * values nested through array values, AnyValue at odd depths, ArrayValue at even.
   */
  private static byte[] nestedAnyValues(int depth) {
    ReverseWriter out = new ReverseWriter();
    if (depth % 2 == 1) {
      out.prepend(encode(o -> o.writeString(OtlpFields.AnyValue.STRING_VALUE, "x")));
    }
    for (int d = depth; d >= 5; d--) {
      // ArrayValue in AnyValue.array_value; AnyValue in ArrayValue.values, or KeyValue.value.
      out.wrap(
          d % 2 == 0
              ? OtlpFields.AnyValue.ARRAY_VALUE
              : d == 5 ? OtlpFields.KeyValue.VALUE : OtlpFields.ArrayValue.VALUES);
    }
    out.wrap(OtlpFields.Span.ATTRIBUTES);
    out.wrap(OtlpFields.ScopeSpans.SPANS);
    out.wrap(OtlpFields.ResourceSpans.SCOPE_SPANS);
    out.wrap(OtlpFields.TracesRequest.RESOURCE_SPANS);
    return out.toByteArray();
  }

  /** The offset of the tag of the field that holds the message at {@code depth} + 1. */
  private static int tagOffsetAtDepth(byte[] request, int depth) throws IOException {
    CodedInputStream in = CodedInputStream.newInstance(request);
    for (int d = 0; d < depth; d++) {
      in.readTag();
      in.readRawVarint32(); // the length: step into the field, whose first field leads on
    }
    return in.getTotalBytesRead();
  }

  @Test
  void tenThousandNestedAnyValuesFailCleanly() throws Exception {
    int anyValues = 10_000;
    byte[] request = nestedAnyValues(3 + 2 * anyValues);
    StringBuilder path =
        new StringBuilder("resource_spans[0].scope_spans[0].spans[0].attributes[0].value");
    // Depths 5 to 100: array_value, values[0], ... ; entering depth 101 fails.
    for (int d = 5; d <= 100; d += 2) {
      path.append(".array_value.values[0]");
    }
    assertRejected(
        Signal.TRACES,
        request,
        path.toString(),
        tagOffsetAtDepth(request, 100),
        "messages nested deeper than the limit of 100");
    assertProtobufRejects(Signal.TRACES, request);
  }

  @Test
  void nestingLimitIsProtobufsRecursionLimit() throws Exception {
    for (int depth = 96; depth <= 104; depth++) {
      byte[] request = nestedAnyValues(depth);
      boolean ours = ourIndex(Signal.TRACES, request, "depth " + depth) != null;
      assertThat(ours).as("accepted at depth %d", depth).isEqualTo(depth <= 100);
      assertThat(protobufParse(Signal.TRACES, request) != null)
          .as("protobuf-java accepts depth %d", depth)
          .isEqualTo(ours);
    }
    // A smaller limit.
    OtlpIndexer shallow = new OtlpIndexer(new IndexLimits(1 << 20, 8));
    assertThat(shallow.index(Signal.TRACES, nestedAnyValues(8)).itemCount()).isEqualTo(1);
    assertRejected(
        shallow,
        Signal.TRACES,
        nestedAnyValues(9),
        "resource_spans[0].scope_spans[0].spans[0].attributes[0].value.array_value.values[0]"
            + ".array_value.values[0]",
        tagOffsetAtDepth(nestedAnyValues(9), 8),
        "messages nested deeper than the limit of 8");
  }

  @Test
  void tenThousandNestedGroupsFailCleanly() {
    // Unknown field 100 as a group, nested 10,000 deep inside a span (depth 3).
    int groups = 10_000;
    ByteArrayOutputStream nested = new ByteArrayOutputStream();
    for (int i = 0; i < groups; i++) {
      nested.writeBytes(new byte[] {(byte) 0xA3, 0x06}); // field 100, start-group
    }
    for (int i = 0; i < groups; i++) {
      nested.writeBytes(new byte[] {(byte) 0xA4, 0x06}); // field 100, end-group
    }
    byte[] request = traceRequestWithSpan(spanAfterMarker("MARK", nested.toByteArray()));
    int first = indexOf(request, "MARK") + 4;
    // Groups count as nesting levels, as in protobuf-java: the span is at depth 3, so 97 groups
    // fit; the 98th fails, just after its start-group tag.
    assertRejected(
        Signal.TRACES, request, SPAN0 + ".field#100", first + 2 * 98, "groups nested too deeply");
    assertProtobufRejects(Signal.TRACES, request);
  }

  @Test
  void fieldNumberZero() {
    byte[] request = traceRequestWithSpan(spanAfterMarker("MARK", new byte[] {0x02, 0x00}));
    assertRejected(
        Signal.TRACES,
        request,
        SPAN0,
        indexOf(request, "MARK") + 4,
        "field number 0 is not allowed");
    assertProtobufRejects(Signal.TRACES, request);
  }

  @Test
  void wireTypesSixAndSeven() {
    for (int wireType : new int[] {6, 7}) {
      byte[] request =
          traceRequestWithSpan(
              spanAfterMarker(
                  "MARK", new byte[] {(byte) (OtlpFields.Span.ATTRIBUTES << 3 | wireType), 0}));
      assertRejected(
          Signal.TRACES,
          request,
          SPAN0,
          indexOf(request, "MARK") + 4,
          "invalid wire type " + wireType + " for field " + OtlpFields.Span.ATTRIBUTES);
      assertProtobufRejects(Signal.TRACES, request);
    }
    // In the request itself: an unknown field number with wire type 7.
    byte[] request = {(byte) 0xFF, 0x01};
    assertRejected(Signal.METRICS, request, "", 0, "invalid wire type 7 for field 31");
    assertProtobufRejects(Signal.METRICS, request);
  }

  @Test
  void unknownWellFormedGroupIsAcceptedAndKept() throws Exception {
    // field 100 group { 1: 150, 2: "x", 3: group { 1: fixed32 } } at the end of a span
    byte[] group =
        encode(
            out -> {
              out.writeTag(100, 3);
              out.writeUInt64(1, 150);
              out.writeString(2, "x");
              out.writeTag(3, 3);
              out.writeFixed32(1, 77);
              out.writeTag(3, 4);
              out.writeTag(100, 4);
            });
    byte[] span = concat(OtlpTestData.span(3).toByteArray(), group);
    byte[] other = OtlpTestData.span(4).toByteArray();
    byte[] request = requestWithItems(other, span, other);
    OtlpIndex index = indexer.index(Signal.TRACES, request);
    assertThat(index.itemCount()).isEqualTo(3);
    byte[] marshaled = OtlpMarshaler.toByteArray(Batch.of(index));
    assertThat(indexOf(marshaled, group)).isPositive();
    assertThat(marshaled).isEqualTo(request);
    ExportTraceServiceRequest parsed = ExportTraceServiceRequest.parseFrom(marshaled);
    UnknownFieldSet unknown =
        parsed.getResourceSpans(0).getScopeSpans(0).getSpans(1).getUnknownFields();
    assertThat(unknown.getField(100).getGroupList()).hasSize(1);
    UnknownFieldSet content = unknown.getField(100).getGroupList().get(0);
    assertThat(content.getField(1).getVarintList()).containsExactly(150L);
    assertThat(content.getField(3).getGroupList().get(0).getField(1).getFixed32List())
        .containsExactly(77);
    assertThat(parsed).isEqualTo(ExportTraceServiceRequest.parseFrom(request));
  }

  @Test
  void endGroupWithoutAStart() {
    byte[] request =
        traceRequestWithSpan(spanAfterMarker("MARK", new byte[] {(byte) 0xA4, 0x06, 0x08, 0x01}));
    assertRejected(
        Signal.TRACES,
        request,
        SPAN0 + ".field#100",
        indexOf(request, "MARK") + 4,
        "unexpected end-group for field 100");
    assertProtobufRejects(Signal.TRACES, request);

    byte[] first = {(byte) 0xA4, 0x06};
    assertRejected(Signal.LOGS, first, "field#100", 0, "unexpected end-group for field 100");
    assertProtobufRejects(Signal.LOGS, first);
  }

  @Test
  void mismatchedEndGroup() {
    // group 100 { 1: 1 } closed by an end-group of field 101
    byte[] request =
        traceRequestWithSpan(
            spanAfterMarker("MARK", new byte[] {(byte) 0xA3, 0x06, 0x08, 0x01, (byte) 0xAC, 0x06}));
    assertRejected(
        Signal.TRACES,
        request,
        SPAN0 + ".field#100",
        indexOf(request, "MARK") + 4 + 4,
        "end-group for field 101 closes a group of field 100");
    assertProtobufRejects(Signal.TRACES, request);
  }

  @Test
  void traceIdOfFiveBytes() {
    Span span =
        OtlpTestData.span(0).toBuilder().setTraceId(ByteString.copyFromUtf8("TRID5")).build();
    byte[] request = traceRequestWithSpan(span.toByteArray());
    assertRejected(
        Signal.TRACES,
        request,
        SPAN0 + ".trace_id",
        indexOf(request, "TRID5") - 1,
        "length 5, expected 16 bytes or empty");
    // protobuf-java does not check ID lengths.
    assertProtobufAccepts(Signal.TRACES, request);

    Span.Builder link = OtlpTestData.span(0).toBuilder();
    link.getLinksBuilder(0).setSpanId(ByteString.copyFromUtf8("SPANID9!!"));
    byte[] request2 = traceRequestWithSpan(link.build().toByteArray());
    assertRejected(
        Signal.TRACES,
        request2,
        SPAN0 + ".links[0].span_id",
        indexOf(request2, "SPANID9!!") - 1,
        "length 9, expected 8 bytes or empty");

    // Empty IDs are allowed.
    Span empty =
        OtlpTestData.span(0).toBuilder()
            .setTraceId(ByteString.EMPTY)
            .setSpanId(ByteString.EMPTY)
            .build();
    assertThat(ourIndex(Signal.TRACES, traceRequestWithSpan(empty.toByteArray()), "empty IDs"))
        .isNotNull();
  }

  @Test
  void packedFixed64WhoseLengthIsNotAMultipleOfEight() {
    HistogramDataPoint point =
        HistogramDataPoint.newBuilder()
            .addAttributes(OtlpTestData.attribute("MARKP", AnyValue.getDefaultInstance()))
            .setCount(3)
            .build();
    byte[] packed = new byte[2 + 12];
    packed[0] = (byte) WireType.tag(OtlpFields.HistogramDataPoint.BUCKET_COUNTS, WireType.LEN);
    packed[1] = 12;
    byte[] metric =
        concat(
            encode(out -> out.writeString(OtlpFields.Metric.NAME, "h")),
            field(
                OtlpFields.Metric.HISTOGRAM,
                field(OtlpFields.Histogram.DATA_POINTS, concat(point.toByteArray(), packed))));
    byte[] request = metricRequestWithMetric(metric);
    // protobuf-java wrote count (4) before the attribute (9); the packed field follows.
    int lengthAt = indexOf(request, new byte[] {'P', 0x12, 0x00, 0x32, 12}) + 4;
    assertThat(request[lengthAt]).isEqualTo((byte) 12);
    assertRejected(
        Signal.METRICS,
        request,
        "resource_metrics[0].scope_metrics[0].metrics[0].histogram.data_points[0].bucket_counts[0]",
        lengthAt,
        "packed length 12 is not a multiple of 8 bytes");
    assertProtobufRejects(Signal.METRICS, request);
  }

  @Test
  void packedFieldsAreAlsoAcceptedUnpacked() throws Exception {
    // bucket_counts and explicit_bounds one value per field, buckets' uint64 counts likewise.
    byte[] histogramPoint =
        encode(
            out -> {
              out.writeFixed64(OtlpFields.HistogramDataPoint.COUNT, 6);
              out.writeFixed64(OtlpFields.HistogramDataPoint.BUCKET_COUNTS, 1);
              out.writeFixed64(OtlpFields.HistogramDataPoint.BUCKET_COUNTS, 5);
              out.writeDouble(OtlpFields.HistogramDataPoint.EXPLICIT_BOUNDS, 0.5);
              // packed and unpacked may even mix
              out.writeFixed64(OtlpFields.HistogramDataPoint.BUCKET_COUNTS, 9);
            });
    byte[] buckets =
        encode(
            out -> {
              out.writeSInt32(OtlpFields.Buckets.OFFSET, -4);
              out.writeUInt64(OtlpFields.Buckets.BUCKET_COUNTS, 3);
              out.writeUInt64(OtlpFields.Buckets.BUCKET_COUNTS, 1L << 40);
            });
    byte[] expPoint =
        concat(
            encode(out -> out.writeFixed64(OtlpFields.ExponentialHistogramDataPoint.COUNT, 4)),
            field(OtlpFields.ExponentialHistogramDataPoint.POSITIVE, buckets));
    byte[] request =
        requestWithItems(
            concat(
                encode(out -> out.writeString(OtlpFields.Metric.NAME, "h")),
                field(
                    OtlpFields.Metric.HISTOGRAM,
                    field(OtlpFields.Histogram.DATA_POINTS, histogramPoint))),
            concat(
                encode(out -> out.writeString(OtlpFields.Metric.NAME, "e")),
                field(
                    OtlpFields.Metric.EXPONENTIAL_HISTOGRAM,
                    field(OtlpFields.ExponentialHistogram.DATA_POINTS, expPoint))));
    OtlpIndex index = indexer.index(Signal.METRICS, request);
    assertThat(index.unitCount()).isEqualTo(2);
    ExportMetricsServiceRequest parsed = ExportMetricsServiceRequest.parseFrom(request);
    assertThat(
            parsed
                .getResourceMetrics(0)
                .getScopeMetrics(0)
                .getMetrics(0)
                .getHistogram()
                .getDataPoints(0)
                .getBucketCountsList())
        .containsExactly(1L, 5L, 9L);
    assertThat(ExportMetricsServiceRequest.parseFrom(OtlpMarshaler.toByteArray(Batch.of(index))))
        .isEqualTo(parsed);
  }

  @Test
  void requestOverTheConfiguredSizeLimit() throws Exception {
    byte[] request = OtlpTestData.logs(new int[] {1}, 1).toByteArray();
    OtlpIndexer exact = new OtlpIndexer(new IndexLimits(request.length, 100));
    assertThat(exact.index(Signal.LOGS, request).itemCount()).isEqualTo(1);
    OtlpIndexer small = new OtlpIndexer(new IndexLimits(request.length - 1, 100));
    assertRejected(
        small,
        Signal.LOGS,
        request,
        "",
        0,
        "request of "
            + request.length
            + " bytes exceeds the limit of "
            + (request.length - 1)
            + " bytes");
  }

  @Test
  void metricWithBothGaugeAndSum() {
    byte[] gauge =
        Gauge.newBuilder().addDataPoints(OtlpTestData.numberPoint(1, false)).build().toByteArray();
    byte[] sum =
        Sum.newBuilder().addDataPoints(OtlpTestData.numberPoint(2, true)).build().toByteArray();
    byte[] metric =
        concat(
            encode(out -> out.writeString(OtlpFields.Metric.NAME, "MARKM")),
            field(OtlpFields.Metric.GAUGE, gauge),
            field(OtlpFields.Metric.SUM, sum));
    byte[] second = Metric.newBuilder().setName("ok").build().toByteArray();
    byte[] request = requestWithItems(second, metric);
    int sumAt = indexOf(request, "MARKM") + 5 + field(OtlpFields.Metric.GAUGE, gauge).length;
    assertRejected(
        Signal.METRICS,
        request,
        "resource_metrics[0].scope_metrics[0].metrics[1].sum",
        sumAt,
        "a metric holds one data message, found sum after gauge");
    // protobuf-java keeps the last member of the oneof.
    assertProtobufAccepts(Signal.METRICS, request);
  }

  @Test
  void aRequestInsideALargerArrayReportsOffsetsFromItsOwnStart() throws Exception {
    ExportTraceServiceRequest.Builder builder = OtlpTestData.traces(new int[] {2}, 2).toBuilder();
    builder.getResourceSpansBuilder(0).getScopeSpansBuilder(1).getSpansBuilder(1).setName("x@BAD@");
    byte[] valid = builder.build().toByteArray();
    int bad = indexOf(valid, "@BAD@");
    byte[] request = patch(valid, bad, 0xFF);
    String path = "resource_spans[0].scope_spans[1].spans[1].name";
    assertRejected(Signal.TRACES, request, path, bad, "invalid UTF-8");
    for (int offset : new int[] {1, 7, 100}) {
      // Surrounded by bytes that are valid protobuf of their own.
      byte[] around = new byte[offset + request.length + 9];
      Arrays.fill(around, (byte) 0x08);
      System.arraycopy(request, 0, around, offset, request.length);
      assertThatThrownBy(() -> indexer.index(Signal.TRACES, around, offset, request.length))
          .isInstanceOfSatisfying(
              MalformedOtlpException.class,
              e -> {
                assertThat(e.fieldPath()).isEqualTo(path);
                assertThat(e.offset()).isEqualTo(bad);
              });
      System.arraycopy(valid, 0, around, offset, valid.length);
      OtlpIndex index = indexer.index(Signal.TRACES, around, offset, valid.length);
      assertThat(index.sourceLength()).isEqualTo(valid.length);
      assertThat(OtlpMarshaler.toByteArray(Batch.of(index))).isEqualTo(valid);
      Batch half = new Batch(Signal.TRACES);
      Batch.of(index).moveTo(half, 3);
      assertThat(ExportTraceServiceRequest.parseFrom(OtlpMarshaler.toByteArray(half)).toString())
          .contains("operation-2")
          .doesNotContain("operation-3");
    }
  }

  // Unknown fields.

  @Test
  void unknownFieldsInSpansResourcesAndScopesAreKept() throws Exception {
    ExportTraceServiceRequest original =
        tracesWithUnknownFields().toBuilder()
            .setUnknownFields(UnknownFieldSet.getDefaultInstance())
            .build();
    byte[] bytes = original.toByteArray();
    OtlpIndex index = indexer.index(Signal.TRACES, bytes);
    byte[] marshaled = OtlpMarshaler.toByteArray(Batch.of(index));
    ExportTraceServiceRequest parsed = ExportTraceServiceRequest.parseFrom(marshaled);
    assertThat(parsed.getResourceSpansCount()).isEqualTo(original.getResourceSpansCount());
    for (int r = 0; r < original.getResourceSpansCount(); r++) {
      ResourceSpans expectedBlock = original.getResourceSpans(r);
      ResourceSpans actualBlock = parsed.getResourceSpans(r);
      assertThat(actualBlock.getUnknownFields()).isEqualTo(expectedBlock.getUnknownFields());
      assertThat(actualBlock.getResource().getUnknownFields())
          .isNotEqualTo(UnknownFieldSet.getDefaultInstance())
          .isEqualTo(expectedBlock.getResource().getUnknownFields());
      for (int s = 0; s < expectedBlock.getScopeSpansCount(); s++) {
        ScopeSpans expectedScope = expectedBlock.getScopeSpans(s);
        ScopeSpans actualScope = actualBlock.getScopeSpans(s);
        assertThat(actualScope.getUnknownFields()).isEqualTo(expectedScope.getUnknownFields());
        assertThat(actualScope.getScope().getUnknownFields())
            .isNotEqualTo(UnknownFieldSet.getDefaultInstance())
            .isEqualTo(expectedScope.getScope().getUnknownFields());
        for (int i = 0; i < expectedScope.getSpansCount(); i++) {
          assertThat(actualScope.getSpans(i).getUnknownFields())
              .isNotEqualTo(UnknownFieldSet.getDefaultInstance())
              .isEqualTo(expectedScope.getSpans(i).getUnknownFields());
        }
      }
    }
    assertThat(parsed).isEqualTo(original);
    // Unknown fields are not reordered within a block: protobuf-java wrote them last.
    assertThat(marshaled).isEqualTo(bytes);
  }

  @Test
  void unknownFieldsInMetricsAndLogRecordsAreKept() throws Exception {
    ExportMetricsServiceRequest.Builder metrics = OtlpTestData.metrics(new int[] {1}).toBuilder();
    ScopeMetrics.Builder scope = metrics.getResourceMetricsBuilder(0).getScopeMetricsBuilder(0);
    scope.getMetricsBuilder(0).setUnknownFields(OtlpTestData.unknownFields(1));
    scope.getMetricsBuilder(1).getSumBuilder().setUnknownFields(OtlpTestData.unknownFields(2));
    scope
        .getMetricsBuilder(1)
        .getSumBuilder()
        .getDataPointsBuilder(0)
        .setUnknownFields(OtlpTestData.unknownFields(3));
    ExportMetricsServiceRequest metricsRequest = metrics.build();
    OtlpIndex metricsIndex = indexer.index(Signal.METRICS, metricsRequest.toByteArray());
    assertThat(
            ExportMetricsServiceRequest.parseFrom(
                OtlpMarshaler.toByteArray(Batch.of(metricsIndex))))
        .isEqualTo(metricsRequest);

    ExportLogsServiceRequest.Builder logs = OtlpTestData.logs(new int[] {1}, 2).toBuilder();
    logs.getResourceLogsBuilder(0)
        .getScopeLogsBuilder(0)
        .getLogRecordsBuilder(1)
        .setUnknownFields(OtlpTestData.unknownFields(4));
    ExportLogsServiceRequest logsRequest = logs.build();
    OtlpIndex logsIndex = indexer.index(Signal.LOGS, logsRequest.toByteArray());
    assertThat(ExportLogsServiceRequest.parseFrom(OtlpMarshaler.toByteArray(Batch.of(logsIndex))))
        .isEqualTo(logsRequest);
  }

  @Test
  void unknownFieldsOfTheRequestItselfAreDropped() throws Exception {
    ExportTraceServiceRequest withUnknown =
        OtlpTestData.traces(new int[] {1}, 1).toBuilder()
            .setUnknownFields(OtlpTestData.unknownFields(0))
            .build();
    OtlpIndex index = indexer.index(Signal.TRACES, withUnknown.toByteArray());
    ExportTraceServiceRequest parsed =
        ExportTraceServiceRequest.parseFrom(OtlpMarshaler.toByteArray(Batch.of(index)));
    assertThat(parsed.getUnknownFields()).isEqualTo(UnknownFieldSet.getDefaultInstance());
    assertThat(parsed)
        .isEqualTo(
            withUnknown.toBuilder().setUnknownFields(UnknownFieldSet.getDefaultInstance()).build());
  }

  // Hand-written bytes.

  private interface Encoding {
    void writeTo(CodedOutputStream out) throws IOException;
  }

  private static byte[] encode(Encoding encoding) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      CodedOutputStream out = CodedOutputStream.newInstance(bytes);
      encoding.writeTo(out);
      out.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    return out.toByteArray();
  }

  /** A length-delimited field holding {@code payload}. */
  private static byte[] field(int number, byte[] payload) {
    return encode(out -> out.writeByteArray(number, payload));
  }

  /** A request with one resource block whose one scope block's bytes are {@code scopeBlock}. */
  private static byte[] requestWithScopeBlock(byte[] scopeBlock) {
    return field(
        OtlpFields.Request.RESOURCE_BLOCKS,
        field(OtlpFields.ResourceBlock.SCOPE_BLOCKS, scopeBlock));
  }

  /** A request with one resource block and one scope block holding the given items, in order. */
  private static byte[] requestWithItems(byte[]... items) {
    byte[][] fields = new byte[items.length][];
    for (int i = 0; i < items.length; i++) {
      fields[i] = field(OtlpFields.ScopeBlock.ITEMS, items[i]);
    }
    return requestWithScopeBlock(concat(fields));
  }

  /** A traces request with one resource block, one scope block and the given span bytes. */
  private static byte[] traceRequestWithSpan(byte[] span) {
    return requestWithItems(span);
  }

  /** A metrics request with one resource block, one scope block and the given metric bytes. */
  private static byte[] metricRequestWithMetric(byte[] metric) {
    return requestWithItems(metric);
  }

  /** A span that starts with a trace_state of {@code marker}, then the given bytes. */
  private static byte[] spanAfterMarker(String marker, byte[] rest) {
    return concat(encode(out -> out.writeString(OtlpFields.Span.TRACE_STATE, marker)), rest);
  }

  /** Where {@code needle} occurs in {@code haystack}; it must occur exactly once. */
  private static int indexOf(byte[] haystack, byte[] needle) {
    int found = -1;
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      if (Arrays.equals(haystack, i, i + needle.length, needle, 0, needle.length)) {
        assertThat(found).as("needle occurs once").isEqualTo(-1);
        found = i;
      }
    }
    assertThat(found).as("needle found").isNotNegative();
    return found;
  }

  private static int indexOf(byte[] haystack, String needle) {
    return indexOf(haystack, OtlpTestData.utf8(needle));
  }

  /** Overwrites the bytes at {@code offset}; lengths stay as they were. */
  private static byte[] patch(byte[] bytes, int offset, int... replacement) {
    byte[] patched = bytes.clone();
    for (int i = 0; i < replacement.length; i++) {
      patched[offset + i] = (byte) replacement[i];
    }
    return patched;
  }

  private void assertRejected(
      Signal signal, byte[] request, String path, long offset, String reason) {
    assertRejected(indexer, signal, request, path, offset, reason);
  }

  private static void assertRejected(
      OtlpIndexer indexer, Signal signal, byte[] request, String path, long offset, String reason) {
    assertThatThrownBy(() -> indexer.index(signal, request))
        .isInstanceOfSatisfying(
            MalformedOtlpException.class,
            e -> {
              assertThat(e.fieldPath()).as("path").isEqualTo(path);
              assertThat(e.reason()).as("reason").isEqualTo(reason);
              assertThat(e.offset()).as("offset").isEqualTo(offset);
              assertThat(e.getMessage())
                  .isEqualTo(
                      (path.isEmpty() ? "request" : path) + ": " + reason + " at offset " + offset);
            });
  }

  private static void assertProtobufRejects(Signal signal, byte[] request) {
    assertThat(protobufParse(signal, request)).as("protobuf-java's parse").isNull();
  }

  private static void assertProtobufAccepts(Signal signal, byte[] request) {
    assertThat(protobufParse(signal, request)).as("protobuf-java's parse").isNotNull();
  }

  // Negative lengths: a ten-byte length varint is negative as a signed long.

  @Test
  void negativeStringLengthIsRejectedNotFollowedOutOfTheArray() {
    byte[] span =
        encode(
            out -> {
              out.writeTag(OtlpFields.Span.NAME, WireType.LEN);
              out.writeUInt64NoTag(Integer.MIN_VALUE); // ten bytes, negative
              out.writeRawBytes(new byte[] {'a', 'b', 'c'});
            });
    byte[] request = traceRequestWithSpan(span);
    assertRejected(
        Signal.TRACES,
        request,
        "resource_spans[0].scope_spans[0].spans[0].name",
        7,
        "length 18446744071562067968 exceeds the 3 bytes left in the enclosing message");
  }

  @Test
  // A separate thread: a looping indexer never sees an interrupt.
  @Timeout(value = 10, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void negativeStringLengthCannotSendTheIndexerBackIntoALoop() {
    // name "ab", then trace_state whose length would move the reader back to the span's start.
    byte[] span =
        encode(
            out -> {
              out.writeString(OtlpFields.Span.NAME, "ab");
              out.writeTag(OtlpFields.Span.TRACE_STATE, WireType.LEN);
              out.writeUInt64NoTag(-15L);
            });
    byte[] request = traceRequestWithSpan(span);
    assertRejected(
        Signal.TRACES,
        request,
        "resource_spans[0].scope_spans[0].spans[0].trace_state",
        11,
        "length 18446744073709551601 exceeds the 0 bytes left in the enclosing message");
  }
}
