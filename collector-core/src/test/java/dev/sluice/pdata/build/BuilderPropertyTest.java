package dev.sluice.pdata.build;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.Message;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.testkit.RandomRequests;
import dev.sluice.testkit.RandomRequests.Sizes;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.Random;
import java.util.logging.Level;
import java.util.logging.Logger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * For random content of each signal (every field of opentelemetry-proto 1.11 the builders write,
 * each present or not, every {@code AnyValue} variant nested in arrays and key-value lists, every
 * kind of metric and data point, edge strings and numbers), the builder's bytes equal
 * protobuf-java's {@code toByteArray()} of the same content, whatever order the builder's calls
 * come in, and the indexer accepts them. The content comes from the test kit's {@code
 * RandomRequests}, less what the builders do not write ({@link Expressible}); the calls from {@link
 * Replay}. One builder per signal serves every try, reset in between.
 */
class BuilderPropertyTest {
  private static final Sizes SIZES = Sizes.DEFAULT.withUnknownFieldChance(0);

  /**
   * protobuf-java warns, with a stack trace, each time it writes a string with a lone surrogate.
   */
  private static final Logger PROTOBUF_LOGGER = Logger.getLogger(CodedOutputStream.class.getName());

  static {
    PROTOBUF_LOGGER.setLevel(Level.SEVERE);
  }

  private final TracesBuilder traces = new TracesBuilder();
  private final LogsBuilder logs = new LogsBuilder();
  private final MetricsBuilder metrics = new MetricsBuilder();
  private final OtlpIndexer indexer = new OtlpIndexer();

  @Property(tries = 300)
  void tracesAreTheBytesProtobufJavaWrites(@ForAll long seed) throws Exception {
    ExportTraceServiceRequest request =
        Expressible.of(RandomRequests.traces(new Random(seed), SIZES));
    traces.reset();
    new Replay(new Random(~seed)).traces(request, traces);

    assertSameBytes(traces, request);
  }

  @Property(tries = 300)
  void logsAreTheBytesProtobufJavaWrites(@ForAll long seed) throws Exception {
    ExportLogsServiceRequest request = Expressible.of(RandomRequests.logs(new Random(seed), SIZES));
    logs.reset();
    new Replay(new Random(~seed)).logs(request, logs);

    assertSameBytes(logs, request);
  }

  @Property(tries = 300)
  void metricsAreTheBytesProtobufJavaWrites(@ForAll long seed) throws Exception {
    ExportMetricsServiceRequest request =
        Expressible.of(RandomRequests.metrics(new Random(seed), SIZES));
    metrics.reset();
    new Replay(new Random(~seed)).metrics(request, metrics);

    assertSameBytes(metrics, request);
  }

  @Provide
  Arbitrary<String> anyText() {
    return Arbitraries.oneOf(
        // Any chars: lone surrogates at every place, and every length of UTF-8 sequence.
        Arbitraries.strings().withCharRange('\u0000', '\uffff').ofMaxLength(100),
        // Surrogates in and out of pairs, among one- to three-byte chars.
        Arbitraries.strings()
            .withChars("a\u007f\u0080é\u07ff\u0800中\uffff\ud800\udc00\udbff\udfff"));
  }

  @Property(tries = 1000)
  void stringsAreEncodedAsProtobufJavaEncodesThem(@ForAll("anyText") String text) {
    traces.reset();
    traces.resource().attributes().put(text, text);
    traces.scope().name(text);
    traces.span().name(text).attributes().putArray(text).add(text).end();

    AnyValue value = AnyValue.newBuilder().setStringValue(text).build();
    KeyValue attribute = KeyValue.newBuilder().setKey(text).setValue(value).build();
    ExportTraceServiceRequest expected =
        ExportTraceServiceRequest.newBuilder()
            .addResourceSpans(
                ResourceSpans.newBuilder()
                    .setResource(Resource.newBuilder().addAttributes(attribute))
                    .addScopeSpans(
                        ScopeSpans.newBuilder()
                            .setScope(InstrumentationScope.newBuilder().setName(text))
                            .addSpans(
                                Span.newBuilder()
                                    .setName(text)
                                    .addAttributes(
                                        KeyValue.newBuilder()
                                            .setKey(text)
                                            .setValue(
                                                AnyValue.newBuilder()
                                                    .setArrayValue(
                                                        ArrayValue.newBuilder()
                                                            .addValues(value)))))))
            .build();
    assertThat(traces.toByteArray()).isEqualTo(expected.toByteArray());
  }

  private void assertSameBytes(RequestBuilder builder, Message request) throws Exception {
    byte[] expected = request.toByteArray();
    byte[] built = builder.toByteArray();

    assertThat(built).isEqualTo(expected);
    assertThat(builder.encodedSize()).isEqualTo(expected.length);
    byte[] into = new byte[expected.length + 3];
    assertThat(builder.writeTo(into, 3)).isEqualTo(expected.length);
    assertThat(into).endsWith(expected);

    Signal signal = builder.signal();
    assertThat(indexer.index(signal, built).unitCount())
        .isEqualTo(indexer.index(signal, expected).unitCount());
    OtlpIndex index = builder.build();
    assertThat(index.sourceLength()).isEqualTo(expected.length);
  }
}
