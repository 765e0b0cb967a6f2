package dev.sluice.pdata.internal;

import dev.sluice.pdata.edit.AttributeActions;
import dev.sluice.pdata.edit.AttributeActions.Action;
import dev.sluice.pdata.edit.AttributeActions.Kind;
import dev.sluice.pdata.internal.OtlpFields.KeyValue;
import dev.sluice.pdata.internal.OtlpFields.Span;
import java.util.Arrays;

/**
 * The common case of {@link AttributeActionsRule}'s actions in one pass over a message, without its
 * table: every action sets a key to a constant value ({@code insert}, {@code update}, {@code
 * upsert} with a value) or deletes a key by name, and no two actions name the same key, so that
 * each action touches its own entries and the order they run in matters only for where added
 * entries go. The pass walks the message's fields once, notes the entry fields to leave out or to
 * write anew, and the output is the message's bytes copied in runs around them, with each changed
 * or added entry written from its field's bytes, encoded once per attributes field number.
 *
 * <p>The output is the general path's, byte for byte: the first entry with a set key gets the value
 * (unless it is already written as the new entry would be), later ones are kept, every entry with a
 * deleted key goes, added entries follow the message's fields in the order of their actions. A
 * message whose fields are not all of the shapes the general path reads without its reader (see
 * {@link AttributeActionsTable}) is {@link #NOT_HANDLED}, and left to the general path.
 *
 * <p>One per rule (it keeps the last message's plan); allocates nothing per message once its tables
 * have grown to the message's count of changed entries.
 */
final class ConstantActionsPass {
  /** {@link #plan}: no action changes the message. */
  static final int UNCHANGED = -1;

  /** {@link #plan}: the message has a field of a shape this pass leaves to the general path. */
  static final int NOT_HANDLED = -2;

  private static final int KEY_TAG = WireType.tag(KeyValue.KEY, WireType.LEN);
  private static final int VALUE_TAG = WireType.tag(KeyValue.VALUE, WireType.LEN);

  /** Attributes fields below this have one-byte tags, the only ones this pass compares. */
  private static final int ONE_BYTE_TAG_FIELDS = 16;

  /** Lengths below this take one varint byte. */
  private static final int SHORT_LENGTH_LIMIT = 0x80;

  /** A tag byte and a one-byte length (or a one-byte varint). */
  private static final int TAG_AND_SHORT_LENGTH_BYTES = 2;

  /** Where an entry's key length is, from its tag, when every length takes one byte. */
  private static final int KEY_LENGTH_AT = 2 * TAG_AND_SHORT_LENGTH_BYTES - 1;

  /** The lowest one-byte tag with a field number (1): lower ones are field 0, which is invalid. */
  private static final int FIRST_ONE_BYTE_TAG = 1 << 3;

  private static final int WIRE_TYPE_MASK = 7;

  private static final int INITIAL_CUTS = 8;

  /** Actions one pass takes: a bit each in {@link #found}. */
  static final int MAX_ACTIONS = Long.SIZE;

  /** No entry written in place of a cut: the entry is deleted. */
  private static final int DELETED = -1;

  private final byte[][] keys;
  private final byte[][] values;
  private final Kind[] kinds;
  // The actions' keys, told apart by length before any compare.
  private final AttributeKeys keyLookup;
  // Per attributes field number, per action: the whole entry field a set writes (null for deletes),
  // made at the first message with that field number.
  private final byte[][][] entriesByField = new byte[ONE_BYTE_TAG_FIELDS][][];

  // The last plan: the message, the entry fields [cutStart, cutEnd) left out, and what is written
  // instead (an action's entry, or DELETED); bit a set: action a's key was found.
  private byte[] source = MessageView.NO_BYTES;
  private int sourceOffset;
  private int sourceLength;
  private byte[][] entries;
  private long found;
  private int cutCount;
  private int[] cutStart = new int[INITIAL_CUTS];
  private int[] cutEnd = new int[INITIAL_CUTS];
  private int[] cutWith = new int[INITIAL_CUTS];

  // The key of the entry that entryEnd read last.
  private int entryKeyStart;
  private int entryKeyLength;

  private ConstantActionsPass(byte[][] keys, byte[][] values, Kind[] kinds) {
    this.keys = keys;
    this.values = values;
    this.kinds = kinds;
    this.keyLookup = AttributeKeys.ofDistinct(keys);
  }

  /** The pass for {@code actions}, or null when some action is not of the kinds it takes. */
  static ConstantActionsPass of(AttributeActions actions) {
    Action[] list = actions.actions();
    byte[][] constants = actions.constants();
    if (list.length == 0 || list.length > MAX_ACTIONS) {
      return null;
    }
    byte[][] keys = new byte[list.length][];
    byte[][] values = new byte[list.length][];
    Kind[] kinds = new Kind[list.length];
    for (int a = 0; a < list.length; a++) {
      Action action = list[a];
      boolean constantSet =
          (action.kind() == Kind.INSERT
                  || action.kind() == Kind.UPDATE
                  || action.kind() == Kind.UPSERT)
              && action.value() != AttributeActions.NONE
              && action.from() == AttributeActions.NONE;
      boolean keyDelete =
          action.kind() == Kind.DELETE
              && action.pattern() == null
              && action.key() != AttributeActions.NONE;
      if (!constantSet && !keyDelete) {
        return null;
      }
      keys[a] = constants[action.key()];
      values[a] = constantSet ? constants[action.value()] : null;
      kinds[a] = action.kind();
      for (int b = 0; b < a; b++) {
        if (Arrays.equals(keys[a], keys[b])) {
          return null; // actions on one key see each other's results: the general path's case
        }
      }
    }
    return new ConstantActionsPass(keys, values, kinds);
  }

  /**
   * Plans the actions on the entries of field {@code attributesField} of the message: returns the
   * length of the message they make, for {@link #write}, or {@link #UNCHANGED}, or {@link
   * #NOT_HANDLED}. {@code commonSpan}: the message is a span the validator passed as common ({@link
   * BatchItem#commonSpan}), so that each of its attributes fields is a key and then a value with
   * one-byte lengths, and an entry whose key length no action has is passed by its length alone.
   */
  int plan(byte[] message, int offset, int length, int attributesField, boolean commonSpan) {
    if (attributesField <= 0 || attributesField >= ONE_BYTE_TAG_FIELDS) {
      return NOT_HANDLED;
    }
    boolean byKeyLength = commonSpan && attributesField == Span.ATTRIBUTES;
    byte[][] fieldEntries = entriesFor(attributesField);
    int attributeTag = WireType.tag(attributesField, WireType.LEN);
    found = 0;
    cutCount = 0;
    int newLength = length;
    int limit = offset + length;
    int p = offset;
    while (p < limit) {
      int tag = message[p];
      if (tag != attributeTag) {
        // Most other fields have a one-byte tag (a field number from 1 to 15) and are of a fixed
        // size or one-byte length: passed over here, the rest by the general skip.
        int type = tag & WIRE_TYPE_MASK;
        if (tag >= FIRST_ONE_BYTE_TAG && p + 1 < limit) {
          if (type == WireType.LEN && message[p + 1] >= 0) {
            p += TAG_AND_SHORT_LENGTH_BYTES + message[p + 1];
            continue;
          }
          if (type == WireType.I64) {
            p += 1 + Long.BYTES;
            continue;
          }
          if (type == WireType.VARINT && message[p + 1] >= 0) {
            p += TAG_AND_SHORT_LENGTH_BYTES;
            continue;
          }
        }
        p = AttributeActionsTable.simpleFieldEnd(message, p, limit);
        if (p < 0) {
          return NOT_HANDLED;
        }
        continue;
      }
      if (byKeyLength
          && p + KEY_LENGTH_AT < limit
          && message[p + 1] >= 0
          && !keyLookup.mayHaveLength(message[p + KEY_LENGTH_AT])) {
        // Validated as a key and then a value: no action's key, whatever its bytes. (The two
        // checks before keep each step forward and inside the message whatever the bytes.)
        p += TAG_AND_SHORT_LENGTH_BYTES + message[p + 1];
        continue;
      }
      int end;
      int keyStart;
      int keyLength;
      int entryLength = p + 1 < limit ? message[p + 1] : -1;
      if (entryLength >= 0
          && p + TAG_AND_SHORT_LENGTH_BYTES + 1 < limit
          && message[p + TAG_AND_SHORT_LENGTH_BYTES] == KEY_TAG
          && message[p + TAG_AND_SHORT_LENGTH_BYTES + 1] >= 0) {
        // The entry every SDK writes for a short key and value: one-byte lengths throughout.
        end = p + TAG_AND_SHORT_LENGTH_BYTES + entryLength;
        keyLength = message[p + TAG_AND_SHORT_LENGTH_BYTES + 1];
        keyStart = p + 2 * TAG_AND_SHORT_LENGTH_BYTES;
        int keyEnd = keyStart + keyLength;
        if (end > limit
            || keyEnd + 1 >= end
            || message[keyEnd] != VALUE_TAG
            || message[keyEnd + 1] < 0
            || keyEnd + TAG_AND_SHORT_LENGTH_BYTES + message[keyEnd + 1] != end) {
          end = entryEnd(message, p, limit);
          if (end < 0) {
            return NOT_HANDLED;
          }
        }
      } else {
        end = entryEnd(message, p, limit);
        if (end < 0) {
          return NOT_HANDLED;
        }
        keyStart = entryKeyStart;
        keyLength = entryKeyLength;
      }
      int a = keyLookup.indexOf(message, keyStart, keyLength);
      if (a >= 0) {
        if (kinds[a] == Kind.DELETE) {
          cut(p, end, DELETED);
          newLength -= end - p;
        } else if ((found & (1L << a)) == 0) {
          found |= 1L << a;
          byte[] entry = fieldEntries[a];
          if (kinds[a] != Kind.INSERT && !Arrays.equals(message, p, end, entry, 0, entry.length)) {
            cut(p, end, a);
            newLength += entry.length - (end - p);
          }
        }
      }
      p = end;
    }
    if (p != limit) {
      return NOT_HANDLED;
    }
    boolean appends = false;
    for (int a = 0; a < kinds.length; a++) {
      if (adds(a)) {
        newLength += fieldEntries[a].length;
        appends = true;
      }
    }
    if (cutCount == 0 && !appends) {
      return UNCHANGED;
    }
    source = message;
    sourceOffset = offset;
    sourceLength = length;
    entries = fieldEntries;
    return newLength;
  }

  /**
   * The end of the entry field at {@code p} when it is of the shape every SDK writes (the key
   * field, then the value field ending the entry, each length below 2^14), or -1; its key is then
   * at {@link #entryKeyStart}, {@link #entryKeyLength} bytes long.
   */
  private int entryEnd(byte[] message, int p, int limit) {
    int entryLength = AttributeActionsTable.shortLength(message, p + 1, limit);
    int entryStart = p + 1 + (entryLength < SHORT_LENGTH_LIMIT ? 1 : 2);
    int end = entryStart + entryLength;
    if (entryLength < 0 || end > limit) {
      return -1;
    }
    if (entryStart >= end || message[entryStart] != KEY_TAG) {
      return -1;
    }
    int keyLength = AttributeActionsTable.shortLength(message, entryStart + 1, end);
    int keyStart = entryStart + 1 + (keyLength < SHORT_LENGTH_LIMIT ? 1 : 2);
    int keyEnd = keyStart + keyLength;
    if (keyLength < 0 || keyEnd >= end || message[keyEnd] != VALUE_TAG) {
      return -1;
    }
    int valueLength = AttributeActionsTable.shortLength(message, keyEnd + 1, end);
    if (valueLength < 0
        || keyEnd + 1 + (valueLength < SHORT_LENGTH_LIMIT ? 1 : 2) + valueLength != end) {
      return -1;
    }
    entryKeyStart = keyStart;
    entryKeyLength = keyLength;
    return end;
  }

  /** Whether action {@code a} adds its entry: a set that found no entry, unless an update. */
  private boolean adds(int a) {
    return kinds[a] != Kind.DELETE && kinds[a] != Kind.UPDATE && (found & (1L << a)) == 0;
  }

  /** Writes the planned message into {@code into} from {@code at}. */
  void write(byte[] into, int at) {
    int copyFrom = sourceOffset;
    for (int c = 0; c < cutCount; c++) {
      int run = cutStart[c] - copyFrom;
      System.arraycopy(source, copyFrom, into, at, run);
      at += run;
      if (cutWith[c] != DELETED) {
        byte[] entry = entries[cutWith[c]];
        System.arraycopy(entry, 0, into, at, entry.length);
        at += entry.length;
      }
      copyFrom = cutEnd[c];
    }
    int tail = sourceOffset + sourceLength - copyFrom;
    System.arraycopy(source, copyFrom, into, at, tail);
    at += tail;
    for (int a = 0; a < kinds.length; a++) {
      if (adds(a)) {
        byte[] entry = entries[a];
        System.arraycopy(entry, 0, into, at, entry.length);
        at += entry.length;
      }
    }
  }

  /** Lets go of the planned message, so that no request stays reachable through the pass. */
  void release() {
    source = MessageView.NO_BYTES;
  }

  /** Writes the planned message of {@code length} bytes (from {@link #plan}) into {@code out}. */
  void write(ProtoWriter out, int length) {
    out.reset();
    out.ensureRemaining(length);
    write(out.array(), 0);
    out.advance(length);
  }

  private void cut(int start, int end, int with) {
    if (cutCount == cutStart.length) {
      int grown = 2 * cutCount;
      cutStart = Arrays.copyOf(cutStart, grown);
      cutEnd = Arrays.copyOf(cutEnd, grown);
      cutWith = Arrays.copyOf(cutWith, grown);
    }
    cutStart[cutCount] = start;
    cutEnd[cutCount] = end;
    cutWith[cutCount] = with;
    cutCount++;
  }

  /** The entry fields the set actions write, as the general path encodes them, for this field. */
  private byte[][] entriesFor(int attributesField) {
    byte[][] made = entriesByField[attributesField];
    if (made != null) {
      return made;
    }
    made = new byte[keys.length][];
    ProtoWriter writer = new ProtoWriter();
    for (int a = 0; a < keys.length; a++) {
      if (values[a] == null) {
        continue;
      }
      writer.reset();
      int entryBytes =
          Varint.lengthDelimitedSize(KeyValue.KEY, keys[a].length)
              + Varint.lengthDelimitedSize(KeyValue.VALUE, values[a].length);
      writer.writeLengthDelimitedHeader(attributesField, entryBytes);
      writer.writeLengthDelimitedHeader(KeyValue.KEY, keys[a].length);
      writer.writeBytes(keys[a], 0, keys[a].length);
      writer.writeLengthDelimitedHeader(KeyValue.VALUE, values[a].length);
      writer.writeBytes(values[a], 0, values[a].length);
      made[a] = writer.toByteArray();
    }
    entriesByField[attributesField] = made;
    return made;
  }
}
