package dev.sluice.pdata.internal;

import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.edit.AttributeActions;
import dev.sluice.pdata.internal.OtlpFields.AnyValue;
import java.util.Arrays;
import java.util.Objects;

/**
 * What the typed editors ({@link SpanEditor}, {@link LogRecordEditor}, {@link DataPointEditor})
 * were asked to change in the item a visit is at, and how it is written: when the visitor's call
 * ends (or when the item is read again within it), as one pass of the {@link MessageRewriter} over
 * the item's bytes into one replacement, and none at all when that pass gives the item's own bytes.
 *
 * <p>New fields, attribute keys and values are encoded into a scratch buffer as the editor is
 * called, so that the values are checked there and then, and added events and links into a second
 * one. One per {@link BatchItem}, reused from item to item: nothing is allocated once its buffers
 * and tables have grown.
 */
public final class ItemEdits {
  /** A buffer that once grew for a huge item does not keep more than this between items. */
  private static final int MAX_RETAINED_BYTES = 1 << 20;

  private static final int INITIAL_BYTES = 256;

  /** Above every field number of a span, a log record, a data point and a status. */
  private static final int FIELDS = 32;

  private static final int NOT_SET = -1;

  private final MessageRewriter rewriter = new MessageRewriter();
  private final MessageRewriter childRewriter = new MessageRewriter();

  /** New fields, attribute keys and attribute values, as the editors were called. */
  final ProtoWriter scratch = new ProtoWriter(INITIAL_BYTES);

  /** Added elements (events, links), each a whole field, in the order they were added. */
  public final ProtoWriter appended = new ProtoWriter(INITIAL_BYTES);

  private final ProtoWriter childIn = new ProtoWriter(INITIAL_BYTES);
  private final ProtoWriter childOut = new ProtoWriter(INITIAL_BYTES);
  private final ProtoWriter out = new ProtoWriter(4 * INITIAL_BYTES);

  final AttributeChanges attributes = new AttributeChanges(scratch);

  // Fields set: where each field's new encoding is in the scratch buffer, in the order first set.
  private final int[] setStart = new int[FIELDS];
  private final int[] setLength = new int[FIELDS];
  private final int[] setOrder = new int[FIELDS];
  private int setCount;

  // Fields set inside one singular message field of the item (a span's status).
  private int childParent;
  private final int[] childStart = new int[FIELDS];
  private final int[] childLength = new int[FIELDS];
  private final int[] childOrder = new int[FIELDS];
  private int childCount;

  private RemovalFilter<?>[] filters = new RemovalFilter<?>[0];
  AddedElement openElement;

  // The item the changes are written to, or null where each change is written at once (headers).
  private final BatchItem item;
  // The attribute actions applied in this call, planned when the message is written, or null.
  private AttributeActions pendingActions;
  // The rule of the actions applied last, kept for the next item: one per list and thread.
  private AttributeActionsRule actionsRule;

  private int attributesField;
  public boolean pending;
  // Some change other than attribute actions is pending.
  private boolean othersPending;
  // Whether an edit other than a field set was taken (a child field, an attribute, an added
  // element, a removal): what discard must then forget, and what keeps the single-set path away.
  private boolean beyondSets;
  private boolean bound;

  /**
   * {@code item}: the item whose changes these are, written to it when the visitor's call ends or
   * when a change must see the result of those before (attribute actions after puts and removes, or
   * puts and removes after actions); null for a header's changes, each written at once.
   */
  public ItemEdits(BatchItem item) {
    this.item = item;
    Arrays.fill(setStart, NOT_SET);
    Arrays.fill(childStart, NOT_SET);
  }

  /** An editor's filter of a repeated field, consulted when it holds predicates. */
  public void register(RemovalFilter<?> filter) {
    filters = Arrays.copyOf(filters, filters.length + 1);
    filters[filters.length - 1] = filter;
  }

  /** The item's editor is handed out for the visitor's call: edits are taken until it ends. */
  public void bind(int attributesField) {
    this.attributesField = attributesField;
    bound = true;
  }

  /**
   * @throws IllegalStateException when the editor is used after the call that got it
   */
  public void check(String editor) {
    if (!bound) {
      throw new IllegalStateException(
          "a "
              + editor
              + " is valid only during the visitor's call that got it from its item; get it again"
              + " in the next call");
    }
  }

  public boolean pending() {
    return pending;
  }

  public void touched() {
    pending = true;
    othersPending = true;
    beyondSets = true;
  }

  /**
   * @throws IllegalArgumentException when {@code count}, of {@code what}, is negative
   */
  public static int count(int count, String what) {
    if (count < 0) {
      throw new IllegalArgumentException(what + " count must not be negative: " + count);
    }
    return count;
  }

  // Fields.

  /** A fixed64 field; 0 leaves it out. */
  public void setFixed64(int field, long value) {
    int start = scratch.size();
    if (value != 0) {
      scratch.writeTag(field, WireType.I64);
      scratch.writeFixed64(value);
    }
    set(field, start);
  }

  /** A fixed32 field; 0 leaves it out. */
  public void setFixed32(int field, int value) {
    int start = scratch.size();
    if (value != 0) {
      scratch.writeTag(field, WireType.I32);
      scratch.writeFixed32(value);
    }
    set(field, start);
  }

  /** A varint field (an enum, a count, a uint32 as its unsigned value); 0 leaves it out. */
  public void setVarint(int field, long value) {
    int start = scratch.size();
    if (value != 0) {
      scratch.writeTag(field, WireType.VARINT);
      scratch.writeVarint64(value);
    }
    set(field, start);
  }

  /** A string field; the empty string leaves it out. */
  public void setString(int field, String value, String what) {
    Objects.requireNonNull(value, what);
    int length = Utf8Encoding.length(value, what);
    int start = scratch.size();
    if (length > 0) {
      scratch.writeLengthDelimitedHeader(field, length);
      Utf8Encoding.write(scratch, value, length);
    }
    set(field, start);
  }

  /**
   * A string field given as its UTF-8 bytes {@code utf8[offset, offset + length)}; none leaves it
   * out.
   *
   * @throws IllegalArgumentException when the bytes are not valid UTF-8
   */
  public void setUtf8(int field, byte[] utf8, int offset, int length, String what) {
    checkUtf8(utf8, offset, length, what);
    int start = scratch.size();
    if (length > 0) {
      scratch.writeLengthDelimitedHeader(field, length);
      scratch.writeBytes(utf8, offset, length);
    }
    set(field, start);
  }

  /**
   * @throws IllegalArgumentException when {@code utf8[offset, offset + length)} is not valid UTF-8
   */
  private static void checkUtf8(byte[] utf8, int offset, int length, String what) {
    Objects.requireNonNull(utf8, what);
    Objects.checkFromIndexSize(offset, length, utf8.length);
    int invalid = Utf8.firstInvalid(utf8, offset, offset + length);
    if (invalid >= 0) {
      throw new IllegalArgumentException(
          what + " is not valid UTF-8 at byte " + (invalid - offset) + " of " + length);
    }
  }

  /** An ID of {@code idBytes} bytes, or the empty array to leave it out. */
  public void setId(int field, byte[] id, int idBytes, String what) {
    Objects.requireNonNull(id, what);
    if (id.length != idBytes && id.length != 0) {
      throw new IllegalArgumentException(
          what + " is " + idBytes + " bytes (or empty), not " + id.length);
    }
    int start = scratch.size();
    if (id.length > 0) {
      scratch.writeLengthDelimitedHeader(field, id.length);
      scratch.writeBytes(id, 0, id.length);
    }
    set(field, start);
  }

  /** An ID of {@code idBytes} (8 or 16) bytes given as big-endian longs, the first {@code high}. */
  public void setId(int field, long high, long low, int idBytes) {
    int start = scratch.size();
    scratch.writeLengthDelimitedHeader(field, idBytes);
    if (idBytes == 2 * Long.BYTES) {
      scratch.writeFixed64(Long.reverseBytes(high));
    }
    scratch.writeFixed64(Long.reverseBytes(low));
    set(field, start);
  }

  /** A member of a oneof (the value of a number data point): written even when 0. */
  public void setOneofFixed64(int field, long bits) {
    int start = scratch.size();
    scratch.writeTag(field, WireType.I64);
    scratch.writeFixed64(bits);
    set(field, start);
  }

  /** A message field holding the {@code AnyValue} whose payload is {@code value}. */
  public void setAnyValue(int field, long value) {
    int start = scratch.size();
    int valueLength = MessageRewriter.low(value);
    scratch.writeLengthDelimitedHeader(field, valueLength);
    scratch.writeBytes(scratch.array(), MessageRewriter.high(value), valueLength);
    set(field, start);
  }

  public void clear(int field) {
    set(field, scratch.size());
  }

  private void set(int field, int start) {
    if (setStart[field] == NOT_SET) {
      setOrder[setCount++] = field;
    }
    setStart[field] = start;
    setLength[field] = scratch.size() - start;
    pending = true;
    othersPending = true;
  }

  // Fields of the one message field edited inside the item.

  /** A varint field of the message field {@code parent}; 0 leaves it out. */
  public void setChildVarint(int parent, int field, long value) {
    int start = scratch.size();
    if (value != 0) {
      scratch.writeTag(field, WireType.VARINT);
      scratch.writeVarint64(value);
    }
    setChild(parent, field, start);
  }

  /** A string field of the message field {@code parent}; the empty string leaves it out. */
  public void setChildString(int parent, int field, String value, String what) {
    Objects.requireNonNull(value, what);
    int length = Utf8Encoding.length(value, what);
    int start = scratch.size();
    if (length > 0) {
      scratch.writeLengthDelimitedHeader(field, length);
      Utf8Encoding.write(scratch, value, length);
    }
    setChild(parent, field, start);
  }

  private void setChild(int parent, int field, int start) {
    if (childParent != 0 && childParent != parent) {
      throw new IllegalStateException("fields of two message fields edited at once");
    }
    childParent = parent;
    if (childStart[field] == NOT_SET) {
      childOrder[childCount++] = field;
    }
    childStart[field] = start;
    childLength[field] = scratch.size() - start;
    touched();
  }

  // Keys and values, encoded into the scratch buffer: packed ranges (offset high, length low).

  public long key(String key) {
    Objects.requireNonNull(key, "an attribute key");
    int length = Utf8Encoding.length(key, "an attribute key");
    int start = scratch.size();
    Utf8Encoding.write(scratch, key, length);
    return range(start);
  }

  /** An {@code AnyValue} holding a string (written even when empty: a oneof member). */
  public long stringValue(String value) {
    Objects.requireNonNull(value, "a string value");
    int length = Utf8Encoding.length(value, "a string value");
    int start = scratch.size();
    scratch.writeLengthDelimitedHeader(AnyValue.STRING_VALUE, length);
    Utf8Encoding.write(scratch, value, length);
    return range(start);
  }

  /** A string value given as its UTF-8 bytes, checked as {@link #setUtf8} checks them. */
  public long stringValue(byte[] utf8, int offset, int length) {
    checkUtf8(utf8, offset, length, "a string value");
    int start = scratch.size();
    scratch.writeLengthDelimitedHeader(AnyValue.STRING_VALUE, length);
    scratch.writeBytes(utf8, offset, length);
    return range(start);
  }

  public long boolValue(boolean value) {
    int start = scratch.size();
    scratch.writeTag(AnyValue.BOOL_VALUE, WireType.VARINT);
    scratch.writeVarint32(value ? 1 : 0);
    return range(start);
  }

  public long intValue(long value) {
    int start = scratch.size();
    scratch.writeTag(AnyValue.INT_VALUE, WireType.VARINT);
    scratch.writeVarint64(value);
    return range(start);
  }

  public long doubleValue(double value) {
    int start = scratch.size();
    scratch.writeTag(AnyValue.DOUBLE_VALUE, WireType.I64);
    scratch.writeFixed64(Double.doubleToRawLongBits(value));
    return range(start);
  }

  public long bytesValue(byte[] value) {
    Objects.requireNonNull(value, "a bytes value");
    int start = scratch.size();
    scratch.writeLengthDelimitedHeader(AnyValue.BYTES_VALUE, value.length);
    scratch.writeBytes(value, 0, value.length);
    return range(start);
  }

  private long range(int start) {
    return ((long) start << 32) | (scratch.size() - start);
  }

  /**
   * The edits, checked as {@link #check} does, for a put or remove of an attribute: pending actions
   * are written first, so that the change applies to their result.
   */
  public ItemEdits forAttributeChange(String editor) {
    check(editor);
    if (pendingActions != null && item != null) {
      item.writeTypedEdits();
    }
    return this;
  }

  /**
   * Applies {@code actions} to the attributes, after the changes made to them so far, when the
   * message is written.
   */
  public void applyActions(String editor, AttributeActions actions) {
    check(editor);
    Objects.requireNonNull(actions, "actions");
    if (item != null && !pending) {
      // The first change of the call: written at once, the way that costs least; later changes
      // of the call apply to its result.
      applyActionsAlone(rule(actions), item.array(), item.offset(), item.length());
      return;
    }
    if (item != null && (pendingActions != null || !attributes.isEmpty())) {
      item.writeTypedEdits();
    }
    pendingActions = actions;
    pending = true;
  }

  /** The rule for {@code actions}: the one kept, or a new one kept from now on. */
  private AttributeActionsRule rule(AttributeActions actions) {
    if (actionsRule == null || actionsRule.actions() != actions) {
      actionsRule = new AttributeActionsRule(actions);
    }
    return actionsRule;
  }

  /** Whether attribute actions are all there is to write. */
  private boolean onlyActions() {
    return pendingActions != null && !othersPending;
  }

  public void putAttribute(long key, long value) {
    attributes.put(
        MessageRewriter.high(key),
        MessageRewriter.low(key),
        MessageRewriter.high(value),
        MessageRewriter.low(value));
    touched();
  }

  public void removeAttribute(long key) {
    attributes.remove(MessageRewriter.high(key), MessageRewriter.low(key));
    touched();
  }

  /** Writes a {@code KeyValue} field of the key and value into {@code into}. */
  void writeEntry(ProtoWriter into, int field, long key, long value) {
    byte[] bytes = scratch.array();
    int keyLength = MessageRewriter.low(key);
    int valueLength = MessageRewriter.low(value);
    int entry = into.beginLengthDelimited(field);
    into.writeLengthDelimitedHeader(OtlpFields.KeyValue.KEY, keyLength);
    into.writeBytes(bytes, MessageRewriter.high(key), keyLength);
    into.writeLengthDelimitedHeader(OtlpFields.KeyValue.VALUE, valueLength);
    into.writeBytes(bytes, MessageRewriter.high(value), valueLength);
    into.endLengthDelimited(entry);
  }

  // Writing.

  /**
   * Writes the changes to the item whose message is {@code message[offset, offset + length)}: one
   * replacement, unless the new bytes are the old ones. Forgets the changes either way.
   */
  public void apply(BatchItem item, byte[] message, int offset, int length) {
    if (setCount == 1
        && !beyondSets
        && pendingActions == null
        && applyOneSet(item, message, offset, length)) {
      return;
    }
    applyAll(item, message, offset, length);
  }

  /** {@link #apply} through attribute actions' one pass or the rewrite engine's general write. */
  private void applyAll(BatchItem item, byte[] message, int offset, int length) {
    try {
      if (onlyActions()) {
        applyActionsAlone(rule(pendingActions), message, offset, length);
        return;
      }
      ProtoWriter written = write(message, offset, length, item.commonSpan());
      if (written != null) {
        item.store(written.array(), 0, written.size());
      }
    } finally {
      discard();
    }
  }

  /**
   * The message {@code message[offset, offset + length)} with the changes, or null when they leave
   * it as it was; valid until the next write. Forgets the changes either way.
   */
  ProtoWriter rewrite(byte[] message, int offset, int length) {
    try {
      return write(message, offset, length, false);
    } finally {
      discard();
    }
  }

  /** Actions alone: the new item, when there is one, written in one step into its replacement. */
  private void applyActionsAlone(
      AttributeActionsRule rule, byte[] message, int offset, int length) {
    int planned = rule.plan(message, offset, length, attributesField, item.commonSpan(), true);
    if (planned == AttributeActionsRule.UNCHANGED) {
      return;
    }
    try {
      if (planned >= 0) {
        item.reserve(planned);
        rule.writeOnePass(item.storage(), item.storageOffset());
        return;
      }
      out.release(MAX_RETAINED_BYTES);
      rewriter.editEntries(message, offset, length, attributesField, rule, out);
      item.store(out.array(), 0, out.size());
    } finally {
      rule.release();
    }
  }

  /** One pass of the rewriter with every change; the new message, or null when it is the old. */
  private ProtoWriter write(byte[] message, int offset, int length, boolean commonSpan) {
    if (openElement != null) {
      openElement.close();
    }
    out.release(MAX_RETAINED_BYTES);
    if (onlyActions()) {
      AttributeActionsRule rule = rule(pendingActions);
      return rule.rewrite(message, offset, length, attributesField, rewriter, out) ? out : null;
    }
    byte[] fields = scratch.array();
    rewriter.begin();
    for (int i = 0; i < setCount; i++) {
      int field = setOrder[i];
      rewriter.set(field, fields, setStart[field], setLength[field]);
    }
    if (childCount > 0) {
      writeChild(message, offset, length);
      rewriter.set(childParent, childOut.array(), 0, childOut.size());
    }
    if (!attributes.isEmpty()) {
      attributes.resolve(attributesField);
      rewriter.editEntries(attributesField, attributes);
    }
    AttributeActionsRule rule = null;
    if (pendingActions != null) {
      rule = rule(pendingActions);
      int planned = rule.plan(message, offset, length, attributesField, commonSpan, false);
      if (planned == AttributeActionsRule.THROUGH_REWRITER) {
        rewriter.editEntries(attributesField, rule);
      }
    }
    for (RemovalFilter<?> filter : filters) {
      if (!filter.isEmpty()) {
        rewriter.filter(filter.field(), filter);
      }
    }
    if (appended.size() > 0) {
      rewriter.append(appended.array(), 0, appended.size());
    }
    try {
      rewriter.write(message, offset, length, out);
    } finally {
      if (rule != null) {
        rule.release();
      }
    }
    if (out.size() == length
        && Arrays.equals(out.array(), 0, length, message, offset, offset + length)) {
      return null;
    }
    return out;
  }

  /**
   * {@link #setOne}, and the changes forgotten when it wrote them (or failed); false, with the
   * changes kept, when the general write must do it. Kept apart from {@link #applyAll}, which is
   * too big for the compiler to inline into the item's call.
   */
  private boolean applyOneSet(BatchItem item, byte[] message, int offset, int length) {
    boolean done = true;
    try {
      done = setOne(item, message, offset, length);
      return done;
    } finally {
      if (done) {
        discard();
      }
    }
  }

  /**
   * One field set and nothing else, the commonest edit: written straight into the item's storage
   * where the engine's single-set path finds it goes; false when the general write must do it.
   */
  private boolean setOne(BatchItem item, byte[] message, int offset, int length) {
    int field = setOrder[0];
    byte[] fields = scratch.array();
    int from = setStart[field];
    int setBytes = setLength[field];
    int newLength =
        field == OtlpFields.Span.TRACE_STATE && item.traceStatePlaced(message, offset, length)
            ? rewriter.placeSet(
                message,
                offset,
                length,
                item.traceStateAt(),
                item.traceStateFrom(),
                item.traceStateTo(),
                fields,
                from,
                setBytes)
            : rewriter.locateSet(message, offset, length, field, fields, from, setBytes);
    if (newLength == MessageRewriter.GENERAL) {
      return false;
    }
    if (newLength != MessageRewriter.UNCHANGED) {
      item.reserve(newLength);
      rewriter.writeSet(
          message, offset, length, fields, from, setBytes, item.storage(), item.storageOffset());
    }
    return true;
  }

  /**
   * The edited message field, always written (a span given a status has one, even an empty one):
   * every occurrence of it merged, as protobuf reads a message field given more than once, with the
   * child fields set.
   */
  private void writeChild(byte[] message, int offset, int length) {
    childIn.release(MAX_RETAINED_BYTES);
    rewriter.copyPayloads(message, offset, length, childParent, childIn);
    byte[] fields = scratch.array();
    childRewriter.begin();
    for (int i = 0; i < childCount; i++) {
      int field = childOrder[i];
      childRewriter.set(field, fields, childStart[field], childLength[field]);
    }
    childOut.release(MAX_RETAINED_BYTES);
    int mark = childOut.beginLengthDelimited(childParent);
    childRewriter.write(childIn.array(), 0, childIn.size(), childOut);
    childOut.endLengthDelimited(mark);
  }

  /** Forgets the changes not written yet. */
  public void discard() {
    if (!othersPending) {
      // Nothing but actions to forget, and perhaps the values of a change that failed.
      pendingActions = null;
      pending = false;
      if (scratch.size() > 0) {
        scratch.release(MAX_RETAINED_BYTES);
      }
      return;
    }
    for (int i = 0; i < setCount; i++) {
      setStart[setOrder[i]] = NOT_SET;
    }
    setCount = 0;
    if (beyondSets) {
      for (int i = 0; i < childCount; i++) {
        childStart[childOrder[i]] = NOT_SET;
      }
      childCount = 0;
      childParent = 0;
      attributes.clear();
      for (RemovalFilter<?> filter : filters) {
        if (!filter.isEmpty()) {
          filter.clear(); // one that held no predicate showed no bytes
        }
      }
      openElement = null;
      appended.release(MAX_RETAINED_BYTES);
      beyondSets = false;
    }
    pendingActions = null;
    scratch.release(MAX_RETAINED_BYTES);
    pending = false;
    othersPending = false;
  }

  /** The visitor's call ended: the editor refuses edits until it is handed out again. */
  public void unbind() {
    bound = false;
  }
}
