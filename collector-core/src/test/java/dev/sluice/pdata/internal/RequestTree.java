package dev.sluice.pdata.internal;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.UnknownFieldSet;
import dev.sluice.pdata.Signal;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.metrics.v1.Metric;
import java.util.ArrayList;
import java.util.List;

/**
 * The three export requests seen through protobuf-java as one shape: request, resource blocks,
 * scope blocks, items, and for metrics data points. What the property tests compare Sluice's output
 * with; independent of Sluice's own code but for the field numbers, generated from the same
 * descriptors.
 */
final class RequestTree {
  private RequestTree() {}

  static Message defaultRequest(Signal signal) {
    switch (signal) {
      case TRACES:
        return ExportTraceServiceRequest.getDefaultInstance();
      case LOGS:
        return ExportLogsServiceRequest.getDefaultInstance();
      default:
        return ExportMetricsServiceRequest.getDefaultInstance();
    }
  }

  static Message parse(Signal signal, byte[] bytes) throws InvalidProtocolBufferException {
    return defaultRequest(signal).getParserForType().parseFrom(bytes);
  }

  /** The request without its own unknown fields, which Sluice drops. */
  static Message withoutRequestUnknownFields(Message request) {
    return request.toBuilder().setUnknownFields(UnknownFieldSet.getDefaultInstance()).build();
  }

  static List<Message> resourceBlocks(Message request) {
    return children(request, OtlpFields.Request.RESOURCE_BLOCKS);
  }

  static List<Message> scopeBlocks(Message resourceBlock) {
    return children(resourceBlock, OtlpFields.ResourceBlock.SCOPE_BLOCKS);
  }

  static List<Message> items(Message scopeBlock) {
    return children(scopeBlock, OtlpFields.ScopeBlock.ITEMS);
  }

  @SuppressWarnings("unchecked")
  private static List<Message> children(Message message, int number) {
    FieldDescriptor field = message.getDescriptorForType().findFieldByNumber(number);
    return (List<Message>) message.getField(field);
  }

  /** The field of a block's children: a resource block's scope blocks, a scope block's items. */
  private static int childrenField(Message block) {
    return block.getDescriptorForType().getName().startsWith("Scope")
        ? OtlpFields.ScopeBlock.ITEMS
        : OtlpFields.ResourceBlock.SCOPE_BLOCKS;
  }

  /** A resource or scope block without its children: its header, unknown fields included. */
  static Message header(Message block) {
    FieldDescriptor field = block.getDescriptorForType().findFieldByNumber(childrenField(block));
    return block.toBuilder().clearField(field).build();
  }

  static ByteString headerBytes(Message block) {
    return header(block).toByteString();
  }

  /** A block with the given header and children. */
  static Message block(Message header, List<? extends Message> children) {
    Message.Builder builder = header.toBuilder();
    FieldDescriptor field = header.getDescriptorForType().findFieldByNumber(childrenField(header));
    for (Message child : children) {
      builder.addRepeatedField(field, child);
    }
    return builder.build();
  }

  static Message request(Signal signal, List<Message> resourceBlocks) {
    Message.Builder builder = defaultRequest(signal).toBuilder();
    FieldDescriptor field =
        builder.getDescriptorForType().findFieldByNumber(OtlpFields.Request.RESOURCE_BLOCKS);
    for (Message block : resourceBlocks) {
      builder.addRepeatedField(field, block);
    }
    return builder.build();
  }

  static int scopeBlockCount(Message request) {
    int count = 0;
    for (Message resource : resourceBlocks(request)) {
      count += scopeBlocks(resource).size();
    }
    return count;
  }

  static int itemCount(Message request) {
    int count = 0;
    for (Message resource : resourceBlocks(request)) {
      for (Message scope : scopeBlocks(resource)) {
        count += items(scope).size();
      }
    }
    return count;
  }

  /** Spans, log records or metric data points. */
  static long unitCount(Signal signal, Message request) {
    long count = 0;
    for (Message resource : resourceBlocks(request)) {
      for (Message scope : scopeBlocks(resource)) {
        for (Message item : items(scope)) {
          count += units(signal, item);
        }
      }
    }
    return count;
  }

  static int units(Signal signal, Message item) {
    return signal == Signal.METRICS ? dataPoints((Metric) item).size() : 1;
  }

  // Metrics.

  static List<? extends Message> dataPoints(Metric metric) {
    switch (metric.getDataCase()) {
      case GAUGE:
        return metric.getGauge().getDataPointsList();
      case SUM:
        return metric.getSum().getDataPointsList();
      case HISTOGRAM:
        return metric.getHistogram().getDataPointsList();
      case EXPONENTIAL_HISTOGRAM:
        return metric.getExponentialHistogram().getDataPointsList();
      case SUMMARY:
        return metric.getSummary().getDataPointsList();
      default:
        return List.of();
    }
  }

  /** The metric with only data points {@code [from, to)}; every other field as it was. */
  static Metric withDataPoints(Metric metric, int from, int to) {
    List<? extends Message> points = dataPoints(metric);
    if (from == 0 && to == points.size()) {
      return metric;
    }
    Metric.Builder builder = metric.toBuilder();
    switch (metric.getDataCase()) {
      case GAUGE:
        builder.getGaugeBuilder().clearDataPoints();
        break;
      case SUM:
        builder.getSumBuilder().clearDataPoints();
        break;
      case HISTOGRAM:
        builder.getHistogramBuilder().clearDataPoints();
        break;
      case EXPONENTIAL_HISTOGRAM:
        builder.getExponentialHistogramBuilder().clearDataPoints();
        break;
      case SUMMARY:
        builder.getSummaryBuilder().clearDataPoints();
        break;
      default:
        throw new IllegalArgumentException("a metric without data has no data points to keep");
    }
    Metric empty = builder.build();
    Message.Builder data = dataMessage(empty).toBuilder();
    FieldDescriptor pointsField =
        data.getDescriptorForType().findFieldByNumber(OtlpFields.MetricData.DATA_POINTS);
    for (Message point : points.subList(from, to)) {
      data.addRepeatedField(pointsField, point);
    }
    FieldDescriptor dataField =
        Metric.getDescriptor().findFieldByNumber(metric.getDataCase().getNumber());
    return empty.toBuilder().setField(dataField, data.build()).build();
  }

  private static Message dataMessage(Metric metric) {
    switch (metric.getDataCase()) {
      case GAUGE:
        return metric.getGauge();
      case SUM:
        return metric.getSum();
      case HISTOGRAM:
        return metric.getHistogram();
      case EXPONENTIAL_HISTOGRAM:
        return metric.getExponentialHistogram();
      case SUMMARY:
        return metric.getSummary();
      default:
        throw new IllegalArgumentException("no data");
    }
  }

  // Flattening.

  /**
   * One unit of a request with everything that describes it: the resource block's header (resource,
   * schema URL, unknown fields), the scope block's header, the item, and for metrics the data
   * point, the item then being the metric without data points. A metric without data points is one
   * entry with a null point, so that it cannot be lost unnoticed either.
   */
  record Entry(Message resourceHeader, Message scopeHeader, Message item, Message point) {}

  static List<Entry> flatten(Signal signal, Message request) {
    List<Entry> entries = new ArrayList<>();
    addEntries(signal, request, entries);
    return entries;
  }

  static void addEntries(Signal signal, Message request, List<Entry> entries) {
    for (Message resource : resourceBlocks(request)) {
      Message resourceHeader = header(resource);
      for (Message scope : scopeBlocks(resource)) {
        Message scopeHeader = header(scope);
        for (Message item : items(scope)) {
          if (signal != Signal.METRICS) {
            entries.add(new Entry(resourceHeader, scopeHeader, item, null));
            continue;
          }
          Metric metric = (Metric) item;
          List<? extends Message> points = dataPoints(metric);
          if (points.isEmpty()) {
            entries.add(new Entry(resourceHeader, scopeHeader, metric, null));
            continue;
          }
          Metric bare = withDataPoints(metric, 0, 0);
          for (Message point : points) {
            entries.add(new Entry(resourceHeader, scopeHeader, bare, point));
          }
        }
      }
    }
  }
}
