package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchView;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.edit.SpanEditor;
import dev.sluice.pdata.internal.TypedEditModel.Value;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.SpanEventView;
import dev.sluice.pdata.view.SpanLinkView;
import dev.sluice.testkit.RandomRequests;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Predicate;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random spans (every field set in some, unknown fields included), cut into random slices, given
 * random sequences of typed edits through a {@link Batch#visit}: what protobuf-java parses from the
 * marshaled batch is, span by span, the original with the same changes made through its builders,
 * and views of the batch after the visit read the edited spans.
 */
class SpanEditPropertyTest {
  private static final RandomRequests.Sizes SIZES =
      RandomRequests.Sizes.DEFAULT.withUnknownFieldChance(0.3);

  private final OtlpIndexer indexer = new OtlpIndexer();

  enum Kind {
    NAME,
    KIND,
    STATUS,
    STATUS_CODE,
    STATUS_MESSAGE,
    START,
    END,
    TRACE_ID,
    TRACE_ID_LONGS,
    SPAN_ID,
    SPAN_ID_LONG,
    PARENT_SPAN_ID,
    PARENT_SPAN_ID_LONG,
    TRACE_STATE,
    FLAGS,
    DROPPED_ATTRIBUTES,
    DROPPED_EVENTS,
    DROPPED_LINKS,
    PUT,
    REMOVE,
    ADD_EVENT,
    REMOVE_EVENTS,
    ADD_LINK,
    REMOVE_LINKS
  }

  /** One typed edit; {@code pick} chooses a key, an enum value, a predicate or a count. */
  record Edit(Kind kind, int pick, String text, long number, Value value) {
    int count() {
      return (int) (number & Integer.MAX_VALUE);
    }

    void apply(SpanEditor span, List<String> keys) {
      switch (kind) {
        case NAME -> span.setName(text);
        case KIND -> span.setKind(pick % 6);
        case STATUS -> span.setStatus(pick % 3, text);
        case STATUS_CODE -> span.setStatusCode(pick % 3);
        case STATUS_MESSAGE -> span.setStatusMessage(text);
        case START -> span.setStartTimeUnixNano(number);
        case END -> span.setEndTimeUnixNano(number);
        case TRACE_ID -> span.setTraceId(TypedEditModel.id(number, 16, pick == 0));
        case TRACE_ID_LONGS -> span.setTraceId(number, ~number);
        case SPAN_ID -> span.setSpanId(TypedEditModel.id(number, 8, pick == 0));
        case SPAN_ID_LONG -> span.setSpanId(number);
        case PARENT_SPAN_ID -> span.setParentSpanId(TypedEditModel.id(number, 8, pick == 0));
        case PARENT_SPAN_ID_LONG -> span.setParentSpanId(number);
        case TRACE_STATE -> span.setTraceState(text);
        case FLAGS -> span.setFlags((int) number);
        case DROPPED_ATTRIBUTES -> span.setDroppedAttributesCount(count());
        case DROPPED_EVENTS -> span.setDroppedEventsCount(count());
        case DROPPED_LINKS -> span.setDroppedLinksCount(count());
        case PUT -> put(span, TypedEditModel.key(pick, keys), value);
        case REMOVE -> span.removeAttribute(TypedEditModel.key(pick, keys));
        case ADD_EVENT -> {
          SpanEditor.AddedEvent event = span.addEvent(number, text);
          for (int i = 0; i < pick % 3; i++) {
            addAttribute(event, "e" + i, value);
          }
          if (pick % 2 == 1) {
            event.setDroppedAttributesCount(pick);
          }
        }
        case REMOVE_EVENTS -> span.removeEvents(eventRule(pick));
        case ADD_LINK -> {
          SpanEditor.AddedLink link =
              span.addLink(
                  TypedEditModel.id(number, 16, false), TypedEditModel.id(~number, 8, false));
          link.setTraceState(text).setFlags(pick * 0x101);
          for (int i = 0; i < pick % 3; i++) {
            addAttribute(link, "l" + i, value);
          }
          if (pick % 2 == 1) {
            link.setDroppedAttributesCount(pick);
          }
        }
        case REMOVE_LINKS -> span.removeLinks(linkRule(pick));
      }
    }

    void apply(SpanModel model, List<String> keys) {
      Span.Builder span = model.span;
      switch (kind) {
        case NAME -> span.setName(text);
        case KIND -> span.setKindValue(pick % 6);
        case STATUS -> span.setStatus(status(span).setCodeValue(pick % 3).setMessage(text));
        case STATUS_CODE -> span.setStatus(status(span).setCodeValue(pick % 3));
        case STATUS_MESSAGE -> span.setStatus(status(span).setMessage(text));
        case START -> span.setStartTimeUnixNano(number);
        case END -> span.setEndTimeUnixNano(number);
        case TRACE_ID -> span.setTraceId(bytes(TypedEditModel.id(number, 16, pick == 0)));
        case TRACE_ID_LONGS -> span.setTraceId(longs(number, ~number));
        case SPAN_ID -> span.setSpanId(bytes(TypedEditModel.id(number, 8, pick == 0)));
        case SPAN_ID_LONG -> span.setSpanId(longs(number));
        case PARENT_SPAN_ID -> span.setParentSpanId(bytes(TypedEditModel.id(number, 8, pick == 0)));
        case PARENT_SPAN_ID_LONG -> span.setParentSpanId(longs(number));
        case TRACE_STATE -> span.setTraceState(text);
        case FLAGS -> span.setFlags((int) number);
        case DROPPED_ATTRIBUTES -> span.setDroppedAttributesCount(count());
        case DROPPED_EVENTS -> span.setDroppedEventsCount(count());
        case DROPPED_LINKS -> span.setDroppedLinksCount(count());
        case PUT -> {
          List<KeyValue> attributes = new ArrayList<>(span.getAttributesList());
          TypedEditModel.put(attributes, TypedEditModel.key(pick, keys), value.proto());
          span.clearAttributes().addAllAttributes(attributes);
        }
        case REMOVE -> {
          List<KeyValue> attributes = new ArrayList<>(span.getAttributesList());
          TypedEditModel.remove(attributes, TypedEditModel.key(pick, keys));
          span.clearAttributes().addAllAttributes(attributes);
        }
        case ADD_EVENT -> {
          Span.Event.Builder event = Span.Event.newBuilder().setTimeUnixNano(number).setName(text);
          for (int i = 0; i < pick % 3; i++) {
            event.addAttributes(KeyValue.newBuilder().setKey("e" + i).setValue(value.proto()));
          }
          if (pick % 2 == 1) {
            event.setDroppedAttributesCount(pick);
          }
          model.addedEvents.add(event.build());
        }
        case REMOVE_EVENTS -> model.eventRemovals.add(protoEventRule(pick));
        case ADD_LINK -> {
          Span.Link.Builder link =
              Span.Link.newBuilder()
                  .setTraceId(bytes(TypedEditModel.id(number, 16, false)))
                  .setSpanId(bytes(TypedEditModel.id(~number, 8, false)))
                  .setTraceState(text)
                  .setFlags(pick * 0x101);
          for (int i = 0; i < pick % 3; i++) {
            link.addAttributes(KeyValue.newBuilder().setKey("l" + i).setValue(value.proto()));
          }
          if (pick % 2 == 1) {
            link.setDroppedAttributesCount(pick);
          }
          model.addedLinks.add(link.build());
        }
        case REMOVE_LINKS -> model.linkRemovals.add(protoLinkRule(pick));
      }
    }
  }

  /** A span being changed through its builder, with the events and links edits decide apart. */
  static final class SpanModel {
    final Span.Builder span;
    final List<Predicate<Span.Event>> eventRemovals = new ArrayList<>();
    final List<Span.Event> addedEvents = new ArrayList<>();
    final List<Predicate<Span.Link>> linkRemovals = new ArrayList<>();
    final List<Span.Link> addedLinks = new ArrayList<>();

    SpanModel(Span.Builder span) {
      this.span = span;
    }

    /** Removals decide the span's own events and links; added ones follow them. */
    void finish() {
      List<Span.Event> events = new ArrayList<>();
      for (Span.Event event : span.getEventsList()) {
        if (eventRemovals.stream().noneMatch(rule -> rule.test(event))) {
          events.add(event);
        }
      }
      events.addAll(addedEvents);
      span.clearEvents().addAllEvents(events);
      List<Span.Link> links = new ArrayList<>();
      for (Span.Link link : span.getLinksList()) {
        if (linkRemovals.stream().noneMatch(rule -> rule.test(link))) {
          links.add(link);
        }
      }
      links.addAll(addedLinks);
      span.clearLinks().addAllLinks(links);
    }
  }

  private static Status.Builder status(Span.Builder span) {
    return span.getStatus().toBuilder();
  }

  private static ByteString bytes(byte[] bytes) {
    return ByteString.copyFrom(bytes);
  }

  private static ByteString longs(long... halves) {
    byte[] out = new byte[halves.length * Long.BYTES];
    for (int h = 0; h < halves.length; h++) {
      for (int i = 0; i < Long.BYTES; i++) {
        out[h * Long.BYTES + i] = (byte) (halves[h] >>> (8 * (Long.BYTES - 1 - i)));
      }
    }
    return ByteString.copyFrom(out);
  }

  private static void put(SpanEditor span, String key, Value value) {
    switch (value.type()) {
      case Value.STRING -> span.putAttribute(key, value.text());
      case Value.BOOL -> span.putAttribute(key, value.flag());
      case Value.INT -> span.putAttribute(key, value.number());
      case Value.DOUBLE -> span.putAttribute(key, value.real());
      default -> span.putAttribute(key, value.bytes());
    }
  }

  private static void addAttribute(SpanEditor.AddedEvent event, String key, Value value) {
    switch (value.type()) {
      case Value.STRING -> event.addAttribute(key, value.text());
      case Value.BOOL -> event.addAttribute(key, value.flag());
      case Value.INT -> event.addAttribute(key, value.number());
      case Value.DOUBLE -> event.addAttribute(key, value.real());
      default -> event.addAttribute(key, value.bytes());
    }
  }

  private static void addAttribute(SpanEditor.AddedLink link, String key, Value value) {
    switch (value.type()) {
      case Value.STRING -> link.addAttribute(key, value.text());
      case Value.BOOL -> link.addAttribute(key, value.flag());
      case Value.INT -> link.addAttribute(key, value.number());
      case Value.DOUBLE -> link.addAttribute(key, value.real());
      default -> link.addAttribute(key, value.bytes());
    }
  }

  private static Predicate<SpanEventView> eventRule(int pick) {
    AttributeCursor attributes = new AttributeCursor();
    return switch (pick % 4) {
      case 0 -> event -> true;
      case 1 -> event -> event.timeUnixNano() % 2 == 0;
      case 2 -> event -> event.attributes(attributes).count() > 0;
      default -> event -> event.name().isEmpty();
    };
  }

  private static Predicate<Span.Event> protoEventRule(int pick) {
    return switch (pick % 4) {
      case 0 -> event -> true;
      case 1 -> event -> event.getTimeUnixNano() % 2 == 0;
      case 2 -> event -> event.getAttributesCount() > 0;
      default -> event -> event.getName().isEmpty();
    };
  }

  private static Predicate<SpanLinkView> linkRule(int pick) {
    return switch (pick % 4) {
      case 0 -> link -> true;
      case 1 -> link -> link.spanIdLong() % 2 == 0;
      case 2 -> link -> link.flags() != 0;
      default -> link -> link.traceState().isEmpty();
    };
  }

  private static Predicate<Span.Link> protoLinkRule(int pick) {
    return switch (pick % 4) {
      case 0 -> link -> true;
      case 1 -> link -> TypedEditModel.idLong(link.getSpanId(), 8, 0) % 2 == 0;
      case 2 -> link -> link.getFlags() != 0;
      default -> link -> link.getTraceState().isEmpty();
    };
  }

  @Provide
  Arbitrary<List<List<Edit>>> edits() {
    return TypedEditModel.editLists(
        Combinators.combine(
                Arbitraries.of(Kind.class),
                TypedEditModel.keyPicks(),
                TypedEditModel.texts(),
                Arbitraries.longs(),
                TypedEditModel.values())
            .as(Edit::new));
  }

  @Property(tries = 300)
  void typedEditsComeOutAsProtobufJavaMakesThem(
      @ForAll long seed, @ForAll("edits") List<List<Edit>> edits) throws Exception {
    Random random = new Random(seed);
    ExportTraceServiceRequest request = RandomRequests.traces(random, SIZES);
    ExportTraceServiceRequest expected = expected(request, edits);
    AttributeCursor attributes = new AttributeCursor();
    Batch batch =
        TypedEditModel.editAndCheck(
            indexer,
            Signal.TRACES,
            request,
            random,
            edits,
            (item, itemEdits) -> {
              List<String> keys = TypedEditModel.keys(item.span().attributes(attributes));
              SpanEditor span = item.editSpan();
              for (Edit edit : itemEdits) {
                edit.apply(span, keys);
              }
            },
            expected);
    assertViewsRead(batch, expected);
    batch.clear();
  }

  private static ExportTraceServiceRequest expected(
      ExportTraceServiceRequest request, List<List<Edit>> edits) {
    ExportTraceServiceRequest.Builder builder = request.toBuilder();
    int ordinal = 0;
    for (Span.Builder span : TypedEditModel.<Span.Builder>itemBuilders(builder)) {
      List<String> keys = TypedEditModel.keys(span.getAttributesList());
      SpanModel model = new SpanModel(span);
      for (Edit edit : edits.get(ordinal++ % edits.size())) {
        edit.apply(model, keys);
      }
      model.finish();
    }
    return builder.build();
  }

  /** Spans read through a {@link BatchView} after the visit are the edited ones. */
  private static void assertViewsRead(Batch batch, ExportTraceServiceRequest expected) {
    List<Span> spans = TypedEditModel.items(expected);
    int[] ordinal = {0};
    ProtoWriter bytes = new ProtoWriter();
    new BatchView()
        .forEachSpan(
            batch,
            (resource, scope, view) -> {
              Span span = spans.get(ordinal[0]++);
              TypedEditModel.assertWrites(bytes, view::writeTo, Span.parser(), span);
              assertThat(view.name().asString()).isEqualTo(span.getName());
              assertThat(view.kind()).isEqualTo(span.getKindValue());
              assertThat(view.statusCode()).isEqualTo(span.getStatus().getCodeValue());
              assertThat(view.statusMessage().asString()).isEqualTo(span.getStatus().getMessage());
              assertThat(view.startTimeUnixNano()).isEqualTo(span.getStartTimeUnixNano());
              assertThat(view.traceIdLow())
                  .isEqualTo(TypedEditModel.idLong(span.getTraceId(), 16, 8));
              assertThat(view.parentSpanIdLong())
                  .isEqualTo(TypedEditModel.idLong(span.getParentSpanId(), 8, 0));
              assertThat(view.attributes(new AttributeCursor()).count())
                  .isEqualTo(span.getAttributesCount());
              assertThat(view.events(new SpanEventView()).count()).isEqualTo(span.getEventsCount());
            });
    assertThat(ordinal[0]).isEqualTo(spans.size());
  }
}
