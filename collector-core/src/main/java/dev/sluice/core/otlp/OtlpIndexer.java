package dev.sluice.core.otlp;

import static dev.sluice.core.otlp.OtlpIndex.D_COLUMNS;
import static dev.sluice.core.otlp.OtlpIndex.G_COLUMNS;
import static dev.sluice.core.otlp.OtlpIndex.ITEM_COLUMNS;
import static dev.sluice.core.otlp.OtlpIndex.METRIC_COLUMNS;
import static dev.sluice.core.otlp.OtlpIndex.R_COLUMNS;
import static dev.sluice.core.otlp.OtlpIndex.S_COLUMNS;

import dev.sluice.core.MalformedOtlpException;
import dev.sluice.core.otlp.OtlpFields.Metric;
import dev.sluice.core.otlp.OtlpFields.MetricData;
import dev.sluice.core.otlp.OtlpFields.Request;
import dev.sluice.core.otlp.OtlpFields.ResourceBlock;
import dev.sluice.core.otlp.OtlpFields.ScopeBlock;
import dev.sluice.core.wire.Utf8;
import dev.sluice.core.wire.WireReader;
import dev.sluice.core.wire.WireType;

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
  private final IndexLimits limits;
  private final WireReader in = new WireReader();
  private byte[] bytes;

  // The path of the field being read, one frame per message level, for error messages only.
  private final MessageSchema[] frameSchema;
  private final int[] frameStart;
  private final int[] frameField;
  private final int[] frameTag;
  private int depth;

  // Index under construction.
  private final IntTable resources = new IntTable(R_COLUMNS, 16);
  private final LongList resourceHashes = new LongList();
  private final IntTable scopes = new IntTable(S_COLUMNS, 16);
  private final LongList scopeHashes = new LongList();
  private final IntTable segments = new IntTable(G_COLUMNS, 64);
  private IntTable items = new IntTable(ITEM_COLUMNS, 1024);
  private final IntTable basicItems = items;
  private final IntTable metricItems = new IntTable(METRIC_COLUMNS, 256);
  private final IntTable dataPoints = new IntTable(D_COLUMNS, 1024);
  private long units;

  // Header fields met while walking a block, moved to `segments` when the block ends so that
  // each header's segments are adjacent even where child blocks sit between its fields.
  private final IntTable resourceHeader = new IntTable(G_COLUMNS, 8);
  private final IntTable scopeHeader = new IntTable(G_COLUMNS, 8);
  private final IntTable metricHeader = new IntTable(G_COLUMNS, 8);
  private final IntTable dataHeader = new IntTable(G_COLUMNS, 8);

  public OtlpIndexer() {
    this(IndexLimits.DEFAULT);
  }

  public OtlpIndexer(IndexLimits limits) {
    this.limits = limits;
    int frames = limits.maxNestingDepth() + 2;
    frameSchema = new MessageSchema[frames];
    frameStart = new int[frames];
    frameField = new int[frames];
    frameTag = new int[frames];
  }

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
    if (length > limits.maxRequestBytes()) {
      throw new MalformedOtlpException(
          "",
          0,
          "request of "
              + length
              + " bytes exceeds the limit of "
              + limits.maxRequestBytes()
              + " bytes");
    }
    reset(signal);
    bytes = request;
    in.wrap(request, offset, length);
    depth = 0;
    frameSchema[0] = signal.request();
    frameStart[0] = offset;
    try {
      walkRequest(signal, offset + length);
    } catch (MalformedOtlpException e) {
      throw new MalformedOtlpException(path(), e.offset() - offset, e.reason());
    } finally {
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
    units = 0;
  }

  // The outer levels: request, resource blocks, scope blocks, items.

  private void walkRequest(Signal signal, int end) throws MalformedOtlpException {
    MessageSchema schema = signal.request();
    while (in.position() < end) {
      int tag = readTag();
      if ((tag >>> 3) == Request.RESOURCE_BLOCKS) {
        int valueEnd = enterMessage(schema.field(Request.RESOURCE_BLOCKS), tag);
        walkResourceBlock(signal, valueEnd);
        exitMessage(end);
      } else {
        readField(schema, tag);
      }
    }
  }

  private void walkResourceBlock(Signal signal, int end) throws MalformedOtlpException {
    MessageSchema schema = signal.resourceBlock();
    int resource = resources.rows();
    int firstScope = scopes.rows();
    resourceHeader.clear();
    while (in.position() < end) {
      int fieldStart = in.position();
      int tag = readTag();
      if ((tag >>> 3) == ResourceBlock.SCOPE_BLOCKS) {
        int valueEnd = enterMessage(schema.field(ResourceBlock.SCOPE_BLOCKS), tag);
        walkScopeBlock(signal, resource, valueEnd);
        exitMessage(end);
      } else {
        readField(schema, tag);
        addSegment(resourceHeader, fieldStart, tag);
      }
    }
    int segFirst = segments.rows();
    int headerBytes = moveSegments(resourceHeader);
    int row = resources.addRow();
    int[] r = resources.data;
    r[row + OtlpIndex.R_SEG_FIRST] = segFirst;
    r[row + OtlpIndex.R_SEG_COUNT] = resourceHeader.rows();
    r[row + OtlpIndex.R_HEADER_BYTES] = headerBytes;
    r[row + OtlpIndex.R_FIRST_SCOPE] = firstScope;
    r[row + OtlpIndex.R_SCOPE_COUNT] = scopes.rows() - firstScope;
    resourceHashes.add(hashSegments(segFirst, resourceHeader.rows()));
  }

  private void walkScopeBlock(Signal signal, int resource, int end) throws MalformedOtlpException {
    MessageSchema schema = signal.scopeBlock();
    FieldSchema itemField = schema.field(ScopeBlock.ITEMS);
    int firstItem = items.rows();
    boolean contiguous = true;
    int previousEnd = -1;
    scopeHeader.clear();
    while (in.position() < end) {
      int fieldStart = in.position();
      int tag = readTag();
      if ((tag >>> 3) == ScopeBlock.ITEMS) {
        int valueEnd = enterMessage(itemField, tag);
        if (signal == Signal.METRICS) {
          walkMetric(fieldStart, valueEnd);
        } else {
          walkFields(itemField.message(), valueEnd);
          int row = items.addRow();
          items.data[row + OtlpIndex.I_START] = fieldStart;
          items.data[row + OtlpIndex.I_END] = valueEnd;
          units++;
        }
        exitMessage(end);
        contiguous &= previousEnd < 0 || previousEnd == fieldStart;
        previousEnd = in.position();
      } else {
        readField(schema, tag);
        addSegment(scopeHeader, fieldStart, tag);
      }
    }
    int segFirst = segments.rows();
    int headerBytes = moveSegments(scopeHeader);
    int row = scopes.addRow();
    int[] s = scopes.data;
    s[row + OtlpIndex.S_SEG_FIRST] = segFirst;
    s[row + OtlpIndex.S_SEG_COUNT] = scopeHeader.rows();
    s[row + OtlpIndex.S_HEADER_BYTES] = headerBytes;
    s[row + OtlpIndex.S_FIRST_ITEM] = firstItem;
    s[row + OtlpIndex.S_ITEM_COUNT] = items.rows() - firstItem;
    s[row + OtlpIndex.S_RESOURCE] = resource;
    s[row + OtlpIndex.S_CONTIGUOUS] = contiguous ? 1 : 0;
    scopeHashes.add(hashSegments(segFirst, scopeHeader.rows()));
  }

  /**
   * A metric: its header fields, its one data message (gauge, sum, histogram, exponential histogram
   * or summary) with that message's own header fields, and the data points.
   */
  private void walkMetric(int itemStart, int end) throws MalformedOtlpException {
    MessageSchema schema = OtlpSchema.METRIC;
    long unitsBefore = units;
    int dataField = 0;
    int dpFirst = dataPoints.rows();
    boolean dpContiguous = true;
    metricHeader.clear();
    dataHeader.clear();
    while (in.position() < end) {
      int fieldStart = in.position();
      int tag = readTag();
      int number = tag >>> 3;
      if (Metric.isData(number) && (tag & 7) == WireType.LEN) {
        if (dataField != 0) {
          throw new MalformedOtlpException(
              "",
              fieldStart,
              "a metric holds one data message, found "
                  + schema.field(number).name()
                  + " after "
                  + schema.field(dataField).name());
        }
        dataField = number;
        FieldSchema field = schema.field(number);
        int valueEnd = enterMessage(field, tag);
        MessageSchema dataSchema = field.message();
        FieldSchema pointField = dataSchema.field(MetricData.DATA_POINTS);
        int previousEnd = -1;
        while (in.position() < valueEnd) {
          int pointStart = in.position();
          int pointTag = readTag();
          if ((pointTag >>> 3) == MetricData.DATA_POINTS) {
            int pointEnd = enterMessage(pointField, pointTag);
            walkFields(pointField.message(), pointEnd);
            exitMessage(valueEnd);
            int row = dataPoints.addRow();
            dataPoints.data[row + OtlpIndex.D_START] = pointStart;
            dataPoints.data[row + OtlpIndex.D_END] = pointEnd;
            dpContiguous &= previousEnd < 0 || previousEnd == pointStart;
            previousEnd = pointEnd;
          } else {
            readField(dataSchema, pointTag);
            addSegment(dataHeader, pointStart, pointTag);
          }
        }
        exitMessage(end);
      } else {
        readField(schema, tag);
        addSegment(metricHeader, fieldStart, tag);
      }
    }
    int metricSegFirst = segments.rows();
    int metricHeaderBytes = moveSegments(metricHeader);
    int dataSegFirst = segments.rows();
    int dataHeaderBytes = moveSegments(dataHeader);
    int row = items.addRow();
    int[] m = items.data;
    m[row + OtlpIndex.I_START] = itemStart;
    m[row + OtlpIndex.I_END] = end;
    m[row + OtlpIndex.M_UNITS_BEFORE] = (int) unitsBefore;
    m[row + OtlpIndex.M_SEG_FIRST] = metricSegFirst;
    m[row + OtlpIndex.M_SEG_COUNT] = metricHeader.rows();
    m[row + OtlpIndex.M_HEADER_BYTES] = metricHeaderBytes;
    m[row + OtlpIndex.M_DATA_FIELD] = dataField;
    m[row + OtlpIndex.M_DATA_SEG_FIRST] = dataSegFirst;
    m[row + OtlpIndex.M_DATA_SEG_COUNT] = dataHeader.rows();
    m[row + OtlpIndex.M_DATA_HEADER_BYTES] = dataHeaderBytes;
    m[row + OtlpIndex.M_DP_FIRST] = dpFirst;
    m[row + OtlpIndex.M_DP_CONTIGUOUS] = dpContiguous ? 1 : 0;
    units += dataPoints.rows() - dpFirst;
  }

  private void addSegment(IntTable header, int fieldStart, int tag) {
    int row = header.addRow();
    header.data[row + OtlpIndex.G_OFFSET] = fieldStart;
    header.data[row + OtlpIndex.G_LENGTH] = in.position() - fieldStart;
    header.data[row + OtlpIndex.G_FIELD] = tag >>> 3;
  }

  /** Appends a block's header segments to the index; returns their total length. */
  private int moveSegments(IntTable header) {
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

  // The generic walk, driven by the schema.

  /** Validates the fields of a message whose bytes end at {@code end}. */
  private void walkFields(MessageSchema schema, int end) throws MalformedOtlpException {
    while (in.position() < end) {
      readField(schema, readTag());
    }
  }

  private int readTag() throws MalformedOtlpException {
    int d = depth;
    frameField[d] = 0;
    int start = in.position();
    int tag = in.readTag();
    frameField[d] = tag >>> 3;
    frameTag[d] = start;
    return tag;
  }

  /** Validates the value of a field whose tag was just read. */
  private void readField(MessageSchema schema, int tag) throws MalformedOtlpException {
    int wireType = tag & 7;
    FieldSchema field = schema.field(tag >>> 3);
    if (field == null) {
      in.skipValue(tag, limits.maxNestingDepth() - depth);
      return;
    }
    FieldKind kind = field.kind();
    if (wireType != kind.wireType()) {
      if (wireType == WireType.LEN && field.isPacked()) {
        readPacked(kind);
        return;
      }
      throw wrongWireType(field, wireType);
    }
    switch (kind) {
      case STRING:
        {
          int length = in.readLength();
          int start = in.position();
          int invalid = Utf8.firstInvalid(bytes, start, start + length);
          if (invalid >= 0) {
            throw new MalformedOtlpException("", invalid, "invalid UTF-8");
          }
          in.position(start + length);
          return;
        }
      case BYTES:
        {
          int lengthStart = in.position();
          int length = in.readLength();
          int idBytes = field.idBytes();
          if (idBytes != 0 && length != 0 && length != idBytes) {
            throw new MalformedOtlpException(
                "", lengthStart, "length " + length + ", expected " + idBytes + " bytes or empty");
          }
          in.position(in.position() + length);
          return;
        }
      case MESSAGE:
        {
          int outerEnd = in.limit();
          int end = enterMessage(field, tag);
          walkFields(field.message(), end);
          exitMessage(outerEnd);
          return;
        }
      case FIXED32:
        in.readFixed32();
        return;
      case FIXED64:
      case SFIXED64:
      case DOUBLE:
        in.readFixed64();
        return;
      default:
        in.readVarint64();
    }
  }

  private void readPacked(FieldKind kind) throws MalformedOtlpException {
    int lengthStart = in.position();
    int length = in.readLength();
    int end = in.position() + length;
    switch (kind.wireType()) {
      case WireType.I64:
      case WireType.I32:
        int width = kind.wireType() == WireType.I64 ? 8 : 4;
        if (length % width != 0) {
          throw new MalformedOtlpException(
              "",
              lengthStart,
              "packed length " + length + " is not a multiple of " + width + " bytes");
        }
        in.position(end);
        return;
      default:
        int outerEnd = in.limit();
        in.limit(end);
        while (in.position() < end) {
          in.readVarint64();
        }
        in.limit(outerEnd);
    }
  }

  /**
   * Reads the length of a message field whose tag was just read, checks the wire type and the
   * depth, and narrows the reader to the message. Returns the message's end.
   */
  private int enterMessage(FieldSchema field, int tag) throws MalformedOtlpException {
    if ((tag & 7) != WireType.LEN) {
      throw wrongWireType(field, tag & 7);
    }
    int length = in.readLength();
    int start = in.position();
    if (depth + 1 > limits.maxNestingDepth()) {
      throw new MalformedOtlpException(
          "",
          frameTag[depth],
          "messages nested deeper than the limit of " + limits.maxNestingDepth());
    }
    depth++;
    frameSchema[depth] = field.message();
    frameStart[depth] = start;
    frameField[depth] = 0;
    int end = start + length;
    in.limit(end);
    return end;
  }

  private void exitMessage(int outerEnd) {
    depth--;
    in.limit(outerEnd);
  }

  private MalformedOtlpException wrongWireType(FieldSchema field, int wireType) {
    return new MalformedOtlpException(
        "",
        frameTag[depth],
        "wire type "
            + wireType
            + " ("
            + WireType.name(wireType)
            + "), expected "
            + field.kind().wireType()
            + " ("
            + WireType.name(field.kind().wireType())
            + ") for "
            + field.kind().name().toLowerCase(java.util.Locale.ROOT));
  }

  // Error paths: built only when a request is rejected.

  /** The field path of the frames, with the index of every repeated field counted again. */
  private String path() {
    StringBuilder path = new StringBuilder();
    WireReader scan = new WireReader();
    for (int d = 0; d <= depth; d++) {
      int number = frameField[d];
      if (number == 0) {
        break;
      }
      MessageSchema schema = frameSchema[d];
      FieldSchema field = schema == null ? null : schema.field(number);
      if (path.length() > 0) {
        path.append('.');
      }
      path.append(field == null ? "field#" + number : field.name());
      if (field != null && field.isRepeated()) {
        path.append('[').append(occurrencesBefore(scan, d, number)).append(']');
      }
    }
    return path.toString();
  }

  /** How many times the field occurs in frame {@code d}'s message before the current one. */
  private int occurrencesBefore(WireReader scan, int d, int number) {
    scan.wrap(in.buffer(), frameStart[d], frameTag[d] - frameStart[d]);
    int count = 0;
    try {
      while (scan.hasRemaining()) {
        int tag = scan.readTag();
        if ((tag >>> 3) == number) {
          count++;
        }
        scan.skipValue(tag, limits.maxNestingDepth());
      }
    } catch (MalformedOtlpException e) {
      // Everything before the current field was read without error once; cannot happen.
      throw new IllegalStateException("re-reading validated bytes failed", e);
    }
    return count;
  }
}
