package dev.sluice.ottl;

import static dev.sluice.ottl.Requests.kv;
import static dev.sluice.ottl.Requests.string;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.testkit.AllocationBound;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Editors run over spans of a real batch, the output parsed back with protobuf-java. */
class OttlStatementTest {
  private static List<Span> run(Batch batch, String... statements) throws Exception {
    OttlStatement.Executor[] executors = new OttlStatement.Executor[statements.length];
    for (int i = 0; i < statements.length; i++) {
      executors[i] = OttlStatement.parse(statements[i], OttlContext.SPAN).newExecutor();
    }
    EvalContext context = new EvalContext();
    batch.visit(
        item -> {
          context.block(item).span(item.span());
          for (OttlStatement.Executor executor : executors) {
            executor.execute(context);
          }
        });
    context.clear();
    return ExportTraceServiceRequest.parseFrom(OtlpMarshaler.toByteArray(batch))
        .getResourceSpans(0)
        .getScopeSpans(0)
        .getSpansList();
  }

  private static List<Span> run(Span span, String... statements) throws Exception {
    Batch batch = Requests.traces(span);
    try {
      return run(batch, statements);
    } finally {
      batch.clear();
    }
  }

  private static Span simple(KeyValue... attributes) {
    Span.Builder span = Span.newBuilder().setName("n");
    for (KeyValue a : attributes) {
      span.addAttributes(a);
    }
    return span.build();
  }

  @Test
  void setReplacesTheFirstEntryOfAKeyAndDropsItsDuplicates() throws Exception {
    Span span = simple(kv("a", string("1")), kv("b", string("2")), kv("a", string("3")));
    assertThat(run(span, "set(attributes[\"a\"], \"x\")").get(0).getAttributesList())
        .containsExactly(kv("a", string("x")), kv("b", string("2")));
  }

  @Test
  void setOfNilChangesNothing() throws Exception {
    Span span = simple(kv("a", string("1")));
    assertThat(run(span, "set(attributes[\"a\"], nil)", "set(name, attributes[\"none\"])"))
        .containsExactly(span);
  }

  @Test
  void setOfAValueTheFieldCannotHoldChangesNothing() throws Exception {
    Span span = simple(kv("i", Requests.integer(3)));
    assertThat(run(span, "set(name, attributes[\"i\"])")).containsExactly(span);
  }

  @Test
  void setOfADefaultValueLeavesTheFieldOut() throws Exception {
    Span span = simple().toBuilder().setKind(Span.SpanKind.SPAN_KIND_CLIENT).build();
    assertThat(run(span, "set(name, \"\")", "set(kind, 0)"))
        .containsExactly(Span.getDefaultInstance());
  }

  @Test
  void setOfTheWholeMapReplacesItsEntries() throws Exception {
    AnyValue map =
        AnyValue.newBuilder()
            .setKvlistValue(
                io.opentelemetry.proto.common.v1.KeyValueList.newBuilder()
                    .addValues(kv("k", string("v"))))
            .build();
    Span span = simple(kv("a", string("1")), kv("m", map));
    assertThat(run(span, "set(attributes, attributes[\"m\"])").get(0).getAttributesList())
        .containsExactly(kv("k", string("v")));
  }

  @Test
  void deleteKeyTakesAKeyComputedForTheItem() throws Exception {
    Span span = simple(kv("n", string("x")), kv("keep", string("y")));
    assertThat(run(span, "delete_key(attributes, name)").get(0).getAttributesList())
        .containsExactly(kv("keep", string("y")));
  }

  @Test
  void limitWithinTheLimitChangesNothing() throws Exception {
    Span span = simple(kv("a", string("1")), kv("b", string("2")));
    assertThat(run(span, "limit(attributes, 2, [])")).containsExactly(span);
    assertThat(run(span, "limit(attributes, 1, [\"b\"])").get(0).getAttributesList())
        .containsExactly(kv("b", string("2")));
  }

  @Test
  void replacePatternExpandsGroupsAsGoDoes() throws Exception {
    Span span = simple(kv("u", string("user=alice id=7")));
    assertThat(
            run(span, "replace_pattern(attributes[\"u\"], \"user=(\\\\w+)\", \"name=$1 $$\")")
                .get(0)
                .getAttributes(0))
        .isEqualTo(kv("u", string("name=alice $ id=7")));
  }

  @Test
  void replaceMatchReadsGlobs() {
    assertThat(StringEditors.glob("/user/*/list/{a,b}?").matcher("/user/x/list/bz").matches())
        .isTrue();
    assertThat(StringEditors.glob("[!a]bc").matcher("abc").matches()).isFalse();
    assertThat(StringEditors.glob("a\\*").matcher("a*").matches()).isTrue();
    assertThat(StringEditors.glob("a\\*").matcher("ab").matches()).isFalse();
  }

  @Test
  void contextsNamedAreThoseOfThePathsPrefixes() throws OttlException {
    assertThat(
            OttlStatement.contextsNamed(
                "set(resource.attributes[\"a\"], span.name) where IsMatch(scope.name, \"x\")"))
        .containsExactlyInAnyOrder(OttlContext.RESOURCE, OttlContext.SPAN, OttlContext.SCOPE);
    OttlException e =
        catchThrowableOfType(
            OttlException.class, () -> OttlStatement.contextsNamed("set(name, \"x\")"));
    assertThat(e.column()).isEqualTo(5);
  }

  @Test
  void refusesAnEditorInAConditionAndAConverterAsAStatement() {
    OttlException e =
        catchThrowableOfType(
            OttlException.class,
            () -> OttlStatement.parse("IsMatch(name, \"x\")", OttlContext.SPAN));
    assertThat(e.reason()).contains("found the converter IsMatch");
    e =
        catchThrowableOfType(
            OttlException.class,
            () -> OttlStatement.parse("set(\"literal\", \"x\")", OttlContext.SPAN));
    assertThat(e.reason())
        .isEqualTo("set writes into a path such as attributes[\"key\"], not a value");
  }

  @Test
  void aNonMatchingWhereAllocatesNothingAndAMatchingEditCostsInProportionToTheItem()
      throws Exception {
    Span[] spans = new Span[1_000];
    Arrays.fill(spans, Requests.richSpan());
    Batch batch = Requests.traces(spans);
    try {
      OttlStatement.Executor missing =
          OttlStatement.parse(
                  "set(attributes[\"x\"], \"y\") where attributes[\"s\"] == \"other\"",
                  OttlContext.SPAN)
              .newExecutor();
      OttlStatement.Executor matching =
          OttlStatement.parse(
                  "set(attributes[\"x\"], \"y\") where attributes[\"s\"] == \"abc\"",
                  OttlContext.SPAN)
              .newExecutor();
      EvalContext context = new EvalContext();
      dev.sluice.pdata.ItemVisitor notMatching =
          item -> missing.execute(context.block(item).span(item.span()));
      batch.visit(notMatching); // classes load, views are made
      long bytes = AllocationBound.measure(() -> batch.visit(notMatching)).allocatedBytes();
      assertThat(bytes).as("a visit of 1000 spans none of which matches").isLessThan(1_000);
      long requestBytes = Requests.richSpan().getSerializedSize() * 1_000L;
      AllocationBound.measure(
              () -> batch.visit(item -> matching.execute(context.block(item).span(item.span()))))
          .assertWithin("1000 spans re-encoded", requestBytes);
      context.clear();
    } finally {
      batch.clear();
    }
  }
}
