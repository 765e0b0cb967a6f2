package dev.sluice.pdata.codec;

import static dev.sluice.pdata.codec.OtlpIndex.D_COLUMNS;
import static dev.sluice.pdata.codec.OtlpIndex.G_COLUMNS;
import static dev.sluice.pdata.codec.OtlpIndex.ITEM_COLUMNS;
import static dev.sluice.pdata.codec.OtlpIndex.METRIC_COLUMNS;
import static dev.sluice.pdata.codec.OtlpIndex.R_COLUMNS;
import static dev.sluice.pdata.codec.OtlpIndex.S_COLUMNS;

import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.MalformedOtlpException.Kind;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.internal.HeaderHash;
import dev.sluice.pdata.internal.IndexBudget;
import dev.sluice.pdata.internal.IndexLimits;
import dev.sluice.pdata.internal.IntTable;
import dev.sluice.pdata.internal.Internal;
import dev.sluice.pdata.internal.LongList;
import dev.sluice.pdata.internal.MessageSchema;
import dev.sluice.pdata.internal.MessageTable;
import dev.sluice.pdata.internal.OtlpFields.Metric;
import dev.sluice.pdata.internal.OtlpFields.MetricData;
import dev.sluice.pdata.internal.OtlpFields.Request;
import dev.sluice.pdata.internal.OtlpFields.ResourceBlock;
import dev.sluice.pdata.internal.OtlpFields.ScopeBlock;
import dev.sluice.pdata.internal.OtlpSchema;
import dev.sluice.pdata.internal.WireType;
import dev.sluice.pdata.internal.WireValidator;

/**
 * Validates an OTLP export request completely and indexes it in one walk over its bytes.
 *
 * <p>Checks: tags (field number above 0, a wire type that exists), the wire type of every known
 * field, every length inside its enclosing message, varints of at most 10 bytes, UTF-8 in string
 * fields, trace and span ID lengths (16 and 8 bytes, or empty), the nesting depth and the request
 * size. Unknown fields are checked for well-formedness and kept in the bytes. The first problem
 * rejects the whole request with a {@link MalformedOtlpException} naming the field path and the
 * byte offset (from the start of the request).
 *
 * <p>Not thread-safe: one indexer per thread. Its scratch tables are reused, so after warm-up a
 * request costs a fixed number of allocations (the exact-size tables of the {@link OtlpIndex}).
 */
public final class OtlpIndexer {
  private static final int RESOURCE_BLOCK_TAG = WireType.tag(Request.RESOURCE_BLOCKS, WireType.LEN);
  private static final int SCOPE_BLOCK_TAG = WireType.tag(ResourceBlock.SCOPE_BLOCKS, WireType.LEN);
  private static final int ITEM_TAG = WireType.tag(ScopeBlock.ITEMS, WireType.LEN);
  private static final int DATA_POINT_TAG = WireType.tag(MetricData.DATA_POINTS, WireType.LEN);

  // Depths of the outer levels; items' fields are at ITEM + 1 and below.
  private static final int REQUEST = 0;
  private static final int RESOURCE_BLOCK = 1;
  private static final int SCOPE_BLOCK = 2;
  private static final int ITEM = 3;
  private static final int METRIC_DATA = 4;
  private static final int DATA_POINT = 5;

  private static final MessageTable METRIC = MessageTable.of(OtlpSchema.METRIC);

  private final IndexLimits limits;
  private final WireValidator validator;
  private byte[] bytes;

  // Index under construction, within its budget.
  private final IndexBudget budget = new IndexBudget();
  private final IntTable resources = new IntTable(R_COLUMNS, 16, budget);
  private final LongList resourceHashes = new LongList(budget);
  private final IntTable scopes = new IntTable(S_COLUMNS, 16, budget);
  private final LongList scopeHashes = new LongList(budget);
  private final IntTable segments = new IntTable(G_COLUMNS, 64, budget);
  private IntTable items = new IntTable(ITEM_COLUMNS, 1024, budget);
  private final IntTable basicItems = items;
  private final IntTable metricItems = new IntTable(METRIC_COLUMNS, 256, budget);
  private final IntTable dataPoints = new IntTable(D_COLUMNS, 1024, budget);
  private long units;

  // Header fields met while walking a block, moved to `segments` when the block ends so that
  // each header's segments are adjacent even where child blocks sit between its fields. Cleared
  // once moved, so that the budget counts only the headers of the blocks being walked.
  private final IntTable resourceHeader = new IntTable(G_COLUMNS, 8, budget);
  private final IntTable scopeHeader = new IntTable(G_COLUMNS, 8, budget);
  private final IntTable metricHeader = new IntTable(G_COLUMNS, 8, budget);
  private final IntTable dataHeader = new IntTable(G_COLUMNS, 8, budget);

  public OtlpIndexer() {
    this(IndexLimits.DEFAULT);
  }

  @Internal
  public OtlpIndexer(IndexLimits limits) {
    this.limits = limits;
    this.validator = new WireValidator(limits.maxNestingDepth());
  }

  @Internal
  public IndexLimits limits() {
    return limits;
  }

  /** Validates and indexes a whole array holding one request. */
  public OtlpIndex index(Signal signal, byte[] request) throws MalformedOtlpException {
    return index(signal, request, 0, request.length);
  }

  /**
   * Validates and indexes {@code request[offset, offset + length)}, an {@code
   * Export*ServiceRequest} of the given signal. The caller hands the bytes over: they must not be
   * written while the index or any slice of it is in use.
   */
  public OtlpIndex index(Signal signal, byte[] request, int offset, int length)
      throws MalformedOtlpException {
    if (offset < 0 || length < 0 || offset > request.length - length) {
      throw new IllegalArgumentException(
          "range ["
              + offset
              + ", "
              + offset
              + " + "
              + length
              + ") is outside an array of "
              + request.length);
    }
    limits.checkRequestBytes(length);
    reset(signal);
    budget.begin(offset, length);
    bytes = request;
    validator.begin(request, offset, signal.request());
    try {
      walkRequest(signal, offset, offset + length);
      if (!validator.recordedStringsValid()) {
        // Some string is not UTF-8: walk again checking strings in place, which names it.
        reset(signal);
        validator.begin(request, offset, signal.request());
        validator.checkStringsInPlace(true);
        walkRequest(signal, offset, offset + length);
        throw new IllegalStateException("invalid UTF-8 found, then not found again");
      }
    } catch (MalformedOtlpException e) {
      String path = validator.errorDepth() < 0 ? "" : validator.path(request, (int) e.offset());
      throw new MalformedOtlpException(path, e.offset() - offset, e.kind(), e.reason());
    } finally {
      validator.checkStringsInPlace(false);
      validator.end();
      bytes = null;
    }
    return new OtlpIndex(
        signal,
        request,
        offset,
        length,
        resources.copy(),
        resourceHashes.copy(),
        scopes.copy(),
        scopeHashes.copy(),
        segments.copy(),
        items.copy(),
        dataPoints.copy(),
        units);
  }

  private void reset(Signal signal) {
    resources.clear();
    resourceHashes.clear();
    scopes.clear();
    scopeHashes.clear();
    segments.clear();
    items = signal == Signal.METRICS ? metricItems : basicItems;
    items.clear();
    dataPoints.clear();
    resourceHeader.clear();
    scopeHeader.clear();
    metricHeader.clear();
    dataHeader.clear();
    units = 0;
  }

  // The outer levels: request, resource blocks, scope blocks, items. Fields the index does not
  // record are checked by the validator; these walks only pick out the structure.

  private void walkRequest(Signal signal, int p, int end) throws MalformedOtlpException {
    MessageTable table = MessageTable.of(signal.request());
    WireValidator v = validator;
    while (p < end) {
      if (v.tagAt(p, end, REQUEST) == RESOURCE_BLOCK_TAG) {
        int length = v.lengthAt(v.valueStart(), end, REQUEST);
        int start = v.lengthEnd();
        v.enter(MessageTable.of(signal.resourceBlock()), p, start, REQUEST);
        walkResourceBlock(signal, start, start + length);
        p = start + length;
      } else {
        p = v.field(table, p, end, REQUEST);
      }
    }
  }

  private void walkResourceBlock(Signal signal, int p, int end) throws MalformedOtlpException {
    MessageTable table = MessageTable.of(signal.resourceBlock());
    WireValidator v = validator;
    int resource = resources.rows();
    int firstScope = scopes.rows();
    resourceHeader.clear();
    while (p < end) {
      int tag = v.tagAt(p, end, RESOURCE_BLOCK);
      if (tag == SCOPE_BLOCK_TAG) {
        int length = v.lengthAt(v.valueStart(), end, RESOURCE_BLOCK);
        int start = v.lengthEnd();
        v.enter(MessageTable.of(signal.scopeBlock()), p, start, RESOURCE_BLOCK);
        walkScopeBlock(signal, resource, start, start + length);
        p = start + length;
      } else {
        int fieldEnd = v.field(table, p, end, RESOURCE_BLOCK);
        addSegment(resourceHeader, p, fieldEnd, tag);
        p = fieldEnd;
      }
    }
    int segFirst = segments.rows();
    int segCount = resourceHeader.rows();
    int headerBytes = moveSegments(resourceHeader);
    int row = resources.addRow();
    int[] r = resources.data;
    r[row + OtlpIndex.R_SEG_FIRST] = segFirst;
    r[row + OtlpIndex.R_SEG_COUNT] = segCount;
    r[row + OtlpIndex.R_HEADER_BYTES] = headerBytes;
    r[row + OtlpIndex.R_FIRST_SCOPE] = firstScope;
    r[row + OtlpIndex.R_SCOPE_COUNT] = scopes.rows() - firstScope;
    resourceHashes.add(hashSegments(segFirst, segCount));
    blockEnd(resourceHeader);
  }

  private void walkScopeBlock(Signal signal, int resource, int p, int end)
      throws MalformedOtlpException {
    MessageTable table = MessageTable.of(signal.scopeBlock());
    MessageTable itemTable = MessageTable.of(signal.item());
    WireValidator v = validator;
    int firstItem = items.rows();
    boolean contiguous = true;
    int previousEnd = -1;
    scopeHeader.clear();
    while (p < end) {
      int tag = v.tagAt(p, end, SCOPE_BLOCK);
      if (tag == ITEM_TAG) {
        int length = v.lengthAt(v.valueStart(), end, SCOPE_BLOCK);
        int start = v.lengthEnd();
        int itemEnd = start + length;
        v.enter(itemTable, p, start, SCOPE_BLOCK);
        if (signal == Signal.METRICS) {
          walkMetric(p, start, itemEnd);
        } else {
          v.message(itemTable, start, itemEnd, ITEM);
          int row = items.addRow();
          items.data[row + OtlpIndex.I_START] = p;
          items.data[row + OtlpIndex.I_END] = itemEnd;
          items.data[row + OtlpIndex.I_MARKS] = v.lastSpanCommon() ? OtlpIndex.COMMON_SPAN : 0;
          units++;
        }
        contiguous &= previousEnd < 0 || previousEnd == p;
        previousEnd = itemEnd;
        p = itemEnd;
      } else {
        int fieldEnd = v.field(table, p, end, SCOPE_BLOCK);
        addSegment(scopeHeader, p, fieldEnd, tag);
        p = fieldEnd;
      }
    }
    int segFirst = segments.rows();
    int segCount = scopeHeader.rows();
    int headerBytes = moveSegments(scopeHeader);
    int row = scopes.addRow();
    int[] s = scopes.data;
    s[row + OtlpIndex.S_SEG_FIRST] = segFirst;
    s[row + OtlpIndex.S_SEG_COUNT] = segCount;
    s[row + OtlpIndex.S_HEADER_BYTES] = headerBytes;
    s[row + OtlpIndex.S_FIRST_ITEM] = firstItem;
    s[row + OtlpIndex.S_ITEM_COUNT] = items.rows() - firstItem;
    s[row + OtlpIndex.S_RESOURCE] = resource;
    s[row + OtlpIndex.S_CONTIGUOUS] = contiguous ? 1 : 0;
    scopeHashes.add(hashSegments(segFirst, segCount));
    blockEnd(scopeHeader);
  }

  /**
   * A metric: its header fields, its one data message (gauge, sum, histogram, exponential histogram
   * or summary) with that message's own header fields, and the data points.
   */
  private void walkMetric(int itemStart, int p, int end) throws MalformedOtlpException {
    WireValidator v = validator;
    long unitsBefore = units;
    int dataField = 0;
    int dpFirst = dataPoints.rows();
    boolean dpContiguous = true;
    metricHeader.clear();
    dataHeader.clear();
    while (p < end) {
      int tag = v.tagAt(p, end, ITEM);
      int number = tag >>> 3;
      if (!Metric.isData(number) || (tag & 7) != WireType.LEN) {
        int fieldEnd = v.field(METRIC, p, end, ITEM);
        addSegment(metricHeader, p, fieldEnd, tag);
        p = fieldEnd;
        continue;
      }
      if (dataField != 0) {
        throw v.fail(
            p,
            Kind.DATA_MESSAGES,
            "a metric holds one data message, found "
                + OtlpSchema.METRIC.field(number).name()
                + " after "
                + OtlpSchema.METRIC.field(dataField).name(),
            ITEM);
      }
      dataField = number;
      MessageSchema dataSchema = OtlpSchema.METRIC.field(number).message();
      MessageTable dataTable = MessageTable.of(dataSchema);
      MessageSchema pointSchema = dataSchema.field(MetricData.DATA_POINTS).message();
      MessageTable pointTable = MessageTable.of(pointSchema);
      int length = v.lengthAt(v.valueStart(), end, ITEM);
      int q = v.lengthEnd();
      int dataEnd = q + length;
      v.enter(dataTable, p, q, ITEM);
      int previousEnd = -1;
      while (q < dataEnd) {
        int pointTag = v.tagAt(q, dataEnd, METRIC_DATA);
        if (pointTag == DATA_POINT_TAG) {
          int pointLength = v.lengthAt(v.valueStart(), dataEnd, METRIC_DATA);
          int pointStart = v.lengthEnd();
          int pointEnd = pointStart + pointLength;
          v.enter(pointTable, q, pointStart, METRIC_DATA);
          v.message(pointTable, pointStart, pointEnd, DATA_POINT);
          int row = dataPoints.addRow();
          dataPoints.data[row + OtlpIndex.D_START] = q;
          dataPoints.data[row + OtlpIndex.D_END] = pointEnd;
          dpContiguous &= previousEnd < 0 || previousEnd == q;
          previousEnd = pointEnd;
          q = pointEnd;
        } else {
          int fieldEnd = v.field(dataTable, q, dataEnd, METRIC_DATA);
          addSegment(dataHeader, q, fieldEnd, pointTag);
          q = fieldEnd;
        }
      }
      p = dataEnd;
    }
    int metricSegFirst = segments.rows();
    int metricSegCount = metricHeader.rows();
    int metricHeaderBytes = moveSegments(metricHeader);
    int dataSegFirst = segments.rows();
    int dataSegCount = dataHeader.rows();
    int dataHeaderBytes = moveSegments(dataHeader);
    int row = items.addRow();
    int[] m = items.data;
    m[row + OtlpIndex.I_START] = itemStart;
    m[row + OtlpIndex.I_END] = end;
    m[row + OtlpIndex.M_UNITS_BEFORE] = (int) unitsBefore;
    m[row + OtlpIndex.M_SEG_FIRST] = metricSegFirst;
    m[row + OtlpIndex.M_SEG_COUNT] = metricSegCount;
    m[row + OtlpIndex.M_HEADER_BYTES] = metricHeaderBytes;
    m[row + OtlpIndex.M_DATA_FIELD] = dataField;
    m[row + OtlpIndex.M_DATA_SEG_FIRST] = dataSegFirst;
    m[row + OtlpIndex.M_DATA_SEG_COUNT] = dataSegCount;
    m[row + OtlpIndex.M_DATA_HEADER_BYTES] = dataHeaderBytes;
    m[row + OtlpIndex.M_DP_FIRST] = dpFirst;
    m[row + OtlpIndex.M_DP_CONTIGUOUS] = dpContiguous ? 1 : 0;
    units += dataPoints.rows() - dpFirst;
    budget.check();
    metricHeader.clear();
    dataHeader.clear();
  }

  /**
   * Checks the budget at the end of a block, its header both moved and still held (the most the
   * block's rows ever counted), then lets the header go.
   */
  private void blockEnd(IntTable header) throws MalformedOtlpException {
    budget.check();
    header.clear();
  }

  private void addSegment(IntTable header, int fieldStart, int fieldEnd, int tag)
      throws MalformedOtlpException {
    int row = header.addRow();
    header.data[row + OtlpIndex.G_OFFSET] = fieldStart;
    header.data[row + OtlpIndex.G_LENGTH] = fieldEnd - fieldStart;
    header.data[row + OtlpIndex.G_FIELD] = tag >>> 3;
  }

  /** Appends a block's header segments to the index; returns their total length. */
  private int moveSegments(IntTable header) throws MalformedOtlpException {
    int total = 0;
    for (int i = 0; i < header.rows(); i++) {
      int row = segments.addRow();
      for (int c = 0; c < G_COLUMNS; c++) {
        segments.data[row + c] = header.get(i, c);
      }
      total += header.get(i, OtlpIndex.G_LENGTH);
    }
    return total;
  }

  private long hashSegments(int first, int count) {
    long hash = HeaderHash.SEED;
    for (int s = first; s < first + count; s++) {
      hash =
          HeaderHash.update(
              hash,
              bytes,
              segments.get(s, OtlpIndex.G_OFFSET),
              segments.get(s, OtlpIndex.G_LENGTH));
    }
    return hash;
  }
}
