package dev.sluice.ottl;

import dev.sluice.pdata.internal.MessageRewriter;
import dev.sluice.pdata.internal.OtlpFields.KeyValue;
import dev.sluice.pdata.internal.OtlpFields.KeyValueList;
import dev.sluice.pdata.internal.ProtoWriter;
import dev.sluice.pdata.internal.RawMessages;
import dev.sluice.pdata.internal.WireType;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.TextView;
import java.util.Arrays;
import java.util.List;

/**
 * A path a statement writes, resolved for one context: how to read its current value, and how to
 * write a new one by re-encoding the message that holds it. Each compiled statement has its own
 * (its buffers are reused), so it is used by one thread at a time.
 */
final class Target {
  /** A message that once needed a big buffer does not keep more than this between writes. */
  private static final int MAX_RETAINED_BYTES = 1 << 20;

  private static final int INITIAL_BYTES = 256;

  private static final long UINT32_MASK = 0xFFFF_FFFFL;

  final String path;
  final OttlType type;
  final Targets.Field field;

  /** The key, for an {@link Targets.Kind#ENTRY}. */
  final byte[] key;

  final Expr reader;

  final MessageRewriter rewriter = new MessageRewriter();
  final AnyValueWriter values = new AnyValueWriter();
  final ProtoWriter out = new ProtoWriter(INITIAL_BYTES);
  private final ProtoWriter encoded = new ProtoWriter(INITIAL_BYTES);
  private final ProtoWriter nested = new ProtoWriter(INITIAL_BYTES);
  private final SetEntry setEntry = new SetEntry();
  private final SetMap setMap = new SetMap();
  private final SetNested setNested = new SetNested();

  /** Where a value at depth is written (or a map in a value found), for those kinds; else null. */
  private final NestedWrite nestedWrite;

  /** Whether a map editor edits the map inside the value at the keys. */
  private final boolean mapInValue;

  private final ProtoWriter inner = new ProtoWriter(INITIAL_BYTES);
  private final Value mapValue = new Value();
  private final AttributeCursor mapEntries = new AttributeCursor();

  /**
   * @param below the keys after the first of an entry, or all the keys of an {@code AnyValue}
   *     field, for the nested kinds; empty otherwise
   * @param mapInValue whether a map editor edits the map in the entry's value at {@code below}
   */
  Target(
      String path,
      OttlType type,
      Targets.Field field,
      byte[] key,
      Expr reader,
      List<Ast.Key> below,
      boolean mapInValue) {
    this.path = path;
    this.type = type;
    this.field = field;
    this.key = key;
    this.reader = reader;
    this.mapInValue = mapInValue;
    this.nestedWrite = below.isEmpty() && !mapInValue ? null : new NestedWrite(below, path, values);
  }

  boolean mapInValue() {
    return mapInValue;
  }

  /**
   * For a map editor of a map inside a value: that map's {@code KeyValueList} payload in {@code
   * message}, its offset in the high half and length in the low half.
   *
   * @throws OttlEvaluationException when there is no map there
   */
  long mapInValue(EvalContext context, byte[] message, int offset, int length) {
    long value =
        rewriter.findEntryValue(
            message, offset, length, Targets.attributesField(field, context), key);
    boolean present = value >= 0;
    return nestedWrite.findMap(
        message,
        present ? MessageRewriter.high(value) : 0,
        present ? MessageRewriter.low(value) : 0,
        present);
  }

  /** A buffer for a map editor's new entries of a map in a value, made ready. */
  ProtoWriter inner() {
    inner.release(MAX_RETAINED_BYTES);
    inner.reset();
    return inner;
  }

  /** Sets the map in the value to {@code entries} ({@code KeyValueList.values} fields). */
  boolean writeMap(EvalContext context, ProtoWriter entries) {
    mapValue.setMap(
        RawMessages.entries(mapEntries, entries.array(), 0, entries.size(), KeyValueList.VALUES));
    return write(context, mapValue);
  }

  Host host() {
    return field.host();
  }

  /**
   * Writes {@code value} (not nil). A value of a type the field cannot hold changes nothing, as in
   * the Collector (a name set to an int). Returns whether the message changed.
   */
  boolean write(EvalContext context, Value value) {
    byte[] message = context.load(field.host());
    int offset = context.loadedOffset();
    int length = context.loadedLength();
    begin();
    switch (field.kind()) {
      case ENTRY -> {
        setEntry.start(value, Targets.attributesField(field, context));
        rewriter.editEntries(message, offset, length, setEntry.field, setEntry, out);
      }
      case NESTED_ENTRY -> {
        setNested.start(value, Targets.attributesField(field, context));
        rewriter.editEntries(message, offset, length, setNested.field, setNested, out);
      }
      case NESTED_ANY -> {
        long existing = rewriter.findMessage(message, offset, length, field.number());
        encoded.reset();
        int mark = encoded.beginLengthDelimited(field.number());
        if (existing >= 0) {
          nestedWrite.write(
              message,
              MessageRewriter.high(existing),
              MessageRewriter.low(existing),
              true,
              value,
              encoded);
        } else {
          nestedWrite.write(message, 0, 0, false, value, encoded);
        }
        encoded.endLengthDelimited(mark);
        rewriter.replaceField(
            message, offset, length, field.number(), encoded.array(), encoded.size(), out);
      }
      case MAP -> {
        if (value.kind != Value.Kind.MAP) {
          return false;
        }
        setMap.start(value.map, Targets.attributesField(field, context));
        rewriter.editEntries(message, offset, length, setMap.field, setMap, out);
      }
      default -> {
        if (!encodeField(value)) {
          return false;
        }
        if (field.parent() == 0) {
          rewriter.replaceField(
              message, offset, length, field.number(), encoded.array(), encoded.size(), out);
        } else {
          long inner = rewriter.findMessage(message, offset, length, field.parent());
          nested.reset();
          int mark = nested.beginLengthDelimited(field.parent());
          if (inner >= 0) {
            rewriter.replaceField(
                message,
                MessageRewriter.high(inner),
                MessageRewriter.low(inner),
                field.number(),
                encoded.array(),
                encoded.size(),
                nested);
          } else {
            nested.writeBytes(encoded.array(), 0, encoded.size());
          }
          nested.endLengthDelimited(mark);
          rewriter.replaceField(
              message, offset, length, field.parent(), nested.array(), nested.size(), out);
        }
      }
    }
    return commit(context, message, offset, length);
  }

  /** Makes {@link #out} ready for a new message. */
  void begin() {
    out.release(MAX_RETAINED_BYTES);
    out.reset();
  }

  /** Stores {@link #out} as the host's new bytes unless they are the old ones. */
  boolean commit(EvalContext context, byte[] message, int offset, int length) {
    if (out.size() == length
        && Arrays.equals(out.array(), 0, length, message, offset, offset + length)) {
      return false;
    }
    context.store(field.host(), out.array(), out.size());
    return true;
  }

  /** The field as it will be written into {@link #encoded}; false when the value does not fit. */
  private boolean encodeField(Value value) {
    encoded.reset();
    int number = field.number();
    switch (field.kind()) {
      case STRING -> {
        if (value.kind != Value.Kind.STRING) {
          return false;
        }
        // proto3 leaves a default value out.
        if (value.length > 0) {
          encoded.writeLengthDelimitedHeader(number, value.length);
          encoded.writeBytes(value.bytes, value.offset, value.length);
        }
      }
      case INT -> {
        if (value.kind != Value.Kind.INT) {
          return false;
        }
        int enumValue = (int) value.longValue;
        if (enumValue != 0) {
          encoded.writeTag(number, WireType.VARINT);
          encoded.writeVarint64(enumValue);
        }
      }
      case UINT32 -> {
        if (value.kind != Value.Kind.INT) {
          return false;
        }
        long low = value.longValue & UINT32_MASK;
        if (low != 0) {
          encoded.writeTag(number, WireType.VARINT);
          encoded.writeVarint64(low);
        }
      }
      case FIXED64 -> {
        if (value.kind != Value.Kind.INT) {
          return false;
        }
        if (value.longValue != 0) {
          encoded.writeTag(number, WireType.I64);
          encoded.writeFixed64(value.longValue);
        }
      }
      default -> {
        int mark = encoded.beginLengthDelimited(number);
        values.write(value, encoded);
        encoded.endLengthDelimited(mark);
      }
    }
    return true;
  }

  /**
   * Sets one key's entry: its first entry is written anew, later ones go, and one is appended when
   * the key is absent. What the new entry holds is the subclass's.
   */
  private abstract class KeyedSet implements MessageRewriter.EntryRule {
    Value value;
    private boolean written;
    int field;

    void start(Value value, int field) {
      this.value = value;
      this.field = field;
      this.written = false;
    }

    /** Writes the entry that replaces {@code entry}, or that is appended when it is null. */
    abstract void write(MessageRewriter.Entry entry, ProtoWriter into);

    @Override
    public MessageRewriter.Decision decide(MessageRewriter.Entry entry, ProtoWriter into) {
      if (!entry.keyEquals(key)) {
        return MessageRewriter.Decision.KEEP;
      }
      if (written) {
        return MessageRewriter.Decision.DROP;
      }
      written = true;
      write(entry, into);
      return MessageRewriter.Decision.REPLACED;
    }

    @Override
    public void finish(ProtoWriter into) {
      if (!written) {
        write(null, into);
      }
      value = null;
    }
  }

  /** Sets one key to the value. */
  private final class SetEntry extends KeyedSet {
    @Override
    void write(MessageRewriter.Entry entry, ProtoWriter into) {
      values.writeEntry(field, key, 0, key.length, value, into);
    }
  }

  /** Sets a value at depth below one key, in the key's value (created when absent). */
  private final class SetNested extends KeyedSet {
    @Override
    void write(MessageRewriter.Entry entry, ProtoWriter into) {
      boolean present = entry != null && entry.valueOffset() >= 0;
      byte[] bytes = entry == null ? key : entry.bytes();
      int valueOffset = entry == null ? 0 : entry.valueOffset();
      int valueLength = entry == null ? 0 : entry.valueLength();
      int at = into.beginLengthDelimited(field);
      into.writeLengthDelimitedHeader(KeyValue.KEY, key.length);
      into.writeBytes(key, 0, key.length);
      int any = into.beginLengthDelimited(KeyValue.VALUE);
      nestedWrite.write(bytes, valueOffset, valueLength, present, value, into);
      into.endLengthDelimited(any);
      into.endLengthDelimited(at);
    }
  }

  /** Replaces the whole map with the entries of another. */
  private final class SetMap implements MessageRewriter.EntryRule {
    private AttributeCursor source;
    int field;

    void start(AttributeCursor source, int field) {
      this.source = source;
      this.field = field;
    }

    @Override
    public MessageRewriter.Decision decide(MessageRewriter.Entry entry, ProtoWriter into) {
      return MessageRewriter.Decision.DROP;
    }

    @Override
    public void finish(ProtoWriter into) {
      source.reset();
      while (source.next()) {
        TextView k = source.key();
        values.writeEntry(field, values.copy(k), 0, k.length(), source.value(), into);
      }
      source = null;
    }
  }
}
