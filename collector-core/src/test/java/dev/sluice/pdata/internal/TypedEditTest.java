package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.pdata.edit.SpanEditor;
import dev.sluice.pdata.internal.OtlpEnums.StatusCode;
import dev.sluice.pdata.view.SpanView;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.metrics.v1.Histogram;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The typed editors' contract on examples: several changes make one replacement, changes that
 * change nothing make none, reads within the call see the changes, a drop forgets them, and misuse
 * throws with a message that says what is wrong.
 */
class TypedEditTest {
  private static final int UNKNOWN_FIELD = 1000;

  private final OtlpIndexer indexer = new OtlpIndexer();

  private static Span span(String name) {
    return Span.newBuilder()
        .setTraceId(OtlpTestData.id(16, 1))
        .setSpanId(OtlpTestData.id(8, 2))
        .setName(name)
        .setKind(Span.SpanKind.SPAN_KIND_SERVER)
        .setStartTimeUnixNano(1_000)
        .setEndTimeUnixNano(2_000)
        .addAttributes(OtlpTestData.attribute("http.route", OtlpTestData.string("/users")))
        .setStatus(Status.newBuilder().setMessage("fine"))
        .setUnknownFields(
            UnknownFieldSet.newBuilder()
                .addField(UNKNOWN_FIELD, UnknownFieldSet.Field.newBuilder().addVarint(7).build())
                .build())
        .build();
  }

  private static ExportTraceServiceRequest traces(Span... spans) {
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder()
                .addScopeSpans(ScopeSpans.newBuilder().addAllSpans(List.of(spans))))
        .build();
  }

  private Batch batch(ExportTraceServiceRequest request) throws Exception {
    return Batch.of(indexer.index(Signal.TRACES, request.toByteArray()));
  }

  private static List<Span> spans(Batch batch) throws Exception {
    return ExportTraceServiceRequest.parseFrom(OtlpMarshaler.toByteArray(batch))
        .getResourceSpans(0)
        .getScopeSpans(0)
        .getSpansList();
  }

  /** Bytes of replacement storage the batch holds for its first slice's request. */
  private static int storedBytes(Batch batch) {
    Overlay overlay = batch.slice(0).overlay();
    return overlay == null ? 0 : overlay.size();
  }

  @Test
  void severalChangesToASpanAreWrittenAsOneReplacement() throws Exception {
    Batch batch = batch(traces(span("GET"), span("POST")));

    batch.visit(
        item -> {
          if (item.item() == 0) {
            item.editSpan()
                .setName("GET /users/{id}")
                .setKind(OtlpEnums.SpanKind.CLIENT)
                .setStatus(StatusCode.ERROR, "timed out")
                .putAttribute("http.route", "/users/{id}")
                .putAttribute("retries", 2)
                .removeAttribute("absent");
          }
        });

    Span expected =
        span("GET").toBuilder()
            .setName("GET /users/{id}")
            .setKind(Span.SpanKind.SPAN_KIND_CLIENT)
            .setStatus(
                Status.newBuilder()
                    .setCode(Status.StatusCode.STATUS_CODE_ERROR)
                    .setMessage("timed out"))
            .setAttributes(
                0, OtlpTestData.attribute("http.route", OtlpTestData.string("/users/{id}")))
            .addAttributes(
                OtlpTestData.attribute("retries", AnyValue.newBuilder().setIntValue(2).build()))
            .build();
    assertThat(spans(batch)).containsExactly(expected, span("POST"));
    assertThat(storedBytes(batch))
        .as("one replacement, its field written once")
        .isEqualTo(
            Varint.lengthDelimitedSize(OtlpFields.ScopeSpans.SPANS, expected.getSerializedSize()));
    batch.clear();
  }

  /** The example of docs/architecture.md, "Changing items without decoding: edits". */
  @Test
  void theDocumentedExampleDropsHealthChecksAndEditsTheRest() throws Exception {
    Span retried =
        span("GET").toBuilder()
            .setEndTimeUnixNano(5_000)
            .addAttributes(
                OtlpTestData.attribute("user_agent.original", OtlpTestData.string("curl")))
            .addEvents(Span.Event.newBuilder().setName("retry"))
            .build();
    Batch batch = batch(traces(span("GET /health"), retried));

    batch.visit(
        item -> {
          SpanView span = item.span();
          if (span.nameEquals("GET /health")) {
            item.drop();
            return;
          }
          long end = span.endTimeUnixNano();
          item.editSpan()
              .setName("GET /users/{id}")
              .setStatus(StatusCode.ERROR, "upstream timed out")
              .putAttribute("deployment.environment", "production")
              .removeAttribute("user_agent.original")
              .removeEvents(event -> event.nameEquals("retry"))
              .addEvent(end, "timeout")
              .addAttribute("timeout.ms", 250L);
        });

    assertThat(spans(batch))
        .containsExactly(
            span("GET").toBuilder()
                .setEndTimeUnixNano(5_000)
                .setName("GET /users/{id}")
                .setStatus(
                    Status.newBuilder()
                        .setMessage("upstream timed out")
                        .setCode(Status.StatusCode.STATUS_CODE_ERROR))
                .addAttributes(
                    OtlpTestData.attribute(
                        "deployment.environment", OtlpTestData.string("production")))
                .addEvents(
                    Span.Event.newBuilder()
                        .setTimeUnixNano(5_000)
                        .setName("timeout")
                        .addAttributes(
                            OtlpTestData.attribute(
                                "timeout.ms", AnyValue.newBuilder().setIntValue(250).build())))
                .build());
    batch.clear();
  }

  @Test
  void changesThatChangeNothingReplaceNothing() throws Exception {
    ExportTraceServiceRequest request = traces(span("GET"));
    Batch batch = batch(request);

    batch.visit(
        item ->
            item.editSpan()
                .setName("GET")
                .setKind(OtlpEnums.SpanKind.SERVER)
                .setStartTimeUnixNano(1_000)
                .setStatusMessage("fine")
                .putAttribute("http.route", "/users")
                .removeAttribute("absent")
                .removeEvents(event -> true));

    assertThat(batch.slice(0).overlay()).as("no replacement storage").isNull();
    assertThat(OtlpMarshaler.toByteArray(batch)).isEqualTo(request.toByteArray());
    batch.clear();
  }

  @Test
  void aFieldSetOnASpanWithoutItIsWrittenInFieldOrderAsProtobufWritesIt() throws Exception {
    Batch batch = batch(traces(span("GET")));
    byte[] state = "xot=rv:0123456789abcd;th:cx".getBytes(StandardCharsets.UTF_8);

    batch.visit(item -> item.editSpan().setTraceState(state, 1, state.length - 2));

    byte[] expected =
        traces(span("GET").toBuilder().setTraceState("ot=rv:0123456789abcd;th:c").build())
            .toByteArray();
    assertThat(OtlpMarshaler.toByteArray(batch)).isEqualTo(expected);
    batch.clear();
  }

  @Test
  void aTraceStateGivenAsBytesIsCheckedToBeUtf8() throws Exception {
    assertThat(thrownEditing(span -> span.setTraceState(new byte[] {'a', '=', (byte) 0xC0}, 0, 3)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a trace state is not valid UTF-8 at byte 2 of 3");
    assertThat(thrownEditing(span -> span.setTraceState(new byte[2], 1, 2)))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }

  @Test
  void aStringAttributeGivenAsBytesIsWrittenAsTheStringAndCheckedToBeUtf8() throws Exception {
    Batch fromString = batch(traces(span("GET")));
    Batch fromBytes = batch(traces(span("GET")));
    byte[] text = "x/users/é/x".getBytes(StandardCharsets.UTF_8);

    fromString.visit(item -> item.editSpan().putAttribute("http.route", "/users/é/"));
    fromBytes.visit(
        item -> item.editSpan().putStringAttribute("http.route", text, 1, text.length - 2));

    assertThat(OtlpMarshaler.toByteArray(fromBytes))
        .isEqualTo(OtlpMarshaler.toByteArray(fromString));
    assertThat(
            thrownEditing(
                span -> span.putStringAttribute("k", new byte[] {'a', (byte) 0xC0}, 0, 2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a string value is not valid UTF-8 at byte 1 of 2");
    fromString.clear();
    fromBytes.clear();
  }

  @Test
  void anEditorTakenButNotUsedReplacesNothing() throws Exception {
    Batch batch = batch(traces(span("GET")));

    batch.visit(BatchItem::editSpan);

    assertThat(batch.slice(0).overlay()).isNull();
    batch.clear();
  }

  @Test
  void readingTheItemWithinTheCallSeesTheChangesMadeSoFar() throws Exception {
    Batch batch = batch(traces(span("GET")));
    String[] seen = new String[2];

    batch.visit(
        item -> {
          SpanEditor span = item.editSpan().setName("renamed");
          seen[0] = item.span().name().asString();
          span.setKind(OtlpEnums.SpanKind.PRODUCER);
          seen[1] = item.span().name().asString() + " " + item.span().kind();
        });

    assertThat(seen).containsExactly("renamed", "renamed 4");
    assertThat(spans(batch))
        .containsExactly(
            span("GET").toBuilder()
                .setName("renamed")
                .setKind(Span.SpanKind.SPAN_KIND_PRODUCER)
                .build());
    batch.clear();
  }

  @Test
  void aDroppedItemForgetsItsChanges() throws Exception {
    Batch batch = batch(traces(span("GET"), span("POST")));

    batch.visit(
        item -> {
          item.editSpan().setName("changed");
          if (item.item() == 0) {
            item.drop();
            item.editSpan().setName("changed after the drop");
          }
        });

    assertThat(spans(batch)).containsExactly(span("POST").toBuilder().setName("changed").build());
    batch.clear();
  }

  @Test
  void aReplaceAfterChangesWins() throws Exception {
    Batch batch = batch(traces(span("GET")));
    byte[] replacement = span("replaced").toByteArray();

    batch.visit(
        item -> {
          item.editSpan().setName("changed");
          item.replace(replacement, 0, replacement.length);
        });

    assertThat(spans(batch)).containsExactly(span("replaced"));
    batch.clear();
  }

  @Test
  void aVisitorThatThrowsLeavesItsItemUnchanged() throws Exception {
    ExportTraceServiceRequest request = traces(span("GET"));
    Batch batch = batch(request);

    assertThatThrownBy(
            () ->
                batch.visit(
                    item -> {
                      item.editSpan().setName("changed");
                      throw new IllegalStateException("the visitor fails");
                    }))
        .hasMessage("the visitor fails");

    assertThat(OtlpMarshaler.toByteArray(batch)).isEqualTo(request.toByteArray());
    batch.clear();
  }

  @Test
  void eventsAndLinksAreAddedAfterTheSpansOwnAndRemovedByPredicate() throws Exception {
    Span original =
        span("GET").toBuilder()
            .addEvents(Span.Event.newBuilder().setName("keep").setTimeUnixNano(1))
            .addEvents(Span.Event.newBuilder().setName("drop").setTimeUnixNano(2))
            .addLinks(Span.Link.newBuilder().setTraceId(OtlpTestData.id(16, 3)).setFlags(1))
            .build();
    Batch batch = batch(traces(original));
    byte[] traceId = OtlpTestData.id(16, 4).toByteArray();
    byte[] spanId = OtlpTestData.id(8, 5).toByteArray();

    batch.visit(
        item -> {
          SpanEditor span = item.editSpan();
          span.addEvent(3, "exception").addAttribute("exception.type", "IOException");
          span.removeEvents(event -> event.nameEquals("drop"));
          span.addLink(traceId, spanId).setTraceState("k=v").setFlags(0x301);
          span.removeLinks(link -> link.flags() == 1);
          span.setDroppedEventsCount(1);
        });

    Span expected =
        original.toBuilder()
            .removeEvents(1)
            .addEvents(
                Span.Event.newBuilder()
                    .setTimeUnixNano(3)
                    .setName("exception")
                    .addAttributes(
                        OtlpTestData.attribute(
                            "exception.type", OtlpTestData.string("IOException"))))
            .clearLinks()
            .addLinks(
                Span.Link.newBuilder()
                    .setTraceId(ByteString.copyFrom(traceId))
                    .setSpanId(ByteString.copyFrom(spanId))
                    .setTraceState("k=v")
                    .setFlags(0x301))
            .setDroppedEventsCount(1)
            .build();
    assertThat(spans(batch)).containsExactly(expected);
    batch.clear();
  }

  @Test
  void logRecordsAndDataPointsTakeTheirChangesAsOneReplacement() throws Exception {
    LogRecord log =
        LogRecord.newBuilder().setSeverityText("INFO").setBody(OtlpTestData.string("hi")).build();
    Batch logs =
        Batch.of(
            indexer.index(
                Signal.LOGS,
                ExportLogsServiceRequest.newBuilder()
                    .addResourceLogs(
                        ResourceLogs.newBuilder()
                            .addScopeLogs(ScopeLogs.newBuilder().addLogRecords(log)))
                    .build()
                    .toByteArray()));

    logs.visit(
        item ->
            item.editLogRecord()
                .setSeverityNumber(OtlpEnums.SeverityNumber.WARN)
                .setSeverityText("WARN")
                .setBody(42)
                .setEventName("disk.full"));

    LogRecord expected =
        log.toBuilder()
            .setSeverityNumberValue(OtlpEnums.SeverityNumber.WARN)
            .setSeverityText("WARN")
            .setBody(AnyValue.newBuilder().setIntValue(42))
            .setEventName("disk.full")
            .build();
    assertThat(
            ExportLogsServiceRequest.parseFrom(OtlpMarshaler.toByteArray(logs))
                .getResourceLogs(0)
                .getScopeLogs(0)
                .getLogRecordsList())
        .containsExactly(expected);
    assertThat(storedBytes(logs))
        .isEqualTo(
            Varint.lengthDelimitedSize(
                OtlpFields.ScopeLogs.LOG_RECORDS, expected.getSerializedSize()));
    logs.clear();

    Batch metrics = Batch.of(indexer.index(Signal.METRICS, gauge().toByteArray()));
    metrics.visit(
        item -> item.editDataPoint().setIntValue(7).putAttribute("host", "a").setFlags(1));

    assertThat(
            ExportMetricsServiceRequest.parseFrom(OtlpMarshaler.toByteArray(metrics))
                .getResourceMetrics(0)
                .getScopeMetrics(0)
                .getMetrics(0)
                .getGauge()
                .getDataPoints(0))
        .isEqualTo(
            OtlpTestData.numberPoint(1, false).toBuilder()
                .setAsInt(7)
                .addAttributes(OtlpTestData.attribute("host", OtlpTestData.string("a")))
                .setFlags(1)
                .build());
    metrics.clear();
  }

  private static ExportMetricsServiceRequest gauge() {
    return metrics(
        Metric.newBuilder()
            .setName("g")
            .setGauge(
                io.opentelemetry.proto.metrics.v1.Gauge.newBuilder()
                    .addDataPoints(OtlpTestData.numberPoint(1, false)))
            .build());
  }

  private static ExportMetricsServiceRequest metrics(Metric metric) {
    return ExportMetricsServiceRequest.newBuilder()
        .addResourceMetrics(
            ResourceMetrics.newBuilder()
                .addScopeMetrics(ScopeMetrics.newBuilder().addMetrics(metric)))
        .build();
  }

  // Misuse.

  /** Runs {@code edit} on the one span of a batch and returns what it threw. */
  private Throwable thrownEditing(Consumer<SpanEditor> edit) throws Exception {
    Batch batch = batch(traces(span("GET")));
    Throwable[] thrown = new Throwable[1];
    batch.visit(
        item -> {
          try {
            edit.accept(item.editSpan());
          } catch (RuntimeException e) {
            thrown[0] = e;
          }
        });
    assertThat(batch.slice(0).overlay()).as("a refused edit changes nothing").isNull();
    batch.clear();
    return thrown[0];
  }

  @Test
  void refusesValuesTheEdgeWouldRefuse() throws Exception {
    assertThat(thrownEditing(span -> span.setTraceId(new byte[5])))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a trace ID is 16 bytes (or empty), not 5");
    assertThat(thrownEditing(span -> span.setParentSpanId(new byte[16])))
        .hasMessage("a parent span ID is 8 bytes (or empty), not 16");
    assertThat(thrownEditing(span -> span.setKind(6)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("span kind 6 is not a SpanKind (0 to 5)");
    assertThat(thrownEditing(span -> span.setStatusCode(-1)))
        .hasMessage("status code -1 is not a StatusCode (0 to 2)");
    assertThat(thrownEditing(span -> span.setName("a\uD800")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a span name is not valid Unicode: an unpaired surrogate at index 1");
    assertThat(thrownEditing(span -> span.putAttribute("\uDC00", "v")))
        .hasMessage("an attribute key is not valid Unicode: an unpaired surrogate at index 0");
    assertThat(thrownEditing(span -> span.putAttribute("k", "\uD83D")))
        .hasMessage("a string value is not valid Unicode: an unpaired surrogate at index 0");
    assertThat(thrownEditing(span -> span.setDroppedEventsCount(-1)))
        .hasMessage("dropped events count must not be negative: -1");
    assertThat(thrownEditing(span -> span.setName(null)))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("a span name");
    assertThat(thrownEditing(span -> span.addLink(new byte[15], new byte[8])))
        .hasMessage("a linked trace ID is 16 bytes, not 15");
    assertThat(thrownEditing(span -> span.addEvent(1, "\uDFFF")))
        .hasMessage("an event name is not valid Unicode: an unpaired surrogate at index 0");
  }

  @Test
  void refusesALogRecordSeverityOutsideTheEnum() throws Exception {
    Batch logs =
        Batch.of(
            indexer.index(
                Signal.LOGS,
                ExportLogsServiceRequest.newBuilder()
                    .addResourceLogs(
                        ResourceLogs.newBuilder()
                            .addScopeLogs(
                                ScopeLogs.newBuilder()
                                    .addLogRecords(LogRecord.getDefaultInstance())))
                    .build()
                    .toByteArray()));

    assertThatThrownBy(() -> logs.visit(item -> item.editLogRecord().setSeverityNumber(25)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("severity number 25 is not a SeverityNumber (0 to 24)");
    logs.clear();
  }

  @Test
  void refusesAValueOnAPointWithoutOne() throws Exception {
    Metric histogram =
        Metric.newBuilder()
            .setName("h")
            .setHistogram(
                Histogram.newBuilder()
                    .addDataPoints(HistogramDataPoint.newBuilder().setCount(1).build()))
            .build();
    Batch batch = Batch.of(indexer.index(Signal.METRICS, metrics(histogram).toByteArray()));

    assertThatThrownBy(() -> batch.visit(item -> item.editDataPoint().setDoubleValue(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "only a number data point (a gauge's or a sum's) has a single value; this one is a"
                + " HISTOGRAM point");
    assertThatThrownBy(() -> batch.visitMetrics(BatchItem::editDataPoint))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the visit is not at a data point");
    batch.clear();
  }

  @Test
  void refusesAnEditorKeptPastItsCall() throws Exception {
    Batch batch = batch(traces(span("GET"), span("POST")));
    SpanEditor[] kept = new SpanEditor[1];
    SpanEditor.AddedEvent[] event = new SpanEditor.AddedEvent[1];
    Throwable[] thrown = new Throwable[1];

    batch.visit(
        item -> {
          if (item.item() == 0) {
            kept[0] = item.editSpan();
            event[0] = kept[0].addEvent(1, "first");
            kept[0].addLink(new byte[16], new byte[8]);
            try {
              event[0].addAttribute("k", "v");
            } catch (IllegalStateException e) {
              thrown[0] = e;
            }
          }
        });

    assertThat(thrown[0])
        .hasMessage(
            "an added event takes fields only until the next event or link is added or the"
                + " visitor's call ends");
    assertThatThrownBy(() -> kept[0].setName("late"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "a SpanEditor is valid only during the visitor's call that got it from its item; get"
                + " it again in the next call");
    batch.clear();
  }

  @Test
  void refusesEditsWhereTheItemMayNotChange() throws Exception {
    Batch batch = batch(traces(span("GET")));

    assertThatThrownBy(() -> batch.visit(BatchItem::editLogRecord))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a TRACES item is no log records");
    assertThatThrownBy(() -> batch.visitHeaders(BatchItem::editSpan))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("a visit of headers shows one item for many: it may replace headers only");
    Batch[] parts = {new Batch(Signal.TRACES)};
    assertThatThrownBy(
            () ->
                batch.partitionInto(
                    parts,
                    item -> {
                      item.editSpan();
                      return 0;
                    }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("this item is read-only: a part key must not edit it");
    parts[0].clear();
    batch.clear();
  }
}
