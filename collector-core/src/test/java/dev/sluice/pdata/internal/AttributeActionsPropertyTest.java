package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.CodedOutputStream;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.pdata.edit.AttributeActions;
import dev.sluice.pdata.edit.AttributeActions.Conversion;
import dev.sluice.pdata.edit.AttributeValue;
import dev.sluice.pdata.view.AttributeCursor;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * The fast paths of the rewrite engine's attribute actions ({@link AttributeActionsRule}) give what
 * its general path gives, on random spans ({@link AttributeLists}) and random actions: the table of
 * only the entries the actions name, read without the wire reader where fields have the common
 * shapes, which leaves an entry set to the value it has as it is, writes through the {@link
 * MessageRewriter} the bytes of the full table read field by field by the reader that counts every
 * set as a change; so does the one pass of constant sets and deletes on distinct keys ({@link
 * ConstantActionsPass}), alone and through the typed editors of an indexed batch; and the cursor's
 * {@code find} by key, which passes over other entries without reading their values, stops where
 * walking every entry does.
 */
class AttributeActionsPropertyTest {
  private static final List<AttributeValue> VALUES =
      List.of(
          AttributeValue.string("prod"),
          AttributeValue.string("x"),
          AttributeValue.string(""),
          AttributeValue.integer(7),
          AttributeValue.bool(true),
          AttributeValue.floating(2.5),
          AttributeValue.array(List.of(AttributeValue.string("x"))));

  enum Kind {
    INSERT,
    UPDATE,
    UPSERT,
    INSERT_FROM,
    UPDATE_FROM,
    UPSERT_FROM,
    DELETE,
    HASH,
    CONVERT_INT,
    CONVERT_DOUBLE,
    CONVERT_STRING,
    EXTRACT,
    RENAME
  }

  /** One action: its kind, key, second key (source or extract target) and value. */
  record Step(Kind kind, String key, String other, int value) {
    /** The key the action acts on (deletes and hashes take no empty key). */
    String actionKey() {
      return key.isEmpty() && (kind == Kind.DELETE || kind == Kind.HASH) ? "a" : key;
    }

    void addTo(AttributeActions.Builder actions) {
      String named = actionKey();
      switch (kind) {
        case INSERT -> actions.insert(key, VALUES.get(value));
        case UPDATE -> actions.update(key, VALUES.get(value));
        case UPSERT -> actions.upsert(key, VALUES.get(value));
        case INSERT_FROM -> actions.insertFrom(key, other);
        case UPDATE_FROM -> actions.updateFrom(key, other);
        case UPSERT_FROM -> actions.upsertFrom(key, other);
        case DELETE -> actions.delete(named, null);
        case HASH -> actions.hash(named, null);
        case CONVERT_INT -> actions.convert(key, Conversion.INT);
        case CONVERT_DOUBLE -> actions.convert(key, Conversion.DOUBLE);
        case CONVERT_STRING -> actions.convert(key, Conversion.STRING);
        case EXTRACT -> actions.extract(key, Pattern.compile("^(x)(.*)"), List.of(other, "ab"));
        case RENAME -> actions.rename(key, other);
      }
    }
  }

  @Provide
  Arbitrary<byte[]> spans() {
    return AttributeLists.spans();
  }

  @Provide
  Arbitrary<List<Step>> steps() {
    return Combinators.combine(
            Arbitraries.of(Kind.class),
            Arbitraries.of(AttributeLists.KEYS),
            Arbitraries.of(AttributeLists.KEYS),
            Arbitraries.integers().between(0, VALUES.size() - 1))
        .as(Step::new)
        .list()
        .ofMinSize(1)
        .ofMaxSize(4);
  }

  /** Constant sets and deletes, each on its own key: the lists the one-pass path takes. */
  @Provide
  Arbitrary<List<Step>> constantSteps() {
    return Combinators.combine(
            Arbitraries.of(Kind.INSERT, Kind.UPDATE, Kind.UPSERT, Kind.DELETE),
            Arbitraries.of(AttributeLists.KEYS),
            Arbitraries.just(""),
            Arbitraries.integers().between(0, VALUES.size() - 1))
        .as(Step::new)
        .list()
        .ofMinSize(1)
        .ofMaxSize(4)
        .uniqueElements(Step::actionKey);
  }

  @Provide
  Arbitrary<String> keys() {
    return Arbitraries.of(AttributeLists.KEYS);
  }

  @Property(tries = 2000)
  void tableOfTheNamedEntriesWritesTheBytesOfTheFullTable(
      @ForAll("spans") byte[] span, @ForAll("steps") List<Step> steps) {
    AttributeActions actions = actions(steps, false);

    assertThat(rewritten(new AttributeActionsRule(actions), span))
        .isEqualTo(rewritten(new AttributeActionsRule(actions, false, false), span));
  }

  @Property(tries = 3000)
  void onePassOfConstantSetsAndDeletesWritesTheBytesOfTheFullTable(
      @ForAll("spans") byte[] span, @ForAll("constantSteps") List<Step> steps) {
    AttributeActions actions = actions(steps, false);

    assertThat(ConstantActionsPass.of(actions)).isNotNull();
    assertThat(rewritten(new AttributeActionsRule(actions), span))
        .isEqualTo(rewritten(new AttributeActionsRule(actions, false, false), span));
  }

  @Property(tries = 3000)
  void aSpanCutShortIsReadAsTheFullTableReadsIt(
      @ForAll("spans") byte[] span,
      @ForAll("constantSteps") List<Step> steps,
      @ForAll @IntRange(min = 0, max = 4096) int cut) {
    // The bytes after the cut stay in the array: no pass may read them as the message's.
    int length = span.length == 0 ? 0 : cut % span.length;
    AttributeActions actions = actions(steps, false);
    AttributeActionsRule onePass = new AttributeActionsRule(actions);
    AttributeActionsRule table = new AttributeActionsRule(actions, false, false);

    // Both write the same bytes, or both find that the bytes do not parse (null).
    assertThat(rewritten(onePass, span, length)).isEqualTo(rewritten(table, span, length));
  }

  /**
   * Through a batch, where the index tells the one pass which spans the validator passed as common
   * (their entries are then passed by key length alone): the same request as the full table makes.
   */
  @Property(tries = 2000)
  void onePassOverIndexedSpansWritesTheRequestOfTheFullTable(
      @ForAll("spans") byte[] first,
      @ForAll("spans") byte[] second,
      @ForAll("constantSteps") List<Step> steps) {
    byte[] request = request(first, second);
    Assume.that(indexes(request));
    AttributeActions actions = actions(steps, false);

    AttributeActionsRule general = new AttributeActionsRule(actions, false, false);

    assertThat(edited(actions, request))
        .isEqualTo(request(rewritten(general, first), rewritten(general, second)));
  }

  @Example
  void theIndexMarksTheSpansTheValidatorPassedInItsSpanLoop() throws Exception {
    AttributeLists.Entry common =
        new AttributeLists.Entry(
            AttributeLists.Shape.COMMON, "a", AttributeValue.string("prod").anyValue(), false);
    AttributeLists.Entry valueFirst =
        new AttributeLists.Entry(
            AttributeLists.Shape.VALUE_FIRST, "a", AttributeValue.string("prod").anyValue(), false);
    byte[] request =
        request(
            AttributeLists.span(List.of(common, common)),
            AttributeLists.span(List.of(common, valueFirst)));
    OtlpIndex index = new OtlpIndexer().index(Signal.TRACES, request);

    assertThat(index.commonSpan(0)).isTrue();
    assertThat(index.commonSpan(1)).isFalse();
    assertThat(index.itemEnd(0)).isEqualTo(index.itemStart(1));
    assertThat(index.itemEnd(1)).isEqualTo(request.length);
  }

  /** One request holding the two spans, under one resource and one scope. */
  private static byte[] request(byte[] first, byte[] second) {
    byte[] scope = fields(OtlpFields.ScopeSpans.SPANS, first, second);
    byte[] resource = fields(OtlpFields.ResourceSpans.SCOPE_SPANS, scope);
    return fields(OtlpFields.TracesRequest.RESOURCE_SPANS, resource);
  }

  /** Each payload as a length-delimited field {@code field}, in order. */
  private static byte[] fields(int field, byte[]... payloads) {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    try {
      for (byte[] payload : payloads) {
        out.writeByteArray(field, payload);
      }
      out.flush();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  private static boolean indexes(byte[] request) {
    try {
      new OtlpIndexer().index(Signal.TRACES, request);
      return true;
    } catch (MalformedOtlpException e) {
      return false;
    }
  }

  /** The request after the span editor applied the actions to every span of it in a visit. */
  private static byte[] edited(AttributeActions actions, byte[] request) {
    try {
      Batch batch = Batch.of(new OtlpIndexer().index(Signal.TRACES, request));
      batch.visit(item -> item.editSpan().apply(actions));
      return OtlpMarshaler.toByteArray(batch);
    } catch (MalformedOtlpException e) {
      throw new AssertionError(e);
    }
  }

  /**
   * The message {@code span[0, length)} as the rule leaves it, or null when it finds that the bytes
   * do not parse.
   */
  private static byte[] rewritten(AttributeActionsRule rule, byte[] span, int length) {
    ProtoWriter out = new ProtoWriter();
    try {
      boolean changed = rewrite(rule, span, length, out);
      return changed ? out.toByteArray() : Arrays.copyOf(span, length);
    } catch (IllegalStateException e) {
      return null;
    }
  }

  /** Whether the rule changed {@code span[0, length)}: its new bytes are then in {@code out}. */
  private static boolean rewrite(
      AttributeActionsRule rule, byte[] span, int length, ProtoWriter out) {
    return rule.rewrite(span, 0, length, OtlpFields.Span.ATTRIBUTES, new MessageRewriter(), out);
  }

  @Example
  void onePassTakesSpansOfTheCommonShapesAndLeavesOthersToTheTable() {
    AttributeActions actions =
        AttributeActions.builder()
            .upsert("a", AttributeValue.string("x"))
            .delete("b", null)
            .build();
    ConstantActionsPass edits = ConstantActionsPass.of(actions);
    // With flags, whose tag takes two bytes, as every span an SDK writes.
    byte[] common =
        AttributeLists.span(
            List.of(
                new AttributeLists.Entry(AttributeLists.Shape.COMMON, "fl", new byte[0], true),
                new AttributeLists.Entry(
                    AttributeLists.Shape.COMMON,
                    "a",
                    AttributeValue.string("prod").anyValue(),
                    false)));
    byte[] odd = spanWith(AttributeLists.Shape.VALUE_FIRST, "a", AttributeValue.string("prod"));

    assertThat(edits.plan(common, 0, common.length, OtlpFields.Span.ATTRIBUTES, false))
        .isEqualTo(rewritten(new AttributeActionsRule(actions, false, false), common).length);
    assertThat(edits.plan(odd, 0, odd.length, OtlpFields.Span.ATTRIBUTES, false))
        .isEqualTo(ConstantActionsPass.NOT_HANDLED);
  }

  @Example
  void actionsOnOneKeyOrOfOtherKindsTakeTheTable() {
    assertThat(
            ConstantActionsPass.of(
                AttributeActions.builder()
                    .upsert("a", AttributeValue.string("x"))
                    .delete("a", null)
                    .build()))
        .isNull();
    assertThat(
            ConstantActionsPass.of(
                AttributeActions.builder()
                    .upsert("a", AttributeValue.string("x"))
                    .delete(null, Pattern.compile("^b"))
                    .build()))
        .isNull();
    assertThat(ConstantActionsPass.of(AttributeActions.builder().upsertFrom("a", "b").build()))
        .isNull();
  }

  @Example
  void onePassTakesNoMoreActionsThanItHasBitsFor() {
    AttributeActions.Builder most = AttributeActions.builder();
    for (int a = 0; a < ConstantActionsPass.MAX_ACTIONS; a++) {
      most.upsert("k" + a, AttributeValue.integer(a));
    }
    AttributeActions.Builder more = AttributeActions.builder();
    for (int a = 0; a <= ConstantActionsPass.MAX_ACTIONS; a++) {
      more.upsert("k" + a, AttributeValue.integer(a));
    }

    assertThat(ConstantActionsPass.of(most.build())).isNotNull();
    assertThat(ConstantActionsPass.of(more.build())).isNull();
  }

  @Property(tries = 300)
  void actionsThatPickKeysByPatternSeeEveryEntry(
      @ForAll("spans") byte[] span, @ForAll("steps") List<Step> steps) {
    AttributeActions actions = actions(steps, true);

    assertThat(rewritten(new AttributeActionsRule(actions), span))
        .isEqualTo(rewritten(new AttributeActionsRule(actions, false, false), span));
  }

  @Property(tries = 2000)
  void findStopsAtTheEntryWalkingFindsFirst(
      @ForAll("spans") byte[] span, @ForAll("keys") String key) {
    byte[] wanted = AttributeLists.utf8(key);
    AttributeCursor found = cursor(span);
    AttributeCursor walked = cursor(span);
    boolean walkedToIt = false;
    while (walked.next()) {
      if (walked.keyEquals(wanted)) {
        walkedToIt = true;
        break;
      }
    }

    assertThat(found.find(wanted)).isEqualTo(walkedToIt);
    assertThat(found.key().asString()).isEqualTo(walked.key().asString());
    assertThat(found.value().type()).isEqualTo(walked.value().type());
    assertThat(found.value().stringValue().asString())
        .isEqualTo(walked.value().stringValue().asString());
    // Both go on from the same place.
    assertThat(found.next()).isEqualTo(walked.next());
    assertThat(found.key().asString()).isEqualTo(walked.key().asString());
  }

  @Example
  void upsertOfTheValueAnEntryHasLeavesTheSpanAsItIs() {
    byte[] span = spanWith(AttributeLists.Shape.COMMON, "a", AttributeValue.string("prod"));
    AttributeActions actions =
        AttributeActions.builder().upsert("a", AttributeValue.string("prod")).build();
    AttributeActionsRule general = new AttributeActionsRule(actions, false, false);
    ProtoWriter out = new ProtoWriter();

    assertThat(rewrite(new AttributeActionsRule(actions), span, span.length, new ProtoWriter()))
        .isFalse();
    assertThat(rewrite(general, span, span.length, out)).isTrue();
    assertThat(out.toByteArray()).isEqualTo(span);
  }

  @Example
  void upsertOfTheValueAPaddedEntryHasWritesTheEntryAgainWithoutThePadding() {
    byte[] span =
        spanWith(AttributeLists.Shape.PADDED_ENTRY_LENGTH, "a", AttributeValue.string("prod"));
    AttributeActions actions =
        AttributeActions.builder().upsert("a", AttributeValue.string("prod")).build();
    AttributeActionsRule fast = new AttributeActionsRule(actions);
    ProtoWriter out = new ProtoWriter();

    assertThat(rewrite(fast, span, span.length, out)).isTrue();
    assertThat(out.toByteArray())
        .hasSize(span.length - 1)
        .isEqualTo(rewritten(new AttributeActionsRule(actions, false, false), span));
  }

  private static byte[] spanWith(AttributeLists.Shape shape, String key, AttributeValue value) {
    return AttributeLists.span(
        List.of(
            new AttributeLists.Entry(
                AttributeLists.Shape.COMMON, "b", AttributeValue.integer(1).anyValue(), false),
            new AttributeLists.Entry(shape, key, value.anyValue(), false)));
  }

  private static AttributeCursor cursor(byte[] span) {
    AttributeCursor cursor = new AttributeCursor();
    cursor.wrap(span, 0, span.length, OtlpFields.Span.ATTRIBUTES);
    return cursor;
  }

  private static AttributeActions actions(List<Step> steps, boolean withPattern) {
    AttributeActions.Builder builder = AttributeActions.builder();
    for (Step step : steps) {
      step.addTo(builder);
    }
    if (withPattern) {
      builder.delete(null, Pattern.compile("^b"));
    }
    return builder.build();
  }

  /** The span as the rule leaves it: its output when it changed something, else the span. */
  static byte[] rewritten(AttributeActionsRule rule, byte[] span) {
    ProtoWriter out = new ProtoWriter();
    boolean changed = rewrite(rule, span, span.length, out);
    return changed ? out.toByteArray() : span.clone();
  }
}
