package dev.sluice.bench.load;

import com.google.protobuf.MessageLite;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import java.util.ArrayList;
import java.util.List;

/**
 * The distinct requests a load generator sends, encoded once: it cycles through them and re-sends
 * the bytes. Every request holds the same number of items (spans, log records or metric data
 * points), counted here with the {@link OtlpIndexer} as the collector counts them.
 *
 * @param signal traces, metrics or logs
 * @param description the shape, for summaries
 * @param requests the encoded requests
 * @param itemsPerRequest items in each request
 */
public record Workload(
    Signal signal, String description, List<byte[]> requests, long itemsPerRequest) {

  /** The settings a workload is made from. */
  public record Spec(
      Signal signal,
      RequestShapes.SpanShape shape,
      int items,
      int metrics,
      int pointsPerMetric,
      int distinct,
      long seed) {
    public Spec {
      if (items <= 0 || metrics <= 0 || pointsPerMetric <= 0 || distinct <= 0) {
        throw new IllegalArgumentException("counts must be positive");
      }
    }

    public String describe() {
      return switch (signal) {
        case TRACES -> items + " " + shape.label() + " spans per request";
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
    return new Workload(spec.signal(), spec.describe(), List.copyOf(requests), items);
  }

  /** The request made from {@code seed}. */
  public static MessageLite message(Spec spec, long seed) {
    return switch (spec.signal()) {
      case TRACES -> RequestShapes.traces(spec.shape(), spec.items(), seed);
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
}
