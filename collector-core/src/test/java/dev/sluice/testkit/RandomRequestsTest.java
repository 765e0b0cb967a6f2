package dev.sluice.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.OneofDescriptor;
import com.google.protobuf.Message;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.testkit.RandomRequests.Sizes;
import io.opentelemetry.proto.common.v1.AnyValue;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The test kit sets every field, makes valid requests, and is deterministic. */
class RandomRequestsTest {
  private static final int REQUESTS = 150;

  @ParameterizedTest
  @EnumSource(Signal.class)
  void everyReachableFieldAndOneofCaseIsSetInSomeRequest(Signal signal) {
    Set<String> seen = new TreeSet<>();
    for (int i = 0; i < REQUESTS; i++) {
      record(RandomRequests.request(signal, new Random(i), Sizes.DEFAULT, null), seen);
    }
    Set<String> reachable = new TreeSet<>();
    reachable(defaultRequest(signal).getDescriptorForType(), reachable, new TreeSet<>());

    assertThat(seen).containsAll(reachable);
  }

  @ParameterizedTest
  @EnumSource(Signal.class)
  void requestsHoldEmptyBlocksMetricsWithoutDataPointsAndUnknownFields(Signal signal) {
    Set<String> seen = new TreeSet<>();
    for (int i = 0; i < REQUESTS; i++) {
      record(RandomRequests.request(signal, new Random(i), Sizes.DEFAULT, null), seen);
    }
    assertThat(seen)
        .contains(
            "empty resource block",
            "empty scope block",
            "several resource blocks",
            "several scope blocks",
            "unknown fields in " + signal.resourceBlock().name(),
            "unknown fields in " + signal.scopeBlock().name(),
            "unknown fields in Resource",
            "unknown fields in " + signal.item().name(),
            "string with 4-byte UTF-8",
            "string with 2-byte UTF-8",
            "string with 3-byte UTF-8",
            "empty string_value",
            "negative int_value",
            "NaN double_value",
            "infinite double_value",
            "unknown group");
    if (signal == Signal.METRICS) {
      assertThat(seen)
          .contains(
              "metric without data field",
              "metric with empty data message",
              "unknown fields in NumberDataPoint",
              "unknown fields in Gauge",
              "negative scale");
    }
  }

  @ParameterizedTest
  @EnumSource(Signal.class)
  void sameSeedGivesTheSameRequestAndOtherSeedsOtherRequests(Signal signal) {
    Message a = RandomRequests.request(signal, new Random(42), Sizes.DEFAULT, null);
    Message b = RandomRequests.request(signal, new Random(42), Sizes.DEFAULT, null);
    Message c = RandomRequests.request(signal, new Random(43), Sizes.DEFAULT, null);

    assertThat(a.toByteArray()).isEqualTo(b.toByteArray());
    assertThat(a).isNotEqualTo(c);
  }

  @ParameterizedTest
  @EnumSource(Signal.class)
  void requestsAreValidForTheIndexer(Signal signal) throws Exception {
    OtlpIndexer indexer = new OtlpIndexer();
    for (int i = 0; i < REQUESTS; i++) {
      Random random = new Random(i);
      Sizes sizes = i % 2 == 0 ? Sizes.DEFAULT : Sizes.REPEATING.withUnknownFieldChance(1);
      RandomRequests.Headers shared = RandomRequests.headers(random, sizes, 2);
      indexer.index(signal, RandomRequests.request(signal, random, sizes, shared).toByteArray());
    }
  }

  @ParameterizedTest
  @EnumSource(Signal.class)
  void repeatingSizesGiveNeighbouringBlocksWithEqualHeaders(Signal signal) {
    int repeated = 0;
    for (int i = 0; i < 50; i++) {
      Random random = new Random(i);
      RandomRequests.Headers shared = RandomRequests.headers(random, Sizes.REPEATING, 2);
      Message request = RandomRequests.request(signal, random, Sizes.REPEATING, shared);
      List<?> blocks = (List<?>) request.getField(field(request, 1));
      for (int b = 1; b < blocks.size(); b++) {
        if (header((Message) blocks.get(b)).equals(header((Message) blocks.get(b - 1)))) {
          repeated++;
        }
      }
    }
    // About one block in five repeats its neighbour's header.
    assertThat(repeated).isGreaterThan(25);
  }

  private static Message header(Message block) {
    return block.toBuilder().clearField(field(block, 2)).build();
  }

  private static FieldDescriptor field(Message message, int number) {
    return message.getDescriptorForType().findFieldByNumber(number);
  }

  private static Message defaultRequest(Signal signal) {
    switch (signal) {
      case TRACES:
        return io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest
            .getDefaultInstance();
      case LOGS:
        return io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest
            .getDefaultInstance();
      default:
        return io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest
            .getDefaultInstance();
    }
  }

  /** "Message.field" for every field reachable from the request, and "Message.oneof=case". */
  private static void reachable(Descriptor type, Set<String> fields, Set<String> visited) {
    if (!visited.add(type.getFullName())) {
      return;
    }
    for (FieldDescriptor field : type.getFields()) {
      fields.add(type.getName() + "." + field.getName());
      if (field.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
        reachable(field.getMessageType(), fields, visited);
      }
    }
  }

  /** Records the non-default fields and the shapes met in a message tree. */
  private static void record(Message root, Set<String> seen) {
    Deque<Message> work = new ArrayDeque<>();
    work.add(root);
    while (!work.isEmpty()) {
      Message message = work.removeFirst();
      Descriptor type = message.getDescriptorForType();
      if (!message.getUnknownFields().asMap().isEmpty()) {
        seen.add("unknown fields in " + type.getName());
        message
            .getUnknownFields()
            .asMap()
            .values()
            .forEach(f -> seen.add(f.getGroupList().isEmpty() ? "unknown" : "unknown group"));
      }
      for (OneofDescriptor oneof : type.getOneofs()) {
        if (message.hasOneof(oneof)) {
          seen.add(type.getName() + "." + message.getOneofFieldDescriptor(oneof).getName());
        }
      }
      recordShapes(message, type, seen);
      for (Map.Entry<FieldDescriptor, Object> entry : message.getAllFields().entrySet()) {
        FieldDescriptor field = entry.getKey();
        seen.add(type.getName() + "." + field.getName());
        if (field.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
          if (field.isRepeated()) {
            for (Object child : (List<?>) entry.getValue()) {
              work.add((Message) child);
            }
          } else {
            work.add((Message) entry.getValue());
          }
        }
        if (field.getJavaType() == FieldDescriptor.JavaType.STRING) {
          List<?> values =
              field.isRepeated() ? (List<?>) entry.getValue() : List.of(entry.getValue());
          for (Object value : values) {
            recordString((String) value, seen);
          }
        }
      }
    }
  }

  private static void recordShapes(Message message, Descriptor type, Set<String> seen) {
    String name = type.getName();
    if (name.startsWith("Export")) {
      int blocks = message.getRepeatedFieldCount(type.findFieldByNumber(1));
      if (blocks > 1) {
        seen.add("several resource blocks");
      }
    } else if (name.startsWith("Resource") && !name.equals("Resource")) {
      int scopes = message.getRepeatedFieldCount(type.findFieldByNumber(2));
      if (scopes == 0) {
        seen.add("empty resource block");
      } else if (scopes > 1) {
        seen.add("several scope blocks");
      }
    } else if (name.startsWith("Scope")) {
      if (message.getRepeatedFieldCount(type.findFieldByNumber(2)) == 0) {
        seen.add("empty scope block");
      }
    } else if (name.equals("Metric")) {
      io.opentelemetry.proto.metrics.v1.Metric metric =
          (io.opentelemetry.proto.metrics.v1.Metric) message;
      if (metric.getDataCase() == io.opentelemetry.proto.metrics.v1.Metric.DataCase.DATA_NOT_SET) {
        seen.add("metric without data field");
      } else if (metric.hasGauge() && metric.getGauge().getDataPointsCount() == 0) {
        seen.add("metric with empty data message");
      }
    } else if (name.equals("AnyValue")) {
      AnyValue value = (AnyValue) message;
      if (value.hasStringValue() && value.getStringValue().isEmpty()) {
        seen.add("empty string_value");
      }
      if (value.hasIntValue() && value.getIntValue() < 0) {
        seen.add("negative int_value");
      }
      if (value.hasDoubleValue() && Double.isNaN(value.getDoubleValue())) {
        seen.add("NaN double_value");
      }
      if (value.hasDoubleValue() && Double.isInfinite(value.getDoubleValue())) {
        seen.add("infinite double_value");
      }
    } else if (name.equals("ExponentialHistogramDataPoint")) {
      if (((io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint) message).getScale()
          < 0) {
        seen.add("negative scale");
      }
    }
  }

  private static void recordString(String value, Set<String> seen) {
    value
        .codePoints()
        .forEach(
            cp -> {
              if (cp >= 0x10000) {
                seen.add("string with 4-byte UTF-8");
              } else if (cp >= 0x800) {
                seen.add("string with 3-byte UTF-8");
              } else if (cp >= 0x80) {
                seen.add("string with 2-byte UTF-8");
              }
            });
  }
}
