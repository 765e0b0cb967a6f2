package dev.sluice.pdata.internal;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import dev.sluice.pdata.Signal;
import io.opentelemetry.proto.metrics.v1.Metric;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * A reference model of {@link Batch} and {@link OtlpMarshaler} over protobuf-java messages, written
 * from their documented behaviour: slices are runs of one scope block's items (or a resource block
 * without scope blocks); {@code moveTo} moves whole slices while they fit and then cuts at most one
 * slice, every item that ends at or before the cut going to the head; marshaling writes adjacent
 * slices with byte-equal resource headers as one resource block and, within it, adjacent slices
 * with byte-equal scope headers as one scope block.
 */
final class BatchModel {
  /**
   * A run of items; {@code scopeHeader} is null for a resource block without scope blocks. Headers
   * are blocks without their children, compared by their bytes.
   */
  record ModelSlice(
      Message resourceHeader,
      ByteString resourceBytes,
      Message scopeHeader,
      ByteString scopeBytes,
      List<ModelItem> items) {
    ModelSlice(Message resourceHeader, Message scopeHeader, List<ModelItem> items) {
      this(
          resourceHeader,
          resourceHeader.toByteString(),
          scopeHeader,
          scopeHeader == null ? null : scopeHeader.toByteString(),
          items);
    }

    ModelSlice withItems(List<ModelItem> newItems) {
      return new ModelSlice(resourceHeader, resourceBytes, scopeHeader, scopeBytes, newItems);
    }

    long units() {
      long units = 0;
      for (ModelItem item : items) {
        units += item.units();
      }
      return units;
    }
  }

  /**
   * A span or log record ({@code from = 0, to = 1}), or data points {@code [from, to)} of a metric
   * (a metric without data points has {@code from = to = 0}).
   */
  record ModelItem(Signal signal, Message message, int from, int to) {
    long units() {
      return to - from;
    }

    Message materialize() {
      if (signal != Signal.METRICS) {
        return message;
      }
      return RequestTree.withDataPoints((Metric) message, from, to);
    }
  }

  /** What the operations did, so that tests can check that their cases cover what they should. */
  static final class Stats {
    /** Slices cut in two by {@code moveTo}. */
    long sliceCuts;

    /** Metrics cut between data points by {@code moveTo}. */
    long metricCuts;

    /** Blocks written as one that came from different resource blocks of the requests. */
    long coalescedResourceBlocks;

    /** Blocks written as one that came from different scope blocks of the requests. */
    long coalescedScopeBlocks;
  }

  private final Signal signal;
  private final Stats stats;
  private final Deque<ModelSlice> slices = new ArrayDeque<>();

  BatchModel(Signal signal, Stats stats) {
    this.signal = signal;
    this.stats = stats;
  }

  static BatchModel of(Signal signal, Message request, Stats stats) {
    BatchModel model = new BatchModel(signal, stats);
    model.add(request);
    return model;
  }

  void add(Message request) {
    for (Message resource : RequestTree.resourceBlocks(request)) {
      Message resourceHeader = RequestTree.header(resource);
      List<Message> scopes = RequestTree.scopeBlocks(resource);
      if (scopes.isEmpty()) {
        slices.add(new ModelSlice(resourceHeader, null, List.of()));
      }
      for (Message scope : scopes) {
        List<ModelItem> items = new ArrayList<>();
        for (Message item : RequestTree.items(scope)) {
          items.add(new ModelItem(signal, item, 0, signal == Signal.METRICS ? units(item) : 1));
        }
        slices.add(new ModelSlice(resourceHeader, RequestTree.header(scope), items));
      }
    }
  }

  private int units(Message item) {
    return RequestTree.units(signal, item);
  }

  long unitCount() {
    long units = 0;
    for (ModelSlice slice : slices) {
      units += slice.units();
    }
    return units;
  }

  int sliceCount() {
    return slices.size();
  }

  void addAll(BatchModel other) {
    slices.addAll(other.slices);
    other.slices.clear();
  }

  long moveTo(BatchModel destination, long maxUnits) {
    long remaining = maxUnits;
    long moved = 0;
    while (!slices.isEmpty() && slices.peekFirst().units() <= remaining) {
      ModelSlice slice = slices.removeFirst();
      remaining -= slice.units();
      moved += slice.units();
      destination.slices.addLast(slice);
    }
    if (remaining > 0 && !slices.isEmpty()) {
      stats.sliceCuts++;
      ModelSlice slice = slices.removeFirst();
      List<ModelItem> head = new ArrayList<>();
      List<ModelItem> tail = new ArrayList<>();
      long start = 0;
      for (ModelItem item : slice.items()) {
        long end = start + item.units();
        if (end <= remaining) {
          head.add(item);
        } else if (start >= remaining) {
          tail.add(item);
        } else {
          stats.metricCuts++;
          int cut = item.from() + (int) (remaining - start);
          head.add(new ModelItem(signal, item.message(), item.from(), cut));
          tail.add(new ModelItem(signal, item.message(), cut, item.to()));
        }
        start = end;
      }
      destination.slices.addLast(new ModelSlice(slice.resourceHeader(), slice.scopeHeader(), head));
      slices.addFirst(new ModelSlice(slice.resourceHeader(), slice.scopeHeader(), tail));
      moved += remaining;
    }
    return moved;
  }

  /**
   * What the marshaler writes for the slices, as protobuf-java would build it. Headers are new
   * objects for every block of a request, so a block made of slices with different header objects
   * coalesced blocks of the requests.
   */
  Message marshal() {
    List<ModelSlice> list = new ArrayList<>(slices);
    List<Message> resourceBlocks = new ArrayList<>();
    int i = 0;
    while (i < list.size()) {
      ByteString resourceHeader = list.get(i).resourceBytes();
      int resourceEnd = i + 1;
      while (resourceEnd < list.size()
          && list.get(resourceEnd).resourceBytes().equals(resourceHeader)) {
        resourceEnd++;
      }
      if (distinctHeaders(list, i, resourceEnd, true) > 1) {
        stats.coalescedResourceBlocks++;
      }
      List<Message> scopeBlocks = new ArrayList<>();
      int k = i;
      while (k < resourceEnd) {
        ModelSlice first = list.get(k);
        if (first.scopeHeader() == null) {
          k++;
          continue;
        }
        ByteString scopeHeader = first.scopeBytes();
        List<Message> items = new ArrayList<>();
        int scopeEnd = k;
        // A metric that the previous slice ends inside and the next one begins inside again is
        // written once, with the points of both.
        ModelItem open = null;
        while (scopeEnd < resourceEnd && scopeHeader.equals(list.get(scopeEnd).scopeBytes())) {
          List<ModelItem> sliceItems = list.get(scopeEnd).items();
          for (int n = 0; n < sliceItems.size(); n++) {
            ModelItem item = sliceItems.get(n);
            if (n == 0 && open != null && open.message() == item.message() && item.from() > 0) {
              item = new ModelItem(signal, item.message(), open.from(), item.to());
              items.remove(items.size() - 1);
            }
            items.add(item.materialize());
            if (n == sliceItems.size() - 1) {
              boolean endsInside = signal == Signal.METRICS && item.to() < units(item.message());
              open = endsInside ? item : null;
            }
          }
          if (sliceItems.isEmpty()) {
            open = null;
          }
          scopeEnd++;
        }
        if (distinctHeaders(list, k, scopeEnd, false) > 1) {
          stats.coalescedScopeBlocks++;
        }
        scopeBlocks.add(RequestTree.block(first.scopeHeader(), items));
        k = scopeEnd;
      }
      resourceBlocks.add(RequestTree.block(list.get(i).resourceHeader(), scopeBlocks));
      i = resourceEnd;
    }
    return RequestTree.request(signal, resourceBlocks);
  }

  private static long distinctHeaders(List<ModelSlice> list, int from, int to, boolean resource) {
    Set<Message> headers = Collections.newSetFromMap(new IdentityHashMap<>());
    for (ModelSlice slice : list.subList(from, to)) {
      Message header = resource ? slice.resourceHeader() : slice.scopeHeader();
      if (header != null) {
        headers.add(header);
      }
    }
    return headers.size();
  }
}
