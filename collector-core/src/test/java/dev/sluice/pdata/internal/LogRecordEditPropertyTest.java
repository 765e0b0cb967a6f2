package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchView;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.edit.LogRecordEditor;
import dev.sluice.pdata.internal.TypedEditModel.Value;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.ValueType;
import dev.sluice.testkit.RandomRequests;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random log records (every field set in some, unknown fields included), cut into random slices,
 * given random sequences of typed edits through a {@link Batch#visit}: what protobuf-java parses
 * from the marshaled batch is, record by record, the original with the same changes made through
 * its builders, and views of the batch after the visit read the edited records.
 */
class LogRecordEditPropertyTest {
  private static final RandomRequests.Sizes SIZES =
      RandomRequests.Sizes.DEFAULT.withUnknownFieldChance(0.3);

  private final OtlpIndexer indexer = new OtlpIndexer();

  enum Kind {
    TIME,
    OBSERVED_TIME,
    SEVERITY_NUMBER,
    SEVERITY_TEXT,
    BODY,
    CLEAR_BODY,
    PUT,
    REMOVE,
    DROPPED_ATTRIBUTES,
    FLAGS,
    TRACE_ID,
    TRACE_ID_LONGS,
    SPAN_ID,
    SPAN_ID_LONG,
    EVENT_NAME
  }

  /** One typed edit; {@code pick} chooses a key or an enum value. */
  record Edit(Kind kind, int pick, String text, long number, Value value) {
    void apply(LogRecordEditor log, List<String> keys) {
      switch (kind) {
        case TIME -> log.setTimeUnixNano(number);
        case OBSERVED_TIME -> log.setObservedTimeUnixNano(number);
        case SEVERITY_NUMBER -> log.setSeverityNumber((int) ((number & 0xFF) % 25));
        case SEVERITY_TEXT -> log.setSeverityText(text);
        case BODY -> {
          switch (value.type()) {
            case Value.STRING -> log.setBody(value.text());
            case Value.BOOL -> log.setBody(value.flag());
            case Value.INT -> log.setBody(value.number());
            case Value.DOUBLE -> log.setBody(value.real());
            default -> log.setBody(value.bytes());
          }
        }
        case CLEAR_BODY -> log.clearBody();
        case PUT -> {
          String key = TypedEditModel.key(pick, keys);
          switch (value.type()) {
            case Value.STRING -> log.putAttribute(key, value.text());
            case Value.BOOL -> log.putAttribute(key, value.flag());
            case Value.INT -> log.putAttribute(key, value.number());
            case Value.DOUBLE -> log.putAttribute(key, value.real());
            default -> log.putAttribute(key, value.bytes());
          }
        }
        case REMOVE -> log.removeAttribute(TypedEditModel.key(pick, keys));
        case DROPPED_ATTRIBUTES -> log.setDroppedAttributesCount(pick * 1000);
        case FLAGS -> log.setFlags((int) number);
        case TRACE_ID -> log.setTraceId(TypedEditModel.id(number, 16, pick == 0));
        case TRACE_ID_LONGS -> log.setTraceId(~number, number);
        case SPAN_ID -> log.setSpanId(TypedEditModel.id(number, 8, pick == 0));
        case SPAN_ID_LONG -> log.setSpanId(number);
        case EVENT_NAME -> log.setEventName(text);
      }
    }

    void apply(LogRecord.Builder log, List<String> keys) {
      switch (kind) {
        case TIME -> log.setTimeUnixNano(number);
        case OBSERVED_TIME -> log.setObservedTimeUnixNano(number);
        case SEVERITY_NUMBER -> log.setSeverityNumberValue((int) ((number & 0xFF) % 25));
        case SEVERITY_TEXT -> log.setSeverityText(text);
        case BODY -> log.setBody(value.proto());
        case CLEAR_BODY -> log.clearBody();
        case PUT, REMOVE -> {
          List<KeyValue> attributes = new ArrayList<>(log.getAttributesList());
          String key = TypedEditModel.key(pick, keys);
          if (kind == Kind.PUT) {
            TypedEditModel.put(attributes, key, value.proto());
          } else {
            TypedEditModel.remove(attributes, key);
          }
          log.clearAttributes().addAllAttributes(attributes);
        }
        case DROPPED_ATTRIBUTES -> log.setDroppedAttributesCount(pick * 1000);
        case FLAGS -> log.setFlags((int) number);
        case TRACE_ID ->
            log.setTraceId(ByteString.copyFrom(TypedEditModel.id(number, 16, pick == 0)));
        case TRACE_ID_LONGS -> log.setTraceId(longs(~number, number));
        case SPAN_ID -> log.setSpanId(ByteString.copyFrom(TypedEditModel.id(number, 8, pick == 0)));
        case SPAN_ID_LONG -> log.setSpanId(longs(number));
        case EVENT_NAME -> log.setEventName(text);
      }
    }
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
    ExportLogsServiceRequest request = RandomRequests.logs(random, SIZES);
    ExportLogsServiceRequest expected = expected(request, edits);
    AttributeCursor attributes = new AttributeCursor();
    Batch batch =
        TypedEditModel.editAndCheck(
            indexer,
            Signal.LOGS,
            request,
            random,
            edits,
            (item, itemEdits) -> {
              List<String> keys = TypedEditModel.keys(item.logRecord().attributes(attributes));
              LogRecordEditor log = item.editLogRecord();
              for (Edit edit : itemEdits) {
                edit.apply(log, keys);
              }
            },
            expected);
    assertViewsRead(batch, expected);
    batch.clear();
  }

  private static ExportLogsServiceRequest expected(
      ExportLogsServiceRequest request, List<List<Edit>> edits) {
    ExportLogsServiceRequest.Builder builder = request.toBuilder();
    int ordinal = 0;
    for (LogRecord.Builder log : TypedEditModel.<LogRecord.Builder>itemBuilders(builder)) {
      List<String> keys = TypedEditModel.keys(log.getAttributesList());
      for (Edit edit : edits.get(ordinal++ % edits.size())) {
        edit.apply(log, keys);
      }
    }
    return builder.build();
  }

  /** Records read through a {@link BatchView} after the visit are the edited ones. */
  private static void assertViewsRead(Batch batch, ExportLogsServiceRequest expected) {
    List<LogRecord> logs = TypedEditModel.items(expected);
    int[] ordinal = {0};
    ProtoWriter bytes = new ProtoWriter();
    new BatchView()
        .forEachLogRecord(
            batch,
            (resource, scope, view) -> {
              LogRecord log = logs.get(ordinal[0]++);
              TypedEditModel.assertWrites(bytes, view::writeTo, LogRecord.parser(), log);
              assertThat(view.timeUnixNano()).isEqualTo(log.getTimeUnixNano());
              assertThat(view.severityNumber()).isEqualTo(log.getSeverityNumberValue());
              assertThat(view.severityText().asString()).isEqualTo(log.getSeverityText());
              assertThat(view.eventName().asString()).isEqualTo(log.getEventName());
              assertThat(view.flags()).isEqualTo(log.getFlags());
              assertThat(view.spanIdLong()).isEqualTo(TypedEditModel.idLong(log.getSpanId(), 8, 0));
              assertThat(view.body().type() == ValueType.EMPTY)
                  .isEqualTo(log.getBody().getValueCase() == AnyValue.ValueCase.VALUE_NOT_SET);
              assertThat(view.attributes(new AttributeCursor()).count())
                  .isEqualTo(log.getAttributesCount());
            });
    assertThat(ordinal[0]).isEqualTo(logs.size());
  }
}
