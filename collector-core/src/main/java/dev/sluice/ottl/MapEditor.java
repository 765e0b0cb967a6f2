package dev.sluice.ottl;

import dev.sluice.pdata.internal.MessageRewriter;
import dev.sluice.pdata.internal.OtlpFields.AnyValue;
import dev.sluice.pdata.internal.OtlpFields.KeyValue;
import dev.sluice.pdata.internal.OtlpFields.KeyValueList;
import dev.sluice.pdata.internal.ProtoWriter;
import java.util.Arrays;

/**
 * An editor of a map as a whole ({@code attributes}, {@code resource.attributes}, {@code cache}):
 * re-encodes the message that holds the map, deciding each entry with its {@link
 * MessageRewriter.EntryRule}. The message is stored only when it changed.
 */
abstract class MapEditor extends Editor implements MessageRewriter.EntryRule {
  final Target target;

  /** The field number of the map's entries in the message being edited. */
  int field;

  MapEditor(Target target) {
    this.target = target;
  }

  /** Evaluates the arguments for this item; false to leave the map alone. */
  boolean prepare(EvalContext context) {
    return true;
  }

  @Override
  final boolean run(EvalContext context) {
    if (!prepare(context)) {
      return false;
    }
    byte[] message = context.load(target.host());
    int offset = context.loadedOffset();
    int length = context.loadedLength();
    if (target.mapInValue()) {
      return runInValue(context, message, offset, length);
    }
    field = Targets.attributesField(target.field, context);
    beforeEntries(message, offset, length);
    target.begin();
    target.rewriter.editEntries(message, offset, length, field, this, target.out);
    return target.commit(context, message, offset, length);
  }

  /** The map inside a value ({@code delete_key(attributes["a"], "k")}): edited, then set back. */
  private boolean runInValue(EvalContext context, byte[] message, int offset, int length) {
    long map = target.mapInValue(context, message, offset, length);
    int mapOffset = MessageRewriter.high(map);
    int mapLength = MessageRewriter.low(map);
    field = KeyValueList.VALUES;
    beforeEntries(message, mapOffset, mapLength);
    ProtoWriter entries = target.inner();
    target.rewriter.editEntries(message, mapOffset, mapLength, field, this, entries);
    if (entries.size() == mapLength
        && Arrays.equals(
            entries.array(), 0, mapLength, message, mapOffset, mapOffset + mapLength)) {
      return false;
    }
    return target.writeMap(context, entries);
  }

  /** A look at the message before its entries are decided (a count, for limit). */
  void beforeEntries(byte[] message, int offset, int length) {}

  /** Writes an entry with {@code entry}'s key and a string value. */
  final void writeStringEntry(
      MessageRewriter.Entry entry, byte[] text, int textOffset, int textLength, ProtoWriter out) {
    writeEntry(
        entry.bytes(), entry.keyOffset(), entry.keyLength(), text, textOffset, textLength, out);
  }

  final void writeEntry(
      byte[] key,
      int keyOffset,
      int keyLength,
      byte[] text,
      int textOffset,
      int textLength,
      ProtoWriter out) {
    int mark = out.beginLengthDelimited(field);
    out.writeLengthDelimitedHeader(KeyValue.KEY, keyLength);
    out.writeBytes(key, keyOffset, keyLength);
    int value = out.beginLengthDelimited(KeyValue.VALUE);
    out.writeLengthDelimitedHeader(AnyValue.STRING_VALUE, textLength);
    out.writeBytes(text, textOffset, textLength);
    out.endLengthDelimited(value);
    out.endLengthDelimited(mark);
  }

  /** Writes {@code entry}'s value (as it is) under another key. */
  final void writeRenamed(MessageRewriter.Entry entry, byte[] key, int keyLength, ProtoWriter out) {
    int mark = out.beginLengthDelimited(field);
    out.writeLengthDelimitedHeader(KeyValue.KEY, keyLength);
    out.writeBytes(key, 0, keyLength);
    if (entry.valueOffset() >= 0) {
      out.writeLengthDelimitedHeader(KeyValue.VALUE, entry.valueLength());
      out.writeBytes(entry.bytes(), entry.valueOffset(), entry.valueLength());
    }
    out.endLengthDelimited(mark);
  }
}
