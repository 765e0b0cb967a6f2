package dev.sluice.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import dev.sluice.component.Admission;
import dev.sluice.component.ComponentId;
import dev.sluice.component.RequestConsumer;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.service.ComponentSpec;
import dev.sluice.testkit.RecordingExporter;
import dev.sluice.testkit.TestComponents;
import dev.sluice.testkit.TestComponents.TestReceiver;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@code span_rename} example in a pipeline the collector builds: requests that protobuf-java
 * encoded go in at a receiver, and what the exporter is asked to send is parsed by protobuf-java.
 */
class SpanRenameProcessorTest {
  private static final SpanRenameConfig CONFIG =
      new SpanRenameConfig("GET /users/123", "GET /users/{id}", 500, "server error");

  private ExamplePipeline pipeline;

  @BeforeEach
  void startPipeline() throws Exception {
    pipeline =
        new ExamplePipeline(
            new ComponentSpec(
                ComponentId.parse("test"),
                TestComponents.receivers(new TestComponents.Journal()),
                new TestComponents.NoConfig()),
            List.of(
                new ComponentSpec(
                    ComponentId.parse("span_rename"), new SpanRenameProcessorFactory(), CONFIG)));
  }

  @AfterEach
  void stopPipeline() throws InterruptedException {
    pipeline.close();
  }

  @Test
  void renamesMatchingSpansAndMarksServerErrorsLeavingOtherSpansByteForByte() throws Exception {
    Span renamed = span("GET /users/123", 1, statusCode(200));
    Span renamedAndFailed = withUnknownField(span("GET /users/123", 2, statusCode(503)));
    Span failed =
        span("POST /cart", 3, statusCode(500)).toBuilder()
            .setStatus(Status.newBuilder().setMessage("was unset"))
            .build();
    Span clientError = span("POST /cart", 4, statusCode(404));
    Span noStatusCode = span("GET /health", 5, null);
    Span statusCodeAsText =
        span(
            "GET /users/123/orders",
            6,
            KeyValue.newBuilder()
                .setKey("http.response.status_code")
                .setValue(AnyValue.newBuilder().setStringValue("503"))
                .build());
    List<Span> spans =
        List.of(renamed, renamedAndFailed, failed, clientError, noStatusCode, statusCodeAsText);
    ExportTraceServiceRequest sent = request(spans);

    byte[] exported = send(sent);

    List<Span> out =
        ExportTraceServiceRequest.parseFrom(exported)
            .getResourceSpans(0)
            .getScopeSpans(0)
            .getSpansList();
    assertThat(out)
        .containsExactly(
            renamed.toBuilder().setName("GET /users/{id}").build(),
            renamedAndFailed.toBuilder()
                .setName("GET /users/{id}")
                .setStatus(error("server error"))
                .build(),
            failed.toBuilder().setStatus(error("server error")).build(),
            clientError,
            noStatusCode,
            statusCodeAsText);
    // A changed span is written as protobuf-java writes it: the fields not changed stay in place.
    // (The one with an unknown field parses to the same message, but protobuf-java writes unknown
    // fields last, so its bytes need not be the same.)
    for (Span changed : List.of(out.get(0), out.get(2))) {
      assertThat(indexOf(exported, changed.toByteArray())).isNotNegative();
    }
    // The unknown field of a changed span is kept, copied as bytes.
    assertThat(out.get(1).getUnknownFields()).isEqualTo(renamedAndFailed.getUnknownFields());
    // Spans left alone are written as they came, and so are the resource and scope.
    for (Span untouched : List.of(clientError, noStatusCode, statusCodeAsText)) {
      assertThat(indexOf(exported, untouched.toByteArray())).isNotNegative();
    }
    assertThat(indexOf(exported, sent.getResourceSpans(0).getResource().toByteArray()))
        .isNotNegative();
    assertThat(
            indexOf(exported, sent.getResourceSpans(0).getScopeSpans(0).getScope().toByteArray()))
        .isNotNegative();
  }

  @Test
  void aBatchWithoutSpansToChangeLeavesTheExporterTheRequestAsSent() throws Exception {
    ExportTraceServiceRequest sent =
        request(List.of(span("POST /cart", 1, statusCode(200)), span("GET /health", 2, null)));

    assertThat(send(sent)).isEqualTo(sent.toByteArray());
  }

  /** Offers the request at the receiver and returns the bytes the exporter was asked to send. */
  private byte[] send(ExportTraceServiceRequest request) throws Exception {
    RequestConsumer traces =
        ((TestReceiver) pipeline.graph.receiver(ComponentId.parse("test")))
            .consumers()
            .get(Signal.TRACES);
    int units = request.getResourceSpans(0).getScopeSpans(0).getSpansCount();
    assertThat(traces.consume(new OtlpIndexer().index(Signal.TRACES, request.toByteArray())))
        .isEqualTo(Admission.ACCEPTED);
    RecordingExporter exporter = pipeline.exported();
    assertThat(exporter.awaitDeliveredUnits(units, 30, TimeUnit.SECONDS)).isTrue();
    assertThat(exporter.delivered()).hasSize(1);
    return exporter.delivered().get(0).request();
  }

  private static ExportTraceServiceRequest request(List<Span> spans) {
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder()
                .setResource(
                    Resource.newBuilder()
                        .addAttributes(
                            KeyValue.newBuilder()
                                .setKey("service.name")
                                .setValue(AnyValue.newBuilder().setStringValue("shop"))))
                .addScopeSpans(
                    ScopeSpans.newBuilder()
                        .setScope(InstrumentationScope.newBuilder().setName("http-server"))
                        .addAllSpans(spans)))
        .build();
  }

  private static Span span(String name, int number, KeyValue statusCode) {
    Span.Builder span =
        Span.newBuilder()
            .setTraceId(
                ByteString.copyFrom(
                    new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, (byte) number}))
            .setSpanId(ByteString.copyFrom(new byte[] {1, 1, 1, 1, 1, 1, 1, (byte) number}))
            .setName(name)
            .setKind(Span.SpanKind.SPAN_KIND_SERVER)
            .setStartTimeUnixNano(1_000L * number)
            .setEndTimeUnixNano(1_000L * number + 500)
            .addAttributes(
                KeyValue.newBuilder()
                    .setKey("http.request.method")
                    .setValue(AnyValue.newBuilder().setStringValue("GET")));
    if (statusCode != null) {
      span.addAttributes(statusCode);
    }
    return span.build();
  }

  private static KeyValue statusCode(long code) {
    return KeyValue.newBuilder()
        .setKey("http.response.status_code")
        .setValue(AnyValue.newBuilder().setIntValue(code))
        .build();
  }

  private static Status error(String message) {
    return Status.newBuilder()
        .setCode(Status.StatusCode.STATUS_CODE_ERROR)
        .setMessage(message)
        .build();
  }

  /** The span with field 100 (no field of Span's) holding a varint, as a newer sender's might. */
  private static Span withUnknownField(Span span) {
    return span.toBuilder()
        .setUnknownFields(
            UnknownFieldSet.newBuilder()
                .addField(100, UnknownFieldSet.Field.newBuilder().addVarint(42).build())
                .build())
        .build();
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
