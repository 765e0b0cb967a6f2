package dev.sluice.pdata.internal;

import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.MalformedOtlpException.Kind;
import java.util.ArrayList;
import java.util.List;

/**
 * The memory an index may take, checked as its tables grow: at most {@link #BYTES_PER_REQUEST_BYTE}
 * bytes of rows per byte of the request plus {@link #FIXED_BYTES}.
 *
 * <p>Rows cost from 8 bytes (a span, a log record, a data point) to 48 (a metric), and the smallest
 * block is 2 bytes of input: without a budget, a request of empty scope blocks or metrics would
 * cost 18 to 24 bytes of index per byte. Realistic requests stay far below (a 400-byte span takes 8
 * bytes, a compact metric with one data point about 2). Together with tables that grow by chunks,
 * never by copying, this keeps what indexing allocates under 8 bytes per request byte.
 *
 * <p>The check runs when a table needs a new chunk and at the end of every block, over the rows in
 * use (never the capacity), so whether a request fits does not depend on what the indexer saw
 * before.
 */
public final class IndexBudget {
  static final int BYTES_PER_REQUEST_BYTE = 3;
  static final int FIXED_BYTES = 16 << 10;

  private final List<IntTable> tables = new ArrayList<>();
  private final List<LongList> lists = new ArrayList<>();
  private long limitBytes = Long.MAX_VALUE;
  private int requestBytes;
  private int requestStart;

  void register(IntTable table) {
    tables.add(table);
  }

  void register(LongList list) {
    lists.add(list);
  }

  /** Starts a request of {@code requestBytes} at {@code requestStart} of its array. */
  public void begin(int requestStart, int requestBytes) {
    this.requestStart = requestStart;
    this.requestBytes = requestBytes;
    this.limitBytes = limitFor(requestBytes);
  }

  static long limitFor(int requestBytes) {
    return (long) BYTES_PER_REQUEST_BYTE * requestBytes + FIXED_BYTES;
  }

  /** Bytes of the rows in use in every table. */
  long usedBytes() {
    long used = 0;
    for (int i = 0; i < tables.size(); i++) {
      used += tables.get(i).usedBytes();
    }
    for (int i = 0; i < lists.size(); i++) {
      used += lists.get(i).usedBytes();
    }
    return used;
  }

  public void check() throws MalformedOtlpException {
    long used = usedBytes();
    if (used > limitBytes) {
      throw new MalformedOtlpException(
          "",
          requestStart,
          Kind.LIMIT,
          "the index of this request needs more than "
              + used
              + " bytes, over the limit of "
              + limitBytes
              + " for "
              + requestBytes
              + " bytes ("
              + BYTES_PER_REQUEST_BYTE
              + " per byte + "
              + FIXED_BYTES
              + "): too many blocks, metrics or header fields for its size");
    }
  }
}
