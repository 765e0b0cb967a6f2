package dev.sluice.bench.load;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.MessageLite;
import com.google.protobuf.WireFormat;
import dev.sluice.bench.SpanShapes;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The distinct requests a load generator sends, encoded once: it cycles through them and re-sends
 * the bytes. Every request holds the same number of items (spans, log records or metric data
 * points), counted here with the {@link OtlpIndexer} as the collector counts them.
 *
 * <p>With fresh trace IDs ({@code traceIdOffsets} not empty), each cycle through the requests after
 * the first sends copies whose trace IDs have their last 8 bytes XORed with the cycle number, so
 * that a trace never comes back; see {@link #body}.
 *
 * @param signal traces, metrics or logs
 * @param description the shape, for summaries
 * @param requests the encoded requests
 * @param itemsPerRequest items in each request
 * @param traceIdOffsets per request, where the last 8 bytes of each span's trace ID begin; empty
 *     when every cycle sends the requests as they are
 */
public record Workload(
    Signal signal,
    String description,
    List<byte[]> requests,
    long itemsPerRequest,
    List<int[]> traceIdOffsets) {

  public Workload {
    if (!traceIdOffsets.isEmpty() && traceIdOffsets.size() != requests.size()) {
      throw new IllegalArgumentException("trace ID offsets for every request, or for none");
    }
  }

  /** A workload whose requests are sent as they are in every cycle. */
  public Workload(Signal signal, String description, List<byte[]> requests, long itemsPerRequest) {
    this(signal, description, requests, itemsPerRequest, List.of());
  }

  /** The settings a workload is made from. */
  public record Spec(
      Signal signal,
      RequestShapes.SpanShape shape,
      int items,
      int metrics,
      int pointsPerMetric,
      int distinct,
      long seed,
      int spansPerTrace) {
    public Spec {
      if (items <= 0
          || metrics <= 0
          || pointsPerMetric <= 0
          || distinct <= 0
          || spansPerTrace <= 0) {
        throw new IllegalArgumentException("counts must be positive");
      }
      if (spansPerTrace > 1 && signal != Signal.TRACES) {
        throw new IllegalArgumentException("spans per trace are for traces, not " + signal);
      }
    }

    /** Every span a trace of its own. */
    public Spec(
        Signal signal,
        RequestShapes.SpanShape shape,
        int items,
        int metrics,
        int pointsPerMetric,
        int distinct,
        long seed) {
      this(signal, shape, items, metrics, pointsPerMetric, distinct, seed, 1);
    }

    public String describe() {
      return switch (signal) {
        case TRACES ->
            items
                + " "
                + shape.label()
                + " spans per request"
                + (spansPerTrace > 1
                    ? " in traces of " + spansPerTrace + ", fresh trace IDs every cycle"
                    : "");
        case LOGS -> items + " log records per request";
        case METRICS -> metrics + " metrics x " + pointsPerMetric + " data points per request";
      };
    }
  }

  /** Builds {@code spec.distinct()} requests from seeds {@code seed, seed + 1, ...}. */
  public static Workload build(Spec spec) {
    List<byte[]> requests = new ArrayList<>(spec.distinct());
    OtlpIndexer indexer = new OtlpIndexer();
    long items = -1;
    for (int i = 0; i < spec.distinct(); i++) {
      byte[] bytes = message(spec, spec.seed() + i).toByteArray();
      long count;
      try {
        count = indexer.index(spec.signal(), bytes).unitCount();
      } catch (MalformedOtlpException e) {
        throw new IllegalStateException("the generator made a request Sluice rejects", e);
      }
      if (items >= 0 && count != items) {
        throw new IllegalStateException("requests differ in items: " + count + " and " + items);
      }
      items = count;
      requests.add(bytes);
    }
    List<int[]> offsets = spec.spansPerTrace() > 1 ? traceIdOffsets(requests) : List.of();
    return new Workload(spec.signal(), spec.describe(), List.copyOf(requests), items, offsets);
  }

  /** The request made from {@code seed}. */
  public static MessageLite message(Spec spec, long seed) {
    return switch (spec.signal()) {
      case TRACES ->
          spec.spansPerTrace() > 1
              ? SpanShapes.inTraces(
                  RequestShapes.traces(spec.shape(), spec.items(), seed), spec.spansPerTrace())
              : RequestShapes.traces(spec.shape(), spec.items(), seed);
      case LOGS -> RequestShapes.logs(spec.items(), seed);
      case METRICS -> RequestShapes.metrics(spec.metrics(), spec.pointsPerMetric(), seed);
    };
  }

  public int maxRequestBytes() {
    int max = 0;
    for (byte[] request : requests) {
      max = Math.max(max, request.length);
    }
    return max;
  }

  public double averageRequestBytes() {
    long total = 0;
    for (byte[] request : requests) {
      total += request.length;
    }
    return total / (double) requests.size();
  }

  /**
   * The bytes of send {@code n} (from 0): request {@code n % requests().size()}, as it is in the
   * first cycle, and with fresh trace IDs a copy of it in the later ones, the last 8 bytes of every
   * trace ID XORed with the cycle number {@code n / requests().size()} (big-endian). The first 8
   * bytes are left alone: {@link #build} checked that they are never all zero and that they tell
   * the workload's traces apart, so no ID is all zero and no two cycles share a trace ID.
   */
  public byte[] body(long n) {
    int index = (int) (n % requests.size());
    long cycle = n / requests.size();
    byte[] request = requests.get(index);
    if (traceIdOffsets.isEmpty() || cycle == 0) {
      return request;
    }
    byte[] copy = request.clone();
    for (int offset : traceIdOffsets.get(index)) {
      for (int b = 0; b < 8; b++) {
        copy[offset + b] ^= (byte) (cycle >>> (56 - 8 * b));
      }
    }
    return copy;
  }

  /**
   * Per request, where the last 8 bytes of each span's trace ID begin, found by walking the encoded
   * request; checks that the first 8 bytes of a trace ID are never all zero and that no two of the
   * workload's traces share them.
   */
  static List<int[]> traceIdOffsets(List<byte[]> requests) {
    int[] path = {
      ExportTraceServiceRequest.RESOURCE_SPANS_FIELD_NUMBER,
      ResourceSpans.SCOPE_SPANS_FIELD_NUMBER,
      ScopeSpans.SPANS_FIELD_NUMBER,
      Span.TRACE_ID_FIELD_NUMBER
    };
    Map<Long, Long> lowByHigh = new HashMap<>();
    List<int[]> all = new ArrayList<>(requests.size());
    for (byte[] request : requests) {
      List<Integer> offsets = new ArrayList<>();
      try {
        findTraceIds(CodedInputStream.newInstance(request), path, 0, offsets);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      for (int offset : offsets) {
        long high = readLong(request, offset - 8);
        Long low = lowByHigh.putIfAbsent(high, readLong(request, offset));
        if (high == 0 || (low != null && low != readLong(request, offset))) {
          throw new IllegalStateException(
              "trace IDs whose first 8 bytes are zero or shared by two traces cannot be renewed");
        }
      }
      all.add(offsets.stream().mapToInt(Integer::intValue).toArray());
    }
    return List.copyOf(all);
  }

  /** Adds where the last 8 bytes of each 16-byte field at the end of {@code path} begin. */
  private static void findTraceIds(
      CodedInputStream in, int[] path, int depth, List<Integer> offsets) throws IOException {
    while (!in.isAtEnd()) {
      int tag = in.readTag();
      if (WireFormat.getTagFieldNumber(tag) != path[depth]
          || WireFormat.getTagWireType(tag) != WireFormat.WIRETYPE_LENGTH_DELIMITED) {
        in.skipField(tag);
        continue;
      }
      int length = in.readRawVarint32();
      if (depth == path.length - 1) {
        if (length == 16) {
          offsets.add(in.getTotalBytesRead() + 8);
        }
        in.skipRawBytes(length);
      } else {
        int limit = in.pushLimit(length);
        findTraceIds(in, path, depth + 1, offsets);
        in.popLimit(limit);
      }
    }
  }

  private static long readLong(byte[] bytes, int offset) {
    long value = 0;
    for (int b = 0; b < 8; b++) {
      value = value << 8 | (bytes[offset + b] & 0xFF);
    }
    return value;
  }
}
