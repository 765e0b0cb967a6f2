package dev.sluice.processor.probabilisticsampler;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.sluice.component.Admission;
import dev.sluice.component.BatchConsumer;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Processor;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.testkit.MetricsText;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Runs requests through a real {@code probabilistic_sampler} processor (the factory's, in a {@link
 * dev.sluice.component.FunctionProcessor}) and parses what it passes on with protobuf-java.
 */
final class SamplerHarness {
  final MetricRegistry metrics = new MetricRegistry();
  private final List<byte[]> passedOn = new ArrayList<>();
  private final Processor processor;

  SamplerHarness(ProbabilisticSamplerConfig config, Signal signal) {
    ComponentSettings settings =
        new ComponentSettings(
            ComponentId.parse("probabilistic_sampler"), ComponentKind.PROCESSOR, metrics);
    BatchConsumer next =
        batch -> {
          passedOn.add(OtlpMarshaler.toByteArray(batch));
          batch.clear();
          return Admission.ACCEPTED;
        };
    processor = new ProbabilisticSamplerProcessorFactory().create(settings, config, signal, next);
  }

  /** The request after the processor; empty when nothing was passed on. */
  ExportTraceServiceRequest traces(ExportTraceServiceRequest request) {
    return traces(request.toByteArray());
  }

  /** The request (as bytes, written however the test likes) after the processor. */
  ExportTraceServiceRequest traces(byte[] request) {
    byte[] out = run(Signal.TRACES, request);
    try {
      return out == null
          ? ExportTraceServiceRequest.getDefaultInstance()
          : ExportTraceServiceRequest.parseFrom(out);
    } catch (InvalidProtocolBufferException e) {
      throw new AssertionError("the processor wrote a request protobuf-java cannot parse", e);
    }
  }

  /** The request's bytes after the processor, as written; null when nothing was passed on. */
  byte[] tracesBytes(byte[] request) {
    return run(Signal.TRACES, request);
  }

  ExportLogsServiceRequest logs(ExportLogsServiceRequest request) {
    byte[] out = run(Signal.LOGS, request.toByteArray());
    try {
      return out == null
          ? ExportLogsServiceRequest.getDefaultInstance()
          : ExportLogsServiceRequest.parseFrom(out);
    } catch (InvalidProtocolBufferException e) {
      throw new AssertionError("the processor wrote a request protobuf-java cannot parse", e);
    }
  }

  /** Whether the last request was passed on at all. */
  boolean passedOn() {
    return !passedOn.isEmpty();
  }

  private byte[] run(Signal signal, byte[] request) {
    passedOn.clear();
    Batch batch;
    try {
      batch = Batch.of(new OtlpIndexer().index(signal, request));
    } catch (MalformedOtlpException e) {
      throw new AssertionError(e);
    }
    Admission answer = processor.consume(batch);
    if (answer != Admission.ACCEPTED) {
      throw new AssertionError("refused: " + answer);
    }
    batch.clear();
    return passedOn.isEmpty() ? null : passedOn.get(0);
  }

  String prometheus() {
    return MetricsText.of(metrics);
  }

  static ProbabilisticSamplerConfig config(String mode, float percent, long seed) {
    return new ProbabilisticSamplerConfig(percent, seed, mode, true, 4, "traceID", "", "");
  }

  /** A request of {@code count} realistic spans with distinct random trace IDs. */
  static byte[] spansRequest(int count) {
    io.opentelemetry.proto.trace.v1.ScopeSpans.Builder scope =
        io.opentelemetry.proto.trace.v1.ScopeSpans.newBuilder();
    java.util.SplittableRandom random = new java.util.SplittableRandom(count);
    for (int i = 0; i < count; i++) {
      String id =
          String.format(java.util.Locale.ROOT, "%016x%016x", random.nextLong(), random.nextLong());
      scope.addSpans(span(Integer.toString(i), id, ""));
    }
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            io.opentelemetry.proto.trace.v1.ResourceSpans.newBuilder().addScopeSpans(scope))
        .build()
        .toByteArray();
  }

  static ByteString hex(String text) {
    return ByteString.copyFrom(HexFormat.of().parseHex(text));
  }

  static Span.Builder span(String name, String traceIdHex, String traceState) {
    return Span.newBuilder()
        .setName(name)
        .setTraceId(hex(traceIdHex))
        .setSpanId(hex("0102030405060708"))
        .setTraceState(traceState)
        .setKind(Span.SpanKind.SPAN_KIND_SERVER)
        .setStartTimeUnixNano(1_700_000_000_000_000_000L)
        .setEndTimeUnixNano(1_700_000_000_100_000_000L)
        .addAttributes(attribute("http.route", AnyValue.newBuilder().setStringValue("/a")));
  }

  static LogRecord.Builder log(String body, String traceIdHex) {
    return LogRecord.newBuilder()
        .setTimeUnixNano(1_700_000_000_000_000_000L)
        .setSeverityNumber(io.opentelemetry.proto.logs.v1.SeverityNumber.SEVERITY_NUMBER_INFO)
        .setBody(AnyValue.newBuilder().setStringValue(body))
        .setTraceId(hex(traceIdHex));
  }

  static KeyValue attribute(String key, AnyValue.Builder value) {
    return KeyValue.newBuilder().setKey(key).setValue(value).build();
  }

  /** A typed value as the agreement tables write it: {@code int}, {@code double}, ... */
  static AnyValue.Builder typed(String type, String value) {
    switch (type) {
      case "int":
        return AnyValue.newBuilder().setIntValue(Long.parseLong(value));
      case "double":
        return AnyValue.newBuilder().setDoubleValue(Double.parseDouble(value));
      case "str":
        return AnyValue.newBuilder().setStringValue(value);
      case "bytes":
        return AnyValue.newBuilder().setBytesValue(hex(value));
      case "bool":
        return AnyValue.newBuilder().setBoolValue(Boolean.parseBoolean(value));
      default:
        throw new IllegalArgumentException(type);
    }
  }
}
