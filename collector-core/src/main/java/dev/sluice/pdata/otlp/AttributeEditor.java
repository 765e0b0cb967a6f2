package dev.sluice.pdata.otlp;

import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.otlp.OtlpFields.ExponentialHistogramDataPoint;
import dev.sluice.pdata.otlp.OtlpFields.HistogramDataPoint;
import dev.sluice.pdata.otlp.OtlpFields.InstrumentationScope;
import dev.sluice.pdata.otlp.OtlpFields.KeyValue;
import dev.sluice.pdata.otlp.OtlpFields.LogRecord;
import dev.sluice.pdata.otlp.OtlpFields.Metric;
import dev.sluice.pdata.otlp.OtlpFields.NumberDataPoint;
import dev.sluice.pdata.otlp.OtlpFields.Resource;
import dev.sluice.pdata.otlp.OtlpFields.Span;
import dev.sluice.pdata.otlp.OtlpFields.SummaryDataPoint;
import dev.sluice.pdata.wire.ProtoWriter;
import dev.sluice.pdata.wire.Varint;
import dev.sluice.pdata.wire.WireReader;
import dev.sluice.pdata.wire.WireType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Changes attributes of spans, log records, data points, resources and scopes without decoding
 * them: the new message is every original field copied as bytes except the attribute entries an
 * action changes, plus the new entries. Actions, applied in the order they were added, follow the
 * OpenTelemetry Collector's {@code attributes} processor:
 *
 * <ul>
 *   <li>{@code insert}: adds the attribute where the key is absent;
 *   <li>{@code update}: changes the value where the key is present;
 *   <li>{@code upsert}: either;
 *   <li>{@code delete}: removes every entry with the key;
 *   <li>{@code rename}: the entry with the old key takes the new key (an entry that had the new key
 *       goes), where the old key is present.
 * </ul>
 *
 * <p>Configure once, then call {@link #editItem} (and {@link #editResource}, {@link #editScope})
 * from a {@link Batch#visit}. An item the actions leave unchanged is not replaced. One editor per
 * thread: it keeps scratch buffers, so editing allocates nothing once they have grown.
 */
public final class AttributeEditor {

  private static final int KEY_TAG = WireType.tag(KeyValue.KEY, WireType.LEN);

  /** Items were validated at the edge; groups in unknown fields nest no deeper. */
  private static final int MAX_GROUP_DEPTH = 100;

  private enum Kind {
    INSERT,
    UPDATE,
    UPSERT,
    DELETE,
    RENAME
  }

  /** One action; {@code entry} is the new KeyValue message for insert, update and upsert. */
  private record Action(Kind kind, byte[] key, byte[] entry, byte[] newKey) {}

  private final List<Action> configured = new ArrayList<>();
  private Action[] actions = new Action[0];
  private final WireReader reader = new WireReader();
  private final WireReader keyReader = new WireReader();
  private final ProtoWriter first = new ProtoWriter(1024);
  private final ProtoWriter second = new ProtoWriter(1024);
  private ProtoWriter result;
  private long malformed;

  public AttributeEditor insert(String key, AttributeValue value) {
    return add(Kind.INSERT, key, value, null);
  }

  public AttributeEditor update(String key, AttributeValue value) {
    return add(Kind.UPDATE, key, value, null);
  }

  public AttributeEditor upsert(String key, AttributeValue value) {
    return add(Kind.UPSERT, key, value, null);
  }

  public AttributeEditor delete(String key) {
    return add(Kind.DELETE, key, null, null);
  }

  public AttributeEditor rename(String key, String newKey) {
    return add(Kind.RENAME, key, null, newKey);
  }

  private AttributeEditor add(Kind kind, String key, AttributeValue value, String newKey) {
    byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
    byte[] entry = value == null ? null : entry(keyBytes, value.anyValue());
    byte[] renamed = newKey == null ? null : newKey.getBytes(StandardCharsets.UTF_8);
    configured.add(new Action(kind, keyBytes, entry, renamed));
    actions = configured.toArray(new Action[0]);
    return this;
  }

  private static byte[] entry(byte[] key, byte[] anyValue) {
    ProtoWriter out = new ProtoWriter();
    out.writeLengthDelimitedHeader(KeyValue.KEY, key.length);
    out.writeBytes(key, 0, key.length);
    out.writeLengthDelimitedHeader(KeyValue.VALUE, anyValue.length);
    out.writeBytes(anyValue, 0, anyValue.length);
    return out.toByteArray();
  }

  /** Items whose bytes did not parse (replacements written by someone else): left as they were. */
  public long malformedCount() {
    return malformed;
  }

  /** Applies the actions to the item's attributes; returns whether the item changed. */
  public boolean editItem(BatchItem item) {
    int field = attributesField(item);
    if (!apply(item.array(), item.offset(), item.length(), field)) {
      return false;
    }
    item.replace(result.array(), 0, result.size());
    return true;
  }

  /**
   * Applies the actions to the attributes of the item's resource, once per block and visit; returns
   * whether this call changed it.
   */
  public boolean editResource(BatchItem item) {
    if (!item.firstLookAtResource() || item.resourceReplacedInThisVisit()) {
      return false;
    }
    item.childOf(true);
    if (!apply(item.childArray, item.childOffset, item.childLength, Resource.ATTRIBUTES)) {
      return false;
    }
    item.replaceResource(result.array(), 0, result.size());
    return true;
  }

  /** As {@link #editResource}, for the item's instrumentation scope. */
  public boolean editScope(BatchItem item) {
    if (!item.firstLookAtScope() || item.scopeReplacedInThisVisit()) {
      return false;
    }
    item.childOf(false);
    if (!apply(
        item.childArray, item.childOffset, item.childLength, InstrumentationScope.ATTRIBUTES)) {
      return false;
    }
    item.replaceScope(result.array(), 0, result.size());
    return true;
  }

  /** The field number of the item's attributes in its message type. */
  static int attributesField(BatchItem item) {
    return switch (item.signal()) {
      case TRACES -> Span.ATTRIBUTES;
      case LOGS -> LogRecord.ATTRIBUTES;
      case METRICS -> pointAttributesField(item.metricDataField());
    };
  }

  private static int pointAttributesField(int dataField) {
    return switch (dataField) {
      case Metric.HISTOGRAM -> HistogramDataPoint.ATTRIBUTES;
      case Metric.EXPONENTIAL_HISTOGRAM -> ExponentialHistogramDataPoint.ATTRIBUTES;
      case Metric.SUMMARY -> SummaryDataPoint.ATTRIBUTES;
      default -> NumberDataPoint.ATTRIBUTES;
    };
  }

  /**
   * Runs every action over {@code message}, each pass from the previous pass's output; returns
   * whether any changed it, the new message then being in {@link #result}.
   */
  private boolean apply(byte[] message, int offset, int length, int attributesField) {
    byte[] source = message;
    int sourceOffset = offset;
    int sourceLength = length;
    boolean changed = false;
    ProtoWriter out = first;
    try {
      for (Action action : actions) {
        if (pass(action, source, sourceOffset, sourceLength, attributesField, out)) {
          changed = true;
          result = out;
          source = out.array();
          sourceOffset = 0;
          sourceLength = out.size();
          out = out == first ? second : first;
        }
      }
    } catch (MalformedOtlpException e) {
      malformed++;
      return false;
    }
    return changed;
  }

  private boolean pass(
      Action action, byte[] src, int offset, int length, int attributesField, ProtoWriter out)
      throws MalformedOtlpException {
    int attributeTag = WireType.tag(attributesField, WireType.LEN);
    if (action.kind == Kind.RENAME && !contains(src, offset, length, attributeTag, action.key)) {
      return false;
    }
    out.reset();
    reader.wrap(src, offset, length);
    boolean found = false;
    boolean changed = false;
    int copyFrom = offset;
    while (reader.hasRemaining()) {
      int fieldStart = reader.position();
      int tag = reader.readTag();
      if (tag != attributeTag) {
        reader.skipValue(tag, MAX_GROUP_DEPTH);
        continue;
      }
      int entryLength = reader.readLength();
      int entryStart = reader.position();
      reader.position(entryStart + entryLength);
      boolean isKey = keyEquals(src, entryStart, entryLength, action.key);
      boolean replace;
      switch (action.kind) {
        case DELETE -> replace = isKey;
        case INSERT -> {
          found |= isKey;
          replace = false;
        }
        case UPDATE, UPSERT -> {
          found |= isKey;
          replace = isKey;
        }
        default -> replace = isKey || keyEquals(src, entryStart, entryLength, action.newKey);
      }
      if (!replace) {
        continue;
      }
      changed = true;
      out.writeBytes(src, copyFrom, fieldStart - copyFrom);
      copyFrom = reader.position();
      if (action.kind == Kind.UPDATE || action.kind == Kind.UPSERT) {
        writeEntry(out, attributesField, action.entry);
      } else if (action.kind == Kind.RENAME && isKey) {
        writeRenamed(out, attributesField, action.newKey, src, entryStart, entryLength);
      }
    }
    if (!changed && (found || action.kind != Kind.INSERT && action.kind != Kind.UPSERT)) {
      return false;
    }
    out.writeBytes(src, copyFrom, offset + length - copyFrom);
    if (!found && (action.kind == Kind.INSERT || action.kind == Kind.UPSERT)) {
      writeEntry(out, attributesField, action.entry);
    }
    return true;
  }

  private static void writeEntry(ProtoWriter out, int attributesField, byte[] entry) {
    out.writeLengthDelimitedHeader(attributesField, entry.length);
    out.writeBytes(entry, 0, entry.length);
  }

  /** The entry with its key field replaced by {@code newKey}, its other fields copied. */
  private void writeRenamed(
      ProtoWriter out, int attributesField, byte[] newKey, byte[] src, int start, int length)
      throws MalformedOtlpException {
    int keyFieldBytes = 0;
    keyReader.wrap(src, start, length);
    while (keyReader.hasRemaining()) {
      int fieldStart = keyReader.position();
      int tag = keyReader.readTag();
      keyReader.skipValue(tag, MAX_GROUP_DEPTH);
      if (tag == KEY_TAG) {
        keyFieldBytes += keyReader.position() - fieldStart;
      }
    }
    int newKeyField = Varint.lengthDelimitedSize(KeyValue.KEY, newKey.length);
    out.writeLengthDelimitedHeader(attributesField, length - keyFieldBytes + newKeyField);
    out.writeLengthDelimitedHeader(KeyValue.KEY, newKey.length);
    out.writeBytes(newKey, 0, newKey.length);
    keyReader.wrap(src, start, length);
    while (keyReader.hasRemaining()) {
      int fieldStart = keyReader.position();
      int tag = keyReader.readTag();
      keyReader.skipValue(tag, MAX_GROUP_DEPTH);
      if (tag != KEY_TAG) {
        out.writeBytes(src, fieldStart, keyReader.position() - fieldStart);
      }
    }
  }

  private boolean contains(byte[] src, int offset, int length, int attributeTag, byte[] key)
      throws MalformedOtlpException {
    reader.wrap(src, offset, length);
    while (reader.hasRemaining()) {
      int tag = reader.readTag();
      if (tag != attributeTag) {
        reader.skipValue(tag, MAX_GROUP_DEPTH);
        continue;
      }
      int entryLength = reader.readLength();
      int entryStart = reader.position();
      reader.position(entryStart + entryLength);
      if (keyEquals(src, entryStart, entryLength, key)) {
        return true;
      }
    }
    return false;
  }

  /** Whether the KeyValue at {@code [start, start + length)} has the key (its last key field). */
  private boolean keyEquals(byte[] src, int start, int length, byte[] key)
      throws MalformedOtlpException {
    keyReader.wrap(src, start, length);
    int keyStart = -1;
    int keyLength = 0;
    while (keyReader.hasRemaining()) {
      int tag = keyReader.readTag();
      if (tag == KEY_TAG) {
        keyLength = keyReader.readLength();
        keyStart = keyReader.position();
        keyReader.position(keyStart + keyLength);
      } else {
        keyReader.skipValue(tag, MAX_GROUP_DEPTH);
      }
    }
    if (keyStart < 0) {
      return key.length == 0;
    }
    return Arrays.equals(src, keyStart, keyStart + keyLength, key, 0, key.length);
  }
}
