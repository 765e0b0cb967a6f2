package dev.sluice.pdata;

import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.edit.DataPointEditor;
import dev.sluice.pdata.edit.LogRecordEditor;
import dev.sluice.pdata.edit.ResourceEditor;
import dev.sluice.pdata.edit.ScopeEditor;
import dev.sluice.pdata.edit.SpanEditor;
import dev.sluice.pdata.internal.BatchEdits;
import dev.sluice.pdata.internal.HeaderEdits;
import dev.sluice.pdata.internal.Internal;
import dev.sluice.pdata.internal.ItemEdits;
import dev.sluice.pdata.internal.OtlpFields;
import dev.sluice.pdata.internal.OtlpFields.ExponentialHistogramDataPoint;
import dev.sluice.pdata.internal.OtlpFields.HistogramDataPoint;
import dev.sluice.pdata.internal.OtlpFields.LogRecord;
import dev.sluice.pdata.internal.OtlpFields.Metric;
import dev.sluice.pdata.internal.OtlpFields.MetricData;
import dev.sluice.pdata.internal.OtlpFields.NumberDataPoint;
import dev.sluice.pdata.internal.OtlpFields.ResourceBlock;
import dev.sluice.pdata.internal.OtlpFields.ScopeBlock;
import dev.sluice.pdata.internal.OtlpFields.Span;
import dev.sluice.pdata.internal.OtlpFields.SummaryDataPoint;
import dev.sluice.pdata.internal.Overlay;
import dev.sluice.pdata.internal.Slice;
import dev.sluice.pdata.internal.WireReader;
import dev.sluice.pdata.internal.WireType;
import dev.sluice.pdata.view.DataPointView;
import dev.sluice.pdata.view.LogRecordView;
import dev.sluice.pdata.view.MetricType;
import dev.sluice.pdata.view.MetricView;
import dev.sluice.pdata.view.ResourceView;
import dev.sluice.pdata.view.ScopeView;
import dev.sluice.pdata.view.SpanView;

/**
 * The span, log record or data point a {@link Batch#visit} is at, or the metric a {@link
 * Batch#visitMetrics} is at: where it is (its request, and the resource block, scope block, item
 * and data point numbers in that request), its bytes, views of it and of its headers, and the edits
 * that can be made to it. One flyweight per batch, valid only inside the visitor's call.
 *
 * <p>Views ({@link #span()}, {@link #logRecord()}, {@link #dataPoint()}, {@link #metric()}, {@link
 * #resourceView()}, {@link #scopeView()}) read the item and its headers as the batch will write
 * them, replacements made earlier in this visit or by earlier visits included. Each is one
 * flyweight re-pointed by every call; it is valid until the visitor returns, or until the next
 * replace of what it reads.
 *
 * <p>A {@link Batch#partitionInto} shows its {@link PartKey} a read-only item: views and positions
 * only, every edit below throws {@link IllegalStateException}.
 *
 * <p>Edits:
 *
 * <ul>
 *   <li>{@link #drop()}: the item leaves the batch (it is marked dropped; the slice stays whole).
 *   <li>{@link #replace}: the item is written as the given message instead. The bytes are copied
 *       into replacement storage that the batch owns and the memory budget counts; they are not
 *       validated, so they must be a well-formed message of the item's type.
 *   <li>{@link #replaceResource} / {@link #replaceScope}: the block's {@code Resource} or {@code
 *       InstrumentationScope} is written as the given message for every item of the block in this
 *       batch; the header's other fields ({@code schema_url}, unknown fields) are kept. Once per
 *       block is enough: {@link #resourceReplacedInThisVisit()} tells whether it was done.
 *   <li>{@link #replaceMetric}: the metric's header (every field but its data points) is written as
 *       that of the given message, for every part of the metric in this batch; the data points stay
 *       as they are.
 *   <li>{@link #editSpan()}, {@link #editLogRecord()}, {@link #editDataPoint()}: a typed editor of
 *       the item's fields. Its changes are written when the visitor's call ends, as one replacement
 *       (none when they change nothing), or earlier when the visitor reads the item again ({@link
 *       #span()}, {@link #array()}, ...) or replaces it, so that it reads or replaces the item as
 *       edited so far. Dropping the item forgets them.
 * </ul>
 */
public final class BatchItem {
  private static final byte[] EMPTY = new byte[0];
  private static final int WIRE_TYPE_MASK = 7;

  /** Header fields were validated at the edge; groups in unknown fields nest no deeper. */
  private static final int MAX_GROUP_DEPTH = 100;

  private final BatchEdits edits;
  private final WireReader reader = new WireReader();
  private final WireReader dataReader = new WireReader();
  Slice slice;
  int item;
  int point;
  int unit;
  @Internal public boolean dropped;
  // Set by the edits for a visit of headers: the item stands for its whole slice.
  @Internal public boolean headersOnly;
  // At a metric of a metric-level visit, covering its data points [pointFrom, pointTo).
  private boolean metricLevel;
  // The item's bytes are the request's own, and the validator passed them as a common span.
  @Internal public boolean commonSpan;
  private int pointFrom;
  private int pointTo;

  // Made at first use: most visitors read one or two kinds of view, or none.
  private SpanView spanView;

  // Where a new trace_state goes in placedFor[placedStart, placedEnd), as the one span walk found
  // it
  // (placeTraceState): the first field numbered trace_state or higher, and the span's one
  // trace_state field (traceStateFrom -1 for none), for the span editor's single-set path.
  // Forgotten
  // (placedEnd NOT_PLACED) whenever the item is moved, so storage reused later is never read by it.
  private static final int NOT_PLACED = -1;
  private byte[] placedFor;
  private int placedStart;
  private int placedEnd = NOT_PLACED;
  @Internal public int traceStateAt;
  @Internal public int traceStateFrom;
  @Internal public int traceStateTo;
  private LogRecordView logRecordView;
  private DataPointView pointView;
  private MetricView metricView;
  private ResourceView resourceView;
  private ScopeView scopeView;
  private byte[] array;
  private int offset;
  private int length;

  // The typed editors and the changes they were asked to make, made at first use.
  private ItemEdits typedEdits;
  private SpanEditor spanEditor;
  private LogRecordEditor logRecordEditor;
  private DataPointEditor dataPointEditor;

  // The header editors and their state, made at first use.
  private HeaderEdits resourceEdits;
  private HeaderEdits scopeEdits;
  private ResourceEditor resourceEditor;
  private ScopeEditor scopeEditor;

  // The block's current Resource or InstrumentationScope message, found by childOf.
  @Internal public byte[] childArray;
  @Internal public int childOffset;
  @Internal public int childLength;

  // The block last looked at for a header edit in this visit, so that one is looked at once.
  private OtlpIndex lookedResourceRequest;
  private int lookedResource = -1;
  private OtlpIndex lookedScopeRequest;
  private int lookedScope = -1;

  /** An item of an edit visit, or with {@code edits} null a read-only one (no edit is allowed). */
  @Internal
  public BatchItem(BatchEdits edits) {
    this.edits = edits;
  }

  /** The overlay the running visit writes for the request, or null (none yet, or read-only). */
  private Overlay visitOverlay(OtlpIndex index) {
    return edits == null ? null : edits.existingOwn(index);
  }

  /** The running visit's edits; a read-only item refuses every edit. */
  private BatchEdits edits() {
    if (edits == null) {
      throw new IllegalStateException("this item is read-only: a part key must not edit it");
    }
    return edits;
  }

  /** The edits of a visit that may change the item itself, not a visit of headers. */
  private BatchEdits itemEdits() {
    if (headersOnly) {
      throw new IllegalStateException(
          "a visit of headers shows one item for many: it may replace headers only");
    }
    return edits();
  }

  /** Lets go of everything the last visit pointed at, so no request stays reachable through it. */
  @Internal
  public void forget() {
    if (typedEdits != null) {
      typedEdits.discard();
      typedEdits.unbind();
    }
    unbindHeaders();
    slice = null;
    array = null;
    childArray = null;
    lookedResourceRequest = null;
    lookedResource = -1;
    lookedScopeRequest = null;
    lookedScope = -1;
    placedFor = null;
    placedEnd = NOT_PLACED;
    if (spanView != null) {
      spanView.release();
    }
    if (logRecordView != null) {
      logRecordView.release();
    }
    if (pointView != null) {
      pointView.release();
    }
    if (metricView != null) {
      metricView.release();
    }
    if (resourceView != null) {
      resourceView.release();
    }
    if (scopeView != null) {
      scopeView.release();
    }
  }

  /** False when the item's resource block is the one looked at last in this visit. */
  @Internal
  public boolean firstLookAtResource() {
    if (slice.index() == lookedResourceRequest && slice.resource() == lookedResource) {
      return false;
    }
    lookedResourceRequest = slice.index();
    lookedResource = slice.resource();
    return true;
  }

  /** False when the item's scope block is the one looked at last in this visit. */
  @Internal
  public boolean firstLookAtScope() {
    if (slice.index() == lookedScopeRequest && slice.scope() == lookedScope) {
      return false;
    }
    lookedScopeRequest = slice.index();
    lookedScope = slice.scope();
    return true;
  }

  @Internal
  public void set(Slice slice, int item, int point, int unit) {
    if (typedEdits != null) {
      typedEdits.discard();
      typedEdits.unbind();
    }
    unbindHeaders();
    this.slice = slice;
    this.item = item;
    this.point = point;
    this.unit = unit;
    this.dropped = false;
    this.metricLevel = false;
    this.commonSpan = false;
    this.placedEnd = NOT_PLACED;
    Overlay replaced = replacementOf(unit);
    if (replaced != null) {
      int start = replaced.unitOffset(unit);
      frame(replaced.bytes(), start, start + replaced.unitLength(unit));
      return;
    }
    OtlpIndex index = slice.index();
    if (point < 0) {
      frame(index.source(), index.itemStart(item), index.itemEnd(item));
      commonSpan = index.commonSpan(item);
    } else {
      frame(index.source(), index.dataPointStart(unit), index.dataPointEnd(unit));
    }
  }

  /**
   * Whether the item's bytes are those the validator passed in its span loop: every attributes
   * field a key and then a value, each with a one-byte length, and nothing else (see {@link
   * OtlpIndex#commonSpan}). False for anything else, replacements included.
   */
  @Internal
  public boolean commonSpan() {
    return commonSpan;
  }

  /** Puts the item at metric {@code metric} of the slice, covering points [from, to). */
  @Internal
  public void setMetric(Slice slice, int metric, int from, int to) {
    unbindHeaders();
    this.slice = slice;
    this.item = metric;
    this.point = -1;
    this.unit = -1;
    this.dropped = false;
    this.metricLevel = true;
    this.commonSpan = false;
    this.placedEnd = NOT_PLACED;
    this.pointFrom = from;
    this.pointTo = to;
    frameMetric();
  }

  /** Points the item's bytes at the metric's current header: a replacement, or the request's. */
  private void frameMetric() {
    Overlay replaced = metricHeaderOverlay();
    if (replaced != null) {
      array = replaced.bytes();
      offset = replaced.metricOffset(item);
      length = replaced.metricLength(item);
      return;
    }
    OtlpIndex index = slice.index();
    frame(index.source(), index.itemStart(item));
  }

  private Overlay metricHeaderOverlay() {
    Overlay own = visitOverlay(slice.index());
    if (own != null && own.metricOffset(item) >= 0) {
      return own;
    }
    Overlay seen = slice.overlay();
    return seen != null && seen.metricOffset(item) >= 0 ? seen : null;
  }

  private Overlay replacementOf(int unit) {
    Overlay own = visitOverlay(slice.index());
    if (own != null && own.unitOffset(unit) >= 0) {
      return own;
    }
    Overlay seen = slice.overlay();
    return seen != null && seen.unitOffset(unit) >= 0 ? seen : null;
  }

  /**
   * Points at the payload of the length-delimited field {@code bytes[fieldStart, fieldEnd)}: its
   * tag and length are skipped, not decoded, since the payload runs to the field's end.
   */
  private void frame(byte[] bytes, int fieldStart, int fieldEnd) {
    int p = fieldStart;
    while (bytes[p++] < 0) {
      // the tag's continuation bytes
    }
    while (bytes[p++] < 0) {
      // the length's continuation bytes
    }
    array = bytes;
    offset = p;
    length = fieldEnd - p;
  }

  /** Points at the payload of the length-delimited field at {@code fieldStart}. */
  private void frame(byte[] bytes, int fieldStart) {
    int p = fieldStart;
    while (bytes[p++] < 0) {
      // the tag's continuation bytes
    }
    int value = 0;
    int shift = 0;
    byte b;
    do {
      b = bytes[p++];
      value |= (b & 0x7F) << shift;
      shift += 7;
    } while (b < 0);
    array = bytes;
    offset = p;
    length = value;
  }

  public Signal signal() {
    return slice.index().signal();
  }

  /** The request the item is in. */
  public OtlpIndex request() {
    return slice.index();
  }

  /** The item's resource block, numbered in its request. */
  public int resource() {
    return slice.resource();
  }

  /** The item's scope block, numbered in its request. */
  public int scope() {
    return slice.scope();
  }

  /** The span, log record or metric, numbered in its request. */
  public int item() {
    return item;
  }

  /** The data point within its metric; -1 for spans, log records and metric-level visits. */
  public int point() {
    return point;
  }

  /** Whether the item is a metric of a {@link Batch#visitMetrics} rather than a unit. */
  public boolean isMetric() {
    return metricLevel;
  }

  /** The span the item is (traces). */
  public SpanView span() {
    checkUnit(Signal.TRACES);
    writeTypedEdits();
    if (spanView == null) {
      spanView = new SpanView(this);
    }
    spanView.wrapMessage(slice.index(), item, array, offset, offset + length);
    spanView.commonSpan = commonSpan;
    return spanView;
  }

  /** The log record the item is (logs). */
  public LogRecordView logRecord() {
    checkUnit(Signal.LOGS);
    writeTypedEdits();
    if (logRecordView == null) {
      logRecordView = new LogRecordView();
    }
    logRecordView.wrapMessage(slice.index(), item, array, offset, offset + length);
    return logRecordView;
  }

  /** The data point the item is (metrics, {@link Batch#visit}); do not move it with next(). */
  public DataPointView dataPoint() {
    if (metricLevel || point < 0) {
      throw new IllegalStateException("the visit is not at a data point");
    }
    writeTypedEdits();
    MetricType type = MetricType.ofField(slice.index().metric(item, OtlpIndex.M_DATA_FIELD));
    if (pointView == null) {
      pointView = new DataPointView();
    }
    pointView.single(slice.index(), type, array, offset, offset + length);
    return pointView;
  }

  /**
   * The metric the item is, or the one the data point belongs to, covering the data points of it
   * that this slice holds.
   */
  public MetricView metric() {
    if (slice.index().signal() != Signal.METRICS) {
      throw new IllegalStateException("a " + slice.index().signal() + " item has no metric");
    }
    writeTypedEdits();
    OtlpIndex index = slice.index();
    int from = metricLevel ? pointFrom : item == slice.itemFrom() ? slice.pointFrom() : 0;
    int to =
        metricLevel
            ? pointTo
            : item == slice.itemTo() ? slice.pointTo() : index.dataPointCount(item);
    if (metricView == null) {
      metricView = new MetricView();
    }
    metricView.wrap(index, item, from, to, visitOverlay(index), slice.overlay());
    return metricView;
  }

  /** The item's resource, as the batch writes it (a replaced header included). */
  public ResourceView resourceView() {
    OtlpIndex index = slice.index();
    if (resourceView == null) {
      resourceView = new ResourceView();
    }
    resourceView.wrap(
        index, slice.resource(), headerOverlay(visitOverlay(index), slice.resource(), true));
    return resourceView;
  }

  /** The item's instrumentation scope, as the batch writes it (a replaced header included). */
  public ScopeView scopeView() {
    OtlpIndex index = slice.index();
    if (scopeView == null) {
      scopeView = new ScopeView();
    }
    scopeView.wrap(index, slice.scope(), headerOverlay(visitOverlay(index), slice.scope(), false));
    return scopeView;
  }

  private void checkUnit(Signal expected) {
    if (slice.index().signal() != expected) {
      throw new IllegalArgumentException(
          "a " + slice.index().signal() + " item is no " + expected.unitName());
    }
  }

  /**
   * For a data point: the field number of its metric's data ({@code Metric.gauge} 5, {@code sum} 7,
   * {@code histogram} 9, {@code exponential_histogram} 10, {@code summary} 11), which says the
   * point's message type. 0 for spans and log records.
   */
  @Internal
  public int metricDataField() {
    return point < 0 ? 0 : slice.index().metric(item, OtlpIndex.M_DATA_FIELD);
  }

  /** The array holding the item's message (a Span, LogRecord or data point, without its tag). */
  @Internal
  public byte[] array() {
    writeTypedEdits();
    return array;
  }

  @Internal
  public int offset() {
    writeTypedEdits();
    return offset;
  }

  @Internal
  public int length() {
    writeTypedEdits();
    return length;
  }

  /**
   * A typed editor of the span the item is (traces): see {@link SpanEditor}. Valid until the
   * visitor's call returns.
   */
  public SpanEditor editSpan() {
    checkUnit(Signal.TRACES);
    ItemEdits edits = typedEdits(Span.ATTRIBUTES);
    if (spanEditor == null) {
      spanEditor = new SpanEditor(edits);
    }
    return spanEditor;
  }

  /**
   * A typed editor of the log record the item is (logs): see {@link LogRecordEditor}. Valid until
   * the visitor's call returns.
   */
  public LogRecordEditor editLogRecord() {
    checkUnit(Signal.LOGS);
    ItemEdits edits = typedEdits(LogRecord.ATTRIBUTES);
    if (logRecordEditor == null) {
      logRecordEditor = new LogRecordEditor(edits);
    }
    return logRecordEditor;
  }

  /**
   * A typed editor of the data point the item is (metrics, {@link Batch#visit}): see {@link
   * DataPointEditor}. Valid until the visitor's call returns.
   */
  public DataPointEditor editDataPoint() {
    if (metricLevel || point < 0) {
      throw new IllegalStateException("the visit is not at a data point");
    }
    ItemEdits edits = typedEdits(attributesField());
    if (dataPointEditor == null) {
      dataPointEditor = new DataPointEditor(edits);
    }
    dataPointEditor.bind(metricDataField());
    return dataPointEditor;
  }

  /** The item's typed edits, taking changes to attributes field {@code attributesField}. */
  private ItemEdits typedEdits(int attributesField) {
    itemEdits();
    if (typedEdits == null) {
      typedEdits = new ItemEdits(this);
    }
    typedEdits.bind(attributesField);
    return typedEdits;
  }

  /**
   * An editor of the attributes (and schema URL) of the item's resource, for every item of its
   * resource block: see {@link ResourceEditor}. Valid until the visitor's call returns; works in
   * every kind of visit, {@link Batch#visitHeaders} included.
   */
  public ResourceEditor editResource() {
    edits();
    if (resourceEditor == null) {
      resourceEdits = new HeaderEdits(this, true);
      resourceEditor = new ResourceEditor(resourceEdits);
    }
    resourceEdits.bind();
    return resourceEditor;
  }

  /** As {@link #editResource()}, for the item's instrumentation scope: see {@link ScopeEditor}. */
  public ScopeEditor editScope() {
    edits();
    if (scopeEditor == null) {
      scopeEdits = new HeaderEdits(this, false);
      scopeEditor = new ScopeEditor(scopeEdits);
    }
    scopeEdits.bind();
    return scopeEditor;
  }

  private void unbindHeaders() {
    if (resourceEdits != null) {
      resourceEdits.unbind();
    }
    if (scopeEdits != null) {
      scopeEdits.unbind();
    }
  }

  /** The field number of the item's attributes in its message type. */
  int attributesField() {
    return switch (signal()) {
      case TRACES -> Span.ATTRIBUTES;
      case LOGS -> LogRecord.ATTRIBUTES;
      case METRICS ->
          switch (metricDataField()) {
            case Metric.HISTOGRAM -> HistogramDataPoint.ATTRIBUTES;
            case Metric.EXPONENTIAL_HISTOGRAM -> ExponentialHistogramDataPoint.ATTRIBUTES;
            case Metric.SUMMARY -> SummaryDataPoint.ATTRIBUTES;
            default -> NumberDataPoint.ATTRIBUTES;
          };
    };
  }

  /** Writes the changes the typed editors were asked to make so far, if any. */
  @Internal
  public void writeTypedEdits() {
    if (typedEdits != null && typedEdits.pending()) {
      typedEdits.apply(this, array, offset, length);
    }
  }

  /**
   * The visitor's call for this item returned: the typed editors' changes are written (unless the
   * item was dropped), and the editors refuse changes until handed out again.
   */
  @Internal
  public void endCall() {
    unbindHeaders();
    if (typedEdits != null) {
      if (dropped) {
        typedEdits.discard();
      } else {
        writeTypedEdits();
      }
      typedEdits.unbind();
    }
  }

  /**
   * The span view's report ({@link SpanView#placeTraceState}) of where a trace_state field goes in
   * the span {@code message[messageStart, messageEnd)}; held until the item is moved on.
   */
  @Internal
  public void placeTraceState(
      byte[] message, int messageStart, int messageEnd, int at, int from, int to) {
    if (placedFor != message) {
      placedFor = message;
    }
    placedStart = messageStart;
    placedEnd = messageEnd;
    traceStateAt = at;
    traceStateFrom = from;
    traceStateTo = to;
  }

  /**
   * Whether the one span walk told where a trace_state goes in {@code message[offset, offset +
   * length)}, the item's span, during this visitor's call; then {@link #traceStateAt}, {@link
   * #traceStateFrom} and {@link #traceStateTo} say it.
   */
  @Internal
  public boolean traceStatePlaced(byte[] message, int offset, int length) {
    return placedEnd == offset + length
        && placedStart == offset
        && placedFor == message
        && signal() == Signal.TRACES;
  }

  @Internal
  public int traceStateAt() {
    return traceStateAt;
  }

  @Internal
  public int traceStateFrom() {
    return traceStateFrom;
  }

  @Internal
  public int traceStateTo() {
    return traceStateTo;
  }

  /** Drops the item from the batch when the visit ends. */
  public void drop() {
    itemEdits();
    dropped = true;
    if (typedEdits != null) {
      typedEdits.discard();
    }
  }

  public boolean dropped() {
    return dropped;
  }

  /** Writes the item as {@code message[offset, offset + length)} from now on. */
  @Internal
  public void replace(byte[] message, int offset, int length) {
    writeTypedEdits();
    store(message, offset, length);
  }

  /** Replaces the item with {@code message[offset, offset + length)}: the typed edits' write. */
  @Internal
  public void store(byte[] message, int offset, int length) {
    reserve(length);
    System.arraycopy(message, offset, array, this.offset, length);
  }

  /**
   * Replaces the item, as {@link #replace} does, with a message of exactly {@code length} bytes
   * that the caller then writes into {@link #array()} from {@link #offset()}, before anything else
   * reads or edits the batch: the new message is written once, straight into the replacement
   * storage. The bytes the item had stay readable where the caller found them until the visit ends
   * (storage outgrown in a visit is kept until then).
   */
  @Internal
  public void replaceToBeWritten(int length) {
    writeTypedEdits();
    reserve(length);
  }

  /** The array {@link #reserve} points the item at, for the typed edits to write into. */
  @Internal
  public byte[] storage() {
    return array;
  }

  /** Where the item's message starts in {@link #storage()}. */
  @Internal
  public int storageOffset() {
    return offset;
  }

  /**
   * Replaces the item with {@code length} bytes the caller writes into {@link #storage()} from
   * {@link #storageOffset()} at once; the bytes the item had stay readable until the visit ends.
   */
  @Internal
  public void reserve(int length) {
    if (metricLevel) {
      throw new IllegalStateException("a metric is replaced with replaceMetric");
    }
    commonSpan = false;
    Overlay own = itemEdits().ownOverlay(slice);
    int payloadStart = own.reserveUnit(unit, point < 0 ? -1 : item, length);
    array = own.bytes();
    offset = payloadStart;
    this.length = length;
  }

  /**
   * Writes the metric's header as that of {@code metric[offset, offset + length)}, a {@code Metric}
   * message: its fields other than the data member, and the data member's fields other than its
   * data points. The data member must be of the metric's type (or absent: an empty one); data
   * points in it are ignored. Works from a metric-level visit or from any of the metric's data
   * points; once per metric is enough.
   *
   * @throws IllegalArgumentException when the message does not parse or holds another data member
   */
  @Internal
  public void replaceMetric(byte[] metric, int offset, int length) {
    if (!metricLevel && point < 0) {
      throw new IllegalStateException("the visit is not at a metric or a data point");
    }
    writeTypedEdits();
    int dataField = slice.index().metric(item, OtlpIndex.M_DATA_FIELD);
    Overlay own = itemEdits().ownOverlay(slice);
    int start = own.size();
    int dataFrom = -1;
    int dataLength = 0;
    try {
      reader.wrap(metric, offset, length);
      while (reader.hasRemaining()) {
        int fieldStart = reader.position();
        int tag = reader.readTag();
        int field = tag >>> 3;
        if (OtlpFields.Metric.isData(field)) {
          if (field != dataField || (tag & WIRE_TYPE_MASK) != WireType.LEN) {
            throw new IllegalArgumentException(
                "a metric of data field " + dataField + " replaced with data field " + field);
          }
          dataLength = reader.readLength();
          dataFrom = reader.position();
          reader.position(dataFrom + dataLength);
        } else {
          reader.skipValue(tag, MAX_GROUP_DEPTH);
          own.appendRaw(metric, fieldStart, reader.position() - fieldStart);
        }
      }
      int headLength = own.size() - start;
      int dataHeaderLength = dataFrom < 0 ? 0 : copyDataHeader(metric, dataFrom, dataLength, null);
      own.appendFieldHeader(dataField, dataHeaderLength);
      int dataHeaderStart = own.size();
      if (dataFrom >= 0) {
        copyDataHeader(metric, dataFrom, dataLength, own);
      }
      own.setMetricHeader(item, start, headLength, dataHeaderStart);
    } catch (MalformedOtlpException e) {
      throw new IllegalArgumentException("the replacement metric does not parse", e);
    }
    if (metricLevel) {
      frameMetric();
    } else {
      // Storage may have grown: point at the current copy of the data point again.
      Overlay replaced = replacementOf(unit);
      if (replaced != null) {
        frame(replaced.bytes(), replaced.unitOffset(unit));
      }
    }
  }

  /** Bytes of the data member's fields other than data points; appended too when into is set. */
  private int copyDataHeader(byte[] bytes, int from, int length, Overlay into)
      throws MalformedOtlpException {
    dataReader.wrap(bytes, from, length);
    int copied = 0;
    while (dataReader.hasRemaining()) {
      int fieldStart = dataReader.position();
      int tag = dataReader.readTag();
      dataReader.skipValue(tag, MAX_GROUP_DEPTH);
      if ((tag >>> 3) != MetricData.DATA_POINTS) {
        int fieldLength = dataReader.position() - fieldStart;
        copied += fieldLength;
        if (into != null) {
          into.appendRaw(bytes, fieldStart, fieldLength);
        }
      }
    }
    return copied;
  }

  /** Writes the item's resource block with {@code resource} as its {@code Resource}. */
  @Internal
  public void replaceResource(byte[] resource, int offset, int length) {
    Overlay own = edits().ownOverlay(slice);
    int r = slice.resource();
    int start = own.appendField(ResourceBlock.RESOURCE, resource, offset, length);
    Overlay current = headerOverlay(own, r, true);
    if (current != null) {
      copyFieldsExcept(
          own,
          current.bytes(),
          current.resourceOffset(r),
          current.resourceLength(r),
          ResourceBlock.RESOURCE);
    } else {
      OtlpIndex index = slice.index();
      copySegmentsExcept(
          own, index, index.resourceSegFirst(r), index.resourceSegCount(r), ResourceBlock.RESOURCE);
    }
    own.setResource(r, start, edits.stamp);
  }

  /**
   * As {@link #replaceResource(byte[], int, int)}, and with {@code schemaUrl} (UTF-8; empty leaves
   * it out) as the block's schema URL in place of the one it had.
   */
  @Internal
  public void replaceResource(byte[] resource, int offset, int length, byte[] schemaUrl) {
    replaceResource(resource, offset, length);
    Overlay own = edits().ownOverlay(slice);
    int r = slice.resource();
    // Appending may grow the storage: the header is read from the array it was written to.
    byte[] stored = own.bytes();
    int from = own.resourceOffset(r);
    int storedLength = own.resourceLength(r);
    int start = own.size();
    copyFieldsExcept(own, stored, from, storedLength, ResourceBlock.SCHEMA_URL);
    if (schemaUrl.length > 0) {
      own.appendField(ResourceBlock.SCHEMA_URL, schemaUrl, 0, schemaUrl.length);
    }
    own.setResource(r, start, edits.stamp);
  }

  /** Writes the item's scope block with {@code scope} as its {@code InstrumentationScope}. */
  @Internal
  public void replaceScope(byte[] scope, int offset, int length) {
    Overlay own = edits().ownOverlay(slice);
    int s = slice.scope();
    int start = own.appendField(ScopeBlock.SCOPE, scope, offset, length);
    Overlay current = headerOverlay(own, s, false);
    if (current != null) {
      copyFieldsExcept(
          own, current.bytes(), current.scopeOffset(s), current.scopeLength(s), ScopeBlock.SCOPE);
    } else {
      OtlpIndex index = slice.index();
      copySegmentsExcept(
          own, index, index.scopeSegFirst(s), index.scopeSegCount(s), ScopeBlock.SCOPE);
    }
    own.setScope(s, start, edits.stamp);
  }

  /** Whether this visit already replaced the resource of this item's block. */
  @Internal
  public boolean resourceReplacedInThisVisit() {
    Overlay own = visitOverlay(slice.index());
    return own != null && own.resourceStamped(slice.resource(), edits.stamp);
  }

  /** Whether this visit already replaced the scope of this item's block. */
  @Internal
  public boolean scopeReplacedInThisVisit() {
    Overlay own = visitOverlay(slice.index());
    return own != null && own.scopeStamped(slice.scope(), edits.stamp);
  }

  /** The overlay holding the block's current header replacement, or null when it has none. */
  private Overlay headerOverlay(Overlay own, int block, boolean resource) {
    if (own != null && (resource ? own.resourceOffset(block) : own.scopeOffset(block)) >= 0) {
      return own;
    }
    Overlay seen = slice.overlay();
    if (seen != null && (resource ? seen.resourceOffset(block) : seen.scopeOffset(block)) >= 0) {
      return seen;
    }
    return null;
  }

  /**
   * Finds the block's current {@code Resource} ({@code resource} true) or {@code
   * InstrumentationScope} message and leaves it in {@link #childArray} and the fields after it;
   * empty when the header has none.
   */
  @Internal
  public void childOf(boolean resource) {
    Overlay own = visitOverlay(slice.index());
    int block = resource ? slice.resource() : slice.scope();
    int childField = resource ? ResourceBlock.RESOURCE : ScopeBlock.SCOPE;
    Overlay current = headerOverlay(own, block, resource);
    childArray = EMPTY;
    childOffset = 0;
    childLength = 0;
    if (current != null) {
      int start = resource ? current.resourceOffset(block) : current.scopeOffset(block);
      int end = start + (resource ? current.resourceLength(block) : current.scopeLength(block));
      findField(current.bytes(), start, end, childField);
      return;
    }
    OtlpIndex index = slice.index();
    int first = resource ? index.resourceSegFirst(block) : index.scopeSegFirst(block);
    int count = resource ? index.resourceSegCount(block) : index.scopeSegCount(block);
    for (int g = first; g < first + count; g++) {
      if (index.segField(g) == childField) {
        int start = index.segOffset(g);
        findField(index.source(), start, start + index.segLength(g), childField);
      }
    }
  }

  private void findField(byte[] bytes, int start, int end, int fieldNumber) {
    reader.wrap(bytes, start, end - start);
    try {
      while (reader.hasRemaining()) {
        int tag = reader.readTag();
        if (tag == WireType.tag(fieldNumber, WireType.LEN)) {
          int fieldLength = reader.readLength();
          childArray = bytes;
          childOffset = reader.position();
          childLength = fieldLength;
          reader.position(reader.position() + fieldLength);
        } else {
          reader.skipValue(tag, MAX_GROUP_DEPTH);
        }
      }
    } catch (MalformedOtlpException e) {
      throw new IllegalStateException("a validated header does not parse", e);
    }
  }

  private void copyFieldsExcept(Overlay into, byte[] bytes, int start, int length, int field) {
    reader.wrap(bytes, start, length);
    try {
      while (reader.hasRemaining()) {
        int fieldStart = reader.position();
        int tag = reader.readTag();
        reader.skipValue(tag, MAX_GROUP_DEPTH);
        if ((tag >>> 3) != field) {
          into.appendRaw(bytes, fieldStart, reader.position() - fieldStart);
        }
      }
    } catch (MalformedOtlpException e) {
      throw new IllegalStateException("a stored header does not parse", e);
    }
  }

  private static void copySegmentsExcept(
      Overlay into, OtlpIndex index, int first, int count, int field) {
    for (int g = first; g < first + count; g++) {
      if (index.segField(g) != field) {
        into.appendRaw(index.source(), index.segOffset(g), index.segLength(g));
      }
    }
  }
}
