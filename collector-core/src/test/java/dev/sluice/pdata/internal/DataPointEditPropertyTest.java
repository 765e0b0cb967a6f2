package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchView;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.edit.DataPointEditor;
import dev.sluice.pdata.internal.TypedEditModel.Value;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.testkit.RandomRequests;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
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
 * Random metrics of every kind (every data point field set in some, unknown fields included), cut
 * into random slices, given random sequences of typed edits of their data points through a {@link
 * Batch#visit}: what protobuf-java parses from the marshaled batch is, point by point, the original
 * with the same changes made through its builders, and views of the batch after the visit read the
 * edited points. Value edits go to number points only.
 */
class DataPointEditPropertyTest {
  private static final RandomRequests.Sizes SIZES =
      RandomRequests.Sizes.DEFAULT.withUnknownFieldChance(0.3);

  private final OtlpIndexer indexer = new OtlpIndexer();

  enum Kind {
    START_TIME,
    TIME,
    FLAGS,
    DOUBLE_VALUE,
    INT_VALUE,
    PUT,
    REMOVE
  }

  /** One typed edit; {@code pick} chooses a key. */
  record Edit(Kind kind, int pick, long number, Value value) {
    boolean fits(boolean numberPoint) {
      return numberPoint || (kind != Kind.DOUBLE_VALUE && kind != Kind.INT_VALUE);
    }

    void apply(DataPointEditor point, List<String> keys) {
      switch (kind) {
        case START_TIME -> point.setStartTimeUnixNano(number);
        case TIME -> point.setTimeUnixNano(number);
        case FLAGS -> point.setFlags((int) number);
        case DOUBLE_VALUE -> point.setDoubleValue(value.real());
        case INT_VALUE -> point.setIntValue(number);
        case PUT -> {
          String key = TypedEditModel.key(pick, keys);
          switch (value.type()) {
            case Value.STRING -> point.putAttribute(key, value.text());
            case Value.BOOL -> point.putAttribute(key, value.flag());
            case Value.INT -> point.putAttribute(key, value.number());
            case Value.DOUBLE -> point.putAttribute(key, value.real());
            default -> point.putAttribute(key, value.bytes());
          }
        }
        case REMOVE -> point.removeAttribute(TypedEditModel.key(pick, keys));
      }
    }

    @SuppressWarnings("unchecked")
    void apply(Message.Builder point, List<String> keys) {
      switch (kind) {
        case START_TIME -> point.setField(field(point, "start_time_unix_nano"), number);
        case TIME -> point.setField(field(point, "time_unix_nano"), number);
        case FLAGS -> point.setField(field(point, "flags"), (int) number);
        case DOUBLE_VALUE -> ((NumberDataPoint.Builder) point).setAsDouble(value.real());
        case INT_VALUE -> ((NumberDataPoint.Builder) point).setAsInt(number);
        case PUT, REMOVE -> {
          FieldDescriptor field = field(point, "attributes");
          List<KeyValue> attributes = new ArrayList<>((List<KeyValue>) point.getField(field));
          String key = TypedEditModel.key(pick, keys);
          if (kind == Kind.PUT) {
            TypedEditModel.put(attributes, key, value.proto());
          } else {
            TypedEditModel.remove(attributes, key);
          }
          point.setField(field, attributes);
        }
      }
    }
  }

  private static FieldDescriptor field(Message.Builder point, String name) {
    return point.getDescriptorForType().findFieldByName(name);
  }

  @Provide
  Arbitrary<List<List<Edit>>> edits() {
    return TypedEditModel.editLists(
        Combinators.combine(
                Arbitraries.of(Kind.class),
                TypedEditModel.keyPicks(),
                Arbitraries.longs(),
                TypedEditModel.values())
            .as(Edit::new));
  }

  @Property(tries = 300)
  void typedEditsComeOutAsProtobufJavaMakesThem(
      @ForAll long seed, @ForAll("edits") List<List<Edit>> edits) throws Exception {
    Random random = new Random(seed);
    ExportMetricsServiceRequest request = RandomRequests.metrics(random, SIZES);
    List<Message> points = new ArrayList<>();
    ExportMetricsServiceRequest expected = expected(request, edits, points);
    AttributeCursor attributes = new AttributeCursor();
    Batch batch =
        TypedEditModel.editAndCheck(
            indexer,
            Signal.METRICS,
            request,
            random,
            edits,
            (item, itemEdits) -> {
              List<String> keys = TypedEditModel.keys(item.dataPoint().attributes(attributes));
              int dataField = item.metricDataField();
              boolean numberPoint =
                  dataField == OtlpFields.Metric.GAUGE || dataField == OtlpFields.Metric.SUM;
              DataPointEditor point = item.editDataPoint();
              for (Edit edit : itemEdits) {
                if (edit.fits(numberPoint)) {
                  edit.apply(point, keys);
                }
              }
            },
            expected);
    assertViewsRead(batch, points);
    batch.clear();
  }

  private static ExportMetricsServiceRequest expected(
      ExportMetricsServiceRequest request, List<List<Edit>> edits, List<Message> points) {
    ExportMetricsServiceRequest.Builder builder = request.toBuilder();
    int ordinal = 0;
    for (Metric.Builder metric : TypedEditModel.<Metric.Builder>itemBuilders(builder)) {
      boolean numberPoint =
          metric.getDataCase() == Metric.DataCase.GAUGE
              || metric.getDataCase() == Metric.DataCase.SUM;
      for (Message.Builder point : pointBuilders(metric)) {
        List<String> keys =
            TypedEditModel.keys((List<KeyValue>) point.getField(field(point, "attributes")));
        for (Edit edit : edits.get(ordinal++ % edits.size())) {
          if (edit.fits(numberPoint)) {
            edit.apply(point, keys);
          }
        }
        points.add(point.build());
      }
    }
    return builder.build();
  }

  private static List<? extends Message.Builder> pointBuilders(Metric.Builder metric) {
    return switch (metric.getDataCase()) {
      case GAUGE -> metric.getGaugeBuilder().getDataPointsBuilderList();
      case SUM -> metric.getSumBuilder().getDataPointsBuilderList();
      case HISTOGRAM -> metric.getHistogramBuilder().getDataPointsBuilderList();
      case EXPONENTIAL_HISTOGRAM ->
          metric.getExponentialHistogramBuilder().getDataPointsBuilderList();
      case SUMMARY -> metric.getSummaryBuilder().getDataPointsBuilderList();
      default -> List.of();
    };
  }

  /** Points read through a {@link BatchView} after the visit are the edited ones. */
  private static void assertViewsRead(Batch batch, List<Message> points) {
    int[] ordinal = {0};
    new BatchView()
        .forEachDataPoint(
            batch,
            (resource, scope, metric, view) -> {
              Message.Builder point = points.get(ordinal[0]++).toBuilder();
              assertThat(view.startTimeUnixNano())
                  .isEqualTo(point.getField(field(point, "start_time_unix_nano")));
              assertThat(view.timeUnixNano())
                  .isEqualTo(point.getField(field(point, "time_unix_nano")));
              assertThat(view.flags()).isEqualTo(point.getField(field(point, "flags")));
              assertThat(view.attributes(new AttributeCursor()).count())
                  .isEqualTo(point.getRepeatedFieldCount(field(point, "attributes")));
              if (point instanceof NumberDataPoint.Builder number) {
                assertThat(view.isDouble()).isEqualTo(number.hasAsDouble());
                assertThat(view.isInt()).isEqualTo(number.hasAsInt());
                assertThat(Double.doubleToLongBits(view.doubleValue()))
                    .isEqualTo(Double.doubleToLongBits(number.getAsDouble()));
                assertThat(view.intValue()).isEqualTo(number.getAsInt());
              }
            });
    assertThat(ordinal[0]).isEqualTo(points.size());
  }
}
