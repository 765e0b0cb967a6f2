package dev.sluice.exporter.kafka;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.BatchView;
import dev.sluice.pdata.PartKey;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import java.nio.charset.StandardCharsets;

/**
 * Groups a batch per record key, as the Collector's exporter does with its partitioning switches,
 * and sends each group as its own keyed records: traces per trace ID (the key is the ID in 32
 * lower-case hex characters, as the Collector writes it), logs and metrics per resource (the key is
 * the Collector's 16-byte hash of the resource's attributes, {@link GoMapHash}). Grouping goes
 * through {@link Batch#partitionInto}: the shared batch is not changed, and runs of items of one
 * key move as one slice. One per sending thread at a time; its tables are reused.
 */
final class KeyedParts {
  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
  private static final int HEX_TRACE_ID_CHARS = 32;

  private final KeyTable keys = new KeyTable();
  private final BatchView views = new BatchView();
  private final GoMapHash resourceHash = new GoMapHash();
  private final PartKey byTraceId =
      item -> keys.find(item.span().traceIdHigh(), item.span().traceIdLow());
  private final PartKey byResource = this::resourcePart;
  // The resource block looked at last, so that each block is hashed once.
  private OtlpIndex lastRequest;
  private int lastResource = -1;
  private int lastPart;

  /** A batch of this batch's items, that the caller owns and clears. */
  static Batch copyOf(Batch batch) {
    Batch[] whole = {new Batch(batch.signal())};
    batch.partitionInto(whole, item -> 0);
    return whole[0];
  }

  /** Sends {@code batch}, unchanged, as records keyed per trace ID or per resource. */
  void send(Batch batch, RecordSplitter splitter, RecordSink sink) {
    keys.clear();
    // Part numbers are per batch: a block remembered from another batch must be hashed again.
    lastRequest = null;
    lastResource = -1;
    Batch[] parts;
    if (batch.signal() == Signal.TRACES) {
      views.forEachSpan(
          batch, (resource, scope, span) -> keys.numberOf(span.traceIdHigh(), span.traceIdLow()));
      // Blocks without units go to part 0, so there is one even for a batch of none.
      parts = newParts(batch.signal(), Math.max(1, keys.count()));
      batch.partitionInto(parts, byTraceId);
    } else {
      // At most one resource per slice: a part for each is enough.
      parts = newParts(batch.signal(), Math.max(1, batch.sliceCount()));
      batch.partitionInto(parts, byResource);
    }
    for (int i = 0; i < parts.length; i++) {
      if (i >= keys.count() || !sink.accepting()) {
        parts[i].clear();
        continue;
      }
      byte[] key =
          batch.signal() == Signal.TRACES
              ? hexTraceId(keys.high(i), keys.low(i))
              : GoMapHash.bytes(keys.high(i), keys.low(i));
      splitter.sendSplit(parts[i], key, sink);
    }
  }

  /** Lets go of the requests the last batch pointed at. */
  void release() {
    keys.release();
    lastRequest = null;
    lastResource = -1;
  }

  private int resourcePart(BatchItem item) {
    if (item.request() != lastRequest || item.resource() != lastResource) {
      lastRequest = item.request();
      lastResource = item.resource();
      resourceHash.hash(item.resourceView());
      lastPart = keys.numberOf(resourceHash.high(), resourceHash.low());
    }
    return lastPart;
  }

  private static Batch[] newParts(Signal signal, int count) {
    Batch[] parts = new Batch[count];
    for (int i = 0; i < count; i++) {
      parts[i] = new Batch(signal);
    }
    return parts;
  }

  /**
   * The trace ID as the Collector writes it: 32 lower-case hex characters, big-endian; empty for
   * the all-zero (invalid) ID.
   */
  static byte[] hexTraceId(long high, long low) {
    if (high == 0 && low == 0) {
      // An empty (invalid) trace ID: the Collector writes an empty key.
      return new byte[0];
    }
    byte[] hex = new byte[HEX_TRACE_ID_CHARS];
    writeHex(high, hex, 0);
    writeHex(low, hex, HEX_TRACE_ID_CHARS / 2);
    return hex;
  }

  private static void writeHex(long value, byte[] hex, int offset) {
    for (int i = 0; i < 16; i++) {
      hex[offset + i] = HEX[(int) (value >>> (60 - 4 * i)) & 0xF];
    }
  }
}
