package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.pdata.edit.AttributeActions;
import dev.sluice.pdata.edit.AttributeValue;
import dev.sluice.pdata.edit.ResourceEditor;
import dev.sluice.pdata.edit.ScopeEditor;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The resource and scope editors: puts, removes and attribute actions on a block's header, once per
 * block and visit, checked against protobuf-java's reading of what the batch writes.
 */
class HeaderEditorsTest {
  private final OtlpIndexer indexer = new OtlpIndexer();

  private static KeyValue kv(String key, String value) {
    return KeyValue.newBuilder()
        .setKey(key)
        .setValue(AnyValue.newBuilder().setStringValue(value))
        .build();
  }

  private static KeyValue kv(String key, AnyValue.Builder value) {
    return KeyValue.newBuilder().setKey(key).setValue(value).build();
  }

  private static Span span(String name) {
    return Span.newBuilder()
        .setTraceId(ByteString.copyFrom(new byte[16]))
        .setSpanId(ByteString.copyFrom(new byte[8]))
        .setName(name)
        .build();
  }

  /** Two resource blocks, each with a scope of two spans; only the first has a schema URL. */
  private static ExportTraceServiceRequest request() {
    ExportTraceServiceRequest.Builder request = ExportTraceServiceRequest.newBuilder();
    for (int r = 0; r < 2; r++) {
      ResourceSpans.Builder resource =
          ResourceSpans.newBuilder()
              .setResource(
                  Resource.newBuilder()
                      .addAttributes(kv("a", "1"))
                      .addAttributes(kv("b", "2"))
                      .setDroppedAttributesCount(3))
              .addScopeSpans(
                  ScopeSpans.newBuilder()
                      .setScope(
                          InstrumentationScope.newBuilder()
                              .setName("lib")
                              .addAttributes(kv("s", "x")))
                      .addSpans(span("r" + r + "-1"))
                      .addSpans(span("r" + r + "-2")));
      if (r == 0) {
        resource.setSchemaUrl("https://own");
      }
      request.addResourceSpans(resource);
    }
    return request.build();
  }

  private static String sha256(String text) throws Exception {
    return HexFormat.of()
        .formatHex(
            MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void putsRemovesAndActionsChangeEachBlockOnceWhateverItsItemsCount() throws Exception {
    ExportTraceServiceRequest original = request();
    Batch batch = Batch.of(indexer.index(Signal.TRACES, original.toByteArray()));
    // Hashing is not idempotent: a block changed twice would hold the hash of the hash.
    AttributeActions hashB = AttributeActions.builder().hash("b", null).build();

    batch.visit(
        item -> {
          item.editResource().putAttribute("n", 5L).removeAttribute("a").apply(hashB);
          item.editScope().putAttribute("t", true).removeAttribute("s").putAttribute("d", 1.5);
        });

    ExportTraceServiceRequest.Builder expected = original.toBuilder();
    for (ResourceSpans.Builder resource : expected.getResourceSpansBuilderList()) {
      resource
          .getResourceBuilder()
          .clearAttributes()
          .addAttributes(kv("b", sha256("2")))
          .addAttributes(kv("n", AnyValue.newBuilder().setIntValue(5)));
      resource
          .getScopeSpansBuilder(0)
          .getScopeBuilder()
          .clearAttributes()
          .addAttributes(kv("t", AnyValue.newBuilder().setBoolValue(true)))
          .addAttributes(kv("d", AnyValue.newBuilder().setDoubleValue(1.5)));
    }
    assertThat(ExportTraceServiceRequest.parseFrom(OtlpMarshaler.toByteArray(batch)))
        .isEqualTo(expected.build());
    batch.clear();
  }

  @Test
  void aVisitOfHeadersChangesABlockThatTwoSlicesOfTheBatchShareOnce() throws Exception {
    ExportTraceServiceRequest original = request();
    OtlpIndex index = indexer.index(Signal.TRACES, original.toByteArray());
    Batch batch = Batch.of(index);
    batch.addAll(Batch.of(index));
    AttributeActions hashB = AttributeActions.builder().hash("b", null).build();
    boolean[] changes = new boolean[8];
    int[] calls = {0};

    batch.visitHeaders(
        item -> changes[calls[0]++] = item.editResource().apply(hashB).changesBlock());

    assertThat(calls[0]).isEqualTo(4);
    assertThat(changes).startsWith(true, true, false, false);
    ExportTraceServiceRequest written =
        ExportTraceServiceRequest.parseFrom(OtlpMarshaler.toByteArray(batch));
    assertThat(written.getResourceSpansList()).hasSize(4);
    for (ResourceSpans resource : written.getResourceSpansList()) {
      assertThat(resource.getResource().getAttributesList())
          .containsExactly(kv("a", "1"), kv("b", sha256("2")));
    }
    batch.clear();
  }

  @Test
  void theSchemaUrlIsSetWhereTheBlockHasNone() throws Exception {
    ExportTraceServiceRequest original = request();
    Batch batch = Batch.of(indexer.index(Signal.TRACES, original.toByteArray()));

    batch.visitHeaders(item -> item.editResource().setSchemaUrlIfAbsent("https://detected"));

    ExportTraceServiceRequest written =
        ExportTraceServiceRequest.parseFrom(OtlpMarshaler.toByteArray(batch));
    assertThat(written.getResourceSpansList())
        .extracting(ResourceSpans::getSchemaUrl)
        .containsExactly("https://own", "https://detected");
    assertThat(written.getResourceSpans(1).getResource())
        .isEqualTo(original.getResourceSpans(1).getResource());
    batch.clear();
  }

  @Test
  void changesThatLeaveTheHeaderAsItWasReplaceNothing() throws Exception {
    Batch batch = Batch.of(indexer.index(Signal.TRACES, request().toByteArray()));

    batch.visit(
        item -> {
          item.editResource()
              .putAttribute("a", "1")
              .removeAttribute("absent")
              .apply(
                  AttributeActions.builder().update("absent", AttributeValue.bool(true)).build());
          item.editScope().putAttribute("s", "x");
        });

    assertThat(batch.slice(0).overlay()).isNull();
    batch.clear();
  }

  @Test
  void anEditorRefusesChangesAfterTheCallThatGotIt() throws Exception {
    Batch batch = Batch.of(indexer.index(Signal.TRACES, request().toByteArray()));
    ResourceEditor[] resource = new ResourceEditor[1];
    ScopeEditor[] scope = new ScopeEditor[1];

    batch.visit(
        item -> {
          resource[0] = item.editResource();
          scope[0] = item.editScope();
        });

    assertThatThrownBy(() -> resource[0].putAttribute("k", "v"))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> scope[0].removeAttribute("k"))
        .isInstanceOf(IllegalStateException.class);
    batch.clear();
  }

  @Test
  void actionsAndPutsOnASpanApplyInTheOrderTheyWereMadeWithItsOtherChanges() throws Exception {
    ExportTraceServiceRequest original = request();
    Batch batch = Batch.of(indexer.index(Signal.TRACES, original.toByteArray()));
    AttributeActions actions =
        AttributeActions.builder()
            .upsert("a", AttributeValue.string("2"))
            .insertFrom("b", "a")
            .convert("n", AttributeActions.Conversion.INT)
            .build();

    batch.visit(
        item ->
            item.editSpan()
                .setName("renamed")
                .putAttribute("a", "1")
                .putAttribute("n", "12")
                .apply(actions)
                .putAttribute("c", "3")
                .removeAttribute("n"));

    ExportTraceServiceRequest.Builder expected = original.toBuilder();
    for (ResourceSpans.Builder resource : expected.getResourceSpansBuilderList()) {
      for (Span.Builder span : resource.getScopeSpansBuilder(0).getSpansBuilderList()) {
        span.setName("renamed").addAllAttributes(List.of(kv("a", "2"), kv("b", "2"), kv("c", "3")));
      }
    }
    assertThat(ExportTraceServiceRequest.parseFrom(OtlpMarshaler.toByteArray(batch)))
        .isEqualTo(expected.build());
    assertThat(actions.unconvertedCount()).isZero();
    batch.clear();
  }

  @Test
  void actionsThatAreTheCallsFirstChangeAreSeenByTheChangesAfterThem() throws Exception {
    ExportTraceServiceRequest original = request();
    Batch batch = Batch.of(indexer.index(Signal.TRACES, original.toByteArray()));
    AttributeActions actions =
        AttributeActions.builder()
            .insert("a", AttributeValue.string("1"))
            .insertFrom("b", "a")
            .build();
    AttributeActions again = AttributeActions.builder().rename("b", "c").build();

    batch.visit(
        item ->
            item.editSpan()
                .apply(actions)
                .putAttribute("a", "2")
                .apply(again)
                .setName("renamed")
                .removeEvents(event -> true));

    ExportTraceServiceRequest.Builder expected = original.toBuilder();
    for (ResourceSpans.Builder resource : expected.getResourceSpansBuilderList()) {
      for (Span.Builder span : resource.getScopeSpansBuilder(0).getSpansBuilderList()) {
        span.setName("renamed").addAllAttributes(List.of(kv("a", "2"), kv("c", "1")));
      }
    }
    assertThat(ExportTraceServiceRequest.parseFrom(OtlpMarshaler.toByteArray(batch)))
        .isEqualTo(expected.build());
    batch.clear();
  }

  @Test
  void valuesAConvertCouldNotConvertAreCountedOnTheActions() throws Exception {
    Batch batch = Batch.of(indexer.index(Signal.TRACES, request().toByteArray()));
    AttributeActions actions =
        AttributeActions.builder().convert("n", AttributeActions.Conversion.DOUBLE).build();

    batch.visit(item -> item.editSpan().putAttribute("n", "not a number").apply(actions));

    assertThat(actions.unconvertedCount()).isEqualTo(4);
    batch.clear();
  }
}
