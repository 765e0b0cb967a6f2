package dev.sluice.pdata.internal;

import static dev.sluice.pdata.internal.WireType.TYPE_BITS;

import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.MalformedOtlpException.Kind;
import dev.sluice.pdata.internal.OtlpFields.AnyValue;
import dev.sluice.pdata.internal.OtlpFields.KeyValue;
import dev.sluice.pdata.internal.OtlpFields.Span;
import dev.sluice.pdata.internal.OtlpFields.Status;
import dev.sluice.pdata.view.SpanView;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Locale;

/**
 * The hot loop of indexing: checks every field of a message against its {@link MessageTable},
 * recursing into nested messages, over raw positions in the request's bytes.
 *
 * <p>One-byte tags, one-byte lengths and ASCII strings (nearly all of OTLP) take short inline
 * paths; everything else (longer tags and lengths, unknown fields, UTF-8 beyond ASCII) takes the
 * general one. {@code KeyValue} and {@code AnyValue}, most of a span's messages, have loops of
 * their own that test their usual tags first.
 *
 * <p>Nothing is recorded per field for error messages: each nested message records where it starts,
 * and a rejected request's field path is found by reading those messages again ({@link #path}).
 */
public final class WireValidator {
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INTS =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long HIGH_BITS = 0x8080808080808080L;

  /**
   * For a string of n bytes (n up to 16): the bytes of the first and second 8-byte read it owns.
   */
  private static final long[] LOW_MASKS = new long[17];

  private static final long[] HIGH_MASKS = new long[17];

  static {
    for (int n = 0; n <= 16; n++) {
      LOW_MASKS[n] = n >= 8 ? -1L : (1L << (8 * n)) - 1;
      HIGH_MASKS[n] = n <= 8 ? 0 : n == 16 ? -1L : (1L << (8 * (n - 8))) - 1;
    }
  }

  // The tags the loops of KeyValue, AnyValue and Span test first, as constants a switch can take.
  private static final int KEY_TAG = KeyValue.KEY << TYPE_BITS | WireType.LEN;
  private static final int VALUE_TAG = KeyValue.VALUE << TYPE_BITS | WireType.LEN;
  private static final int STRING_VALUE_TAG = AnyValue.STRING_VALUE << TYPE_BITS | WireType.LEN;
  private static final int BOOL_VALUE_TAG = AnyValue.BOOL_VALUE << TYPE_BITS | WireType.VARINT;
  private static final int INT_VALUE_TAG = AnyValue.INT_VALUE << TYPE_BITS | WireType.VARINT;
  private static final int DOUBLE_VALUE_TAG = AnyValue.DOUBLE_VALUE << TYPE_BITS | WireType.I64;
  private static final int TRACE_ID_TAG = Span.TRACE_ID << TYPE_BITS | WireType.LEN;
  private static final int SPAN_ID_TAG = Span.SPAN_ID << TYPE_BITS | WireType.LEN;
  private static final int TRACE_STATE_TAG = Span.TRACE_STATE << TYPE_BITS | WireType.LEN;
  private static final int PARENT_SPAN_ID_TAG = Span.PARENT_SPAN_ID << TYPE_BITS | WireType.LEN;
  private static final int NAME_TAG = Span.NAME << TYPE_BITS | WireType.LEN;
  private static final int KIND_TAG = Span.KIND << TYPE_BITS | WireType.VARINT;
  private static final int START_TIME_TAG = Span.START_TIME_UNIX_NANO << TYPE_BITS | WireType.I64;
  private static final int END_TIME_TAG = Span.END_TIME_UNIX_NANO << TYPE_BITS | WireType.I64;
  private static final int ATTRIBUTES_TAG = Span.ATTRIBUTES << TYPE_BITS | WireType.LEN;
  private static final int STATUS_TAG = Span.STATUS << TYPE_BITS | WireType.LEN;
  private static final int STATUS_CODE_TAG = Status.CODE << TYPE_BITS | WireType.VARINT;

  // Span.flags has a tag of two bytes (a varint of 7 bits per byte).
  private static final int FLAGS_TAG = Span.FLAGS << TYPE_BITS | WireType.I32;
  private static final byte FLAGS_TAG_FIRST_BYTE = (byte) (FLAGS_TAG & 0x7F | 0x80);
  private static final int FLAGS_TAG_SECOND_BYTE = FLAGS_TAG >>> 7;

  private static final MessageTable KEY_VALUE = MessageTable.of(OtlpSchema.KEY_VALUE);
  private static final MessageTable ANY_VALUE = MessageTable.of(OtlpSchema.ANY_VALUE);
  private static final MessageTable SPAN = MessageTable.of(OtlpSchema.SPAN);

  private final int maxDepth;
  private final WireReader scratch = new WireReader();
  private byte[] bytes;

  // Where each message being walked starts, and its table's id (an int: storing references per
  // message would cost a GC write barrier each): the error path is rebuilt from them.
  private final int[] frameStart;
  private final int[] frameTable;
  public int errorDepth = -1;

  // The results of the general readers: a tag and where its value starts; a length's end.
  private int tag;
  public int valueStart;
  public int lengthEnd;

  public WireValidator(int maxDepth) {
    this.maxDepth = maxDepth;
    frameStart = new int[maxDepth + 2];
    frameTable = new int[maxDepth + 2];
  }

  /** Starts a request: its bytes, and the request message at depth 0. */
  public void begin(byte[] request, int start, MessageSchema schema) {
    bytes = request;
    frameStart[0] = start;
    frameTable[0] = MessageTable.of(schema).id;
    errorDepth = -1;
    stringCount = 0;
    invalidStringSeen = false;
  }

  public void end() {
    bytes = null;
  }

  /** The depth of the message that holds the last error, or -1. */
  public int errorDepth() {
    return errorDepth;
  }

  /**
   * Records that a message of {@code table} starts at {@code start}, at {@code depth + 1}; {@code
   * tagStart} is where the field holding it starts, where a nesting error points.
   */
  public void enter(MessageTable table, int tagStart, int start, int depth)
      throws MalformedOtlpException {
    if (depth >= maxDepth) {
      throw tooDeep(tagStart, depth);
    }
    frameStart[depth + 1] = start;
    frameTable[depth + 1] = table.id;
  }

  public MalformedOtlpException fail(int offset, String reason, int depth) {
    return fail(offset, Kind.WIRE_FORMAT, reason, depth);
  }

  public MalformedOtlpException fail(int offset, Kind kind, String reason, int depth) {
    errorDepth = depth;
    return new MalformedOtlpException("", offset, kind, reason);
  }

  private MalformedOtlpException tooDeep(int tagStart, int depth) {
    return fail(
        tagStart,
        Kind.NESTING_DEPTH,
        "messages nested deeper than the limit of " + maxDepth,
        depth);
  }

  // Messages: the hot loops. Lengths and one-byte values are read inline; only the unusual cases
  // call out.

  /**
   * Checks the fields of a message of {@code table} whose bytes are {@code [p, end)}, at {@code
   * depth}; returns {@code end}.
   */
  public int message(MessageTable table, int p, int end, int depth) throws MalformedOtlpException {
    if (table.special == MessageTable.SPAN && !checkStringsInPlace) {
      lastSpanCommon = span(p, end, depth);
      return end;
    }
    lastSpanCommon = false;
    return fields(table, p, end, depth, false);
  }

  /**
   * Whether the message {@link #message} checked last was a span whose every field the span's own
   * loop passed: IDs, name, kind, times, status and flags of their usual sizes, and attributes that
   * are each a key (one-byte length) and then a value (one-byte length) and nothing else.
   */
  public boolean lastSpanCommon() {
    return lastSpanCommon;
  }

  /**
   * Checks the one field that starts at {@code p} in a message of {@code table} that ends at {@code
   * end}, at {@code depth}; returns where the field ends.
   */
  public int field(MessageTable table, int p, int end, int depth) throws MalformedOtlpException {
    return fields(table, p, end, depth, true);
  }

  private int fields(MessageTable table, int p, int end, int depth, boolean one)
      throws MalformedOtlpException {
    final byte[] b = bytes;
    final byte[] actions = table.actions;
    while (p < end) {
      int tag = b[p];
      int q = p + 1;
      if (tag < 0) {
        if (q < end && b[q] >= 0) {
          // A two-byte tag, such as Span.flags (field 16).
          tag = (tag & 0x7F) | (b[q] << 7);
          q++;
        } else {
          readTag(p, end, depth);
          tag = this.tag;
          q = this.valueStart;
        }
      }
      // Unsigned: a tag of 32 bits (field numbers from 2^28) is negative as an int.
      byte action =
          Integer.compareUnsigned(tag, MessageTable.TABLE_TAGS) < 0
              ? actions[tag]
              : table.action(tag);
      if (action >= MessageTable.STRING && action <= MessageTable.LAST_LENGTH_DELIMITED) {
        int lengthStart = q;
        int length;
        if (q < end && (length = b[q]) >= 0) {
          q++;
          if (length > end - q) {
            throw lengthExceeds(q - 1, length, end - q, depth);
          }
        } else {
          length = lengthSlow(q, end, depth);
          q = lengthEnd;
        }
        int valueEnd = q + length;
        switch (action) {
          case MessageTable.STRING:
            string(q, length, depth);
            break;
          case MessageTable.MESSAGE:
            {
              MessageTable child = table.child(tag);
              if (child.special != MessageTable.KEY_VALUE
                  || checkStringsInPlace
                  || depth + 2 > maxDepth
                  || !simpleKeyValue(b, q, valueEnd)) {
                child(child, p, q, valueEnd, depth);
              }
            }
            break;
          case MessageTable.BYTES:
            break;
          case MessageTable.ID:
            checkId(table, tag, lengthStart, length, depth);
            break;
          case MessageTable.PACKED_VARINT:
            packedVarints(q, valueEnd, depth);
            break;
          case MessageTable.PACKED_FIXED64:
            packedFixed(lengthStart, length, 8, depth);
            break;
          default:
            packedFixed(lengthStart, length, 4, depth);
        }
        p = valueEnd;
      } else {
        switch (action) {
          case MessageTable.VARINT:
            p = q < end && b[q] >= 0 ? q + 1 : varintSlow(q, end, depth);
            break;
          case MessageTable.FIXED64:
            p = fixed(q, 8, end, depth);
            break;
          case MessageTable.FIXED32:
            p = fixed(q, 4, end, depth);
            break;
          case MessageTable.WRONG_WIRE_TYPE:
            throw wrongWireType(table, tag, p, depth);
          case MessageTable.BAD_TAG:
            // A tag with field number 0 or wire type 6 or 7: the general reader says which.
            readTag(p, end, depth);
            throw new IllegalStateException("tag " + tag + " passed the tag checks");
          default:
            p = skipUnknown(tag, p, q, end, depth);
        }
      }
      if (one) {
        break;
      }
    }
    return p;
  }

  /** {@link #keyValueShape}: not the usual attribute; the general path must check it. */
  private static final int NOT_SIMPLE = 0;

  /**
   * {@link #keyValueShape}: a string attribute whose structure is checked. Every byte of it other
   * than its key and value (tags and one-byte lengths) is below 0x80, so the whole attribute is
   * ASCII exactly when its two strings are, and one ASCII check of its bytes (or of a run of such
   * fields) checks both.
   */
  private static final int TEXT = 1;

  /** {@link #keyValueShape}: an integer, boolean or double attribute, checked completely. */
  private static final int CHECKED = 2;

  /**
   * The usual attribute, checked without a call: a {@code KeyValue} made of a key (one-byte length)
   * and an {@code AnyValue} holding one string, integer, boolean or double, exactly filling {@code
   * [s, e)}. Returns false, having recorded nothing, for anything else, which the general path then
   * checks.
   */
  private boolean simpleKeyValue(byte[] b, int s, int e) {
    int shape = keyValueShape(b, s, e);
    return shape == CHECKED || (shape == TEXT && isAscii(b, s, e - s));
  }

  /**
   * Which of {@link #NOT_SIMPLE}, {@link #TEXT} (strings not yet checked) or {@link #CHECKED} the
   * {@code KeyValue} at {@code [s, e)} is.
   */
  private static int keyValueShape(byte[] b, int s, int e) {
    if (e - s < 4 || b[s] != KEY_TAG) {
      return NOT_SIMPLE;
    }
    int keyLength = b[s + 1];
    int keyStart = s + 2;
    int valueTag = keyStart + keyLength;
    if (keyLength < 0 || valueTag + 2 > e || b[valueTag] != VALUE_TAG) {
      return NOT_SIMPLE;
    }
    int valueLength = b[valueTag + 1];
    int v = valueTag + 2;
    if (valueLength < 1 || v + valueLength != e) {
      return NOT_SIMPLE;
    }
    int tag = b[v];
    if (tag == STRING_VALUE_TAG) {
      int stringLength = v + 1 < e ? b[v + 1] : -1;
      return stringLength < 0 || v + 2 + stringLength != e ? NOT_SIMPLE : TEXT;
    }
    if (tag == INT_VALUE_TAG || tag == BOOL_VALUE_TAG) {
      // A varint of up to 10 bytes that ends exactly at e.
      int last = e - 1;
      if (last <= v || last - v > 10 || b[last] < 0) {
        return NOT_SIMPLE;
      }
      for (int i = v + 1; i < last; i++) {
        if (b[i] >= 0) {
          return NOT_SIMPLE;
        }
      }
    } else if (tag != DOUBLE_VALUE_TAG || v + 9 != e) {
      return NOT_SIMPLE;
    }
    return isAscii(b, keyStart, keyLength) ? CHECKED : NOT_SIMPLE;
  }

  /**
   * Checks a nested message of {@code table} at {@code [start, end)}, in a field that starts at
   * {@code tagStart}.
   */
  private void child(MessageTable table, int tagStart, int start, int end, int depth)
      throws MalformedOtlpException {
    if (depth >= maxDepth) {
      throw tooDeep(tagStart, depth);
    }
    frameStart[depth + 1] = start;
    frameTable[depth + 1] = table.id;
    switch (table.special) {
      case MessageTable.KEY_VALUE:
        keyValue(start, end, depth + 1);
        return;
      case MessageTable.ANY_VALUE:
        anyValue(start, end, depth + 1);
        return;
      default:
        fields(table, start, end, depth + 1, false);
    }
  }

  /**
   * {@code Span} as SDKs write it: IDs of the right length, short ASCII strings, one-byte varints,
   * fixed times, simple attributes, a status, flags. The first field that is anything else hands
   * the rest of the span to the general loop, which checks it fully.
   *
   * <p>Adjacent fields that must be all ASCII when their structure passes (the name, the trace
   * state, the kind, string attributes) form a run whose bytes are checked for ASCII in one pass
   * when the run ends: one loop over a few hundred bytes instead of a short loop per string, each
   * ending at a length the branch predictor cannot know. A run that is not all ASCII hands the span
   * from the run's start to the general loop, which finds the string and checks its UTF-8.
   *
   * <p>Returns true when this loop passed the whole span, false when the general loop took over.
   */
  private boolean span(int p, int end, int depth) throws MalformedOtlpException {
    final byte[] b = bytes;
    int run = -1;
    while (p < end) {
      int tag = b[p];
      int length = p + 1 < end ? b[p + 1] : -1;
      int next = p + 2 + length;
      int fieldEnd = -1;
      boolean text = false;
      switch (tag) {
        case TRACE_ID_TAG:
          if ((length == SpanView.TRACE_ID_BYTES || length == 0) && next <= end) {
            fieldEnd = next;
          }
          break;
        case SPAN_ID_TAG:
        case PARENT_SPAN_ID_TAG:
          if ((length == SpanView.SPAN_ID_BYTES || length == 0) && next <= end) {
            fieldEnd = next;
          }
          break;
        case TRACE_STATE_TAG:
        case NAME_TAG:
          if (length >= 0 && next <= end) {
            fieldEnd = next;
            text = true;
          }
          break;
        case KIND_TAG: // a one-byte varint
          if (length >= 0) {
            fieldEnd = p + 2;
            text = true;
          }
          break;
        case START_TIME_TAG:
        case END_TIME_TAG:
          if (end - p >= 9) {
            fieldEnd = p + 9;
          }
          break;
        case ATTRIBUTES_TAG:
          if (length >= 0 && next <= end && depth + 2 <= maxDepth) {
            int shape = keyValueShape(b, p + 2, next);
            if (shape != NOT_SIMPLE) {
              fieldEnd = next;
              text = shape == TEXT;
            }
          }
          break;
        case STATUS_TAG: // empty, or a one-byte code alone
          if (next <= end
              && depth < maxDepth
              && (length == 0 || (length == 2 && b[p + 2] == STATUS_CODE_TAG && b[p + 3] >= 0))) {
            fieldEnd = next;
          }
          break;
        case FLAGS_TAG_FIRST_BYTE:
          if (length == FLAGS_TAG_SECOND_BYTE && end - p >= 6) {
            fieldEnd = p + 6;
          }
          break;
        default:
          break;
      }
      if (text) {
        if (run < 0) {
          run = p;
        }
        p = fieldEnd;
        continue;
      }
      if (run >= 0) {
        if (!isAscii(b, run, p - run)) {
          fields(SPAN, run, end, depth, false);
          return false;
        }
        run = -1;
      }
      if (fieldEnd < 0) {
        fields(SPAN, p, end, depth, false);
        return false;
      }
      p = fieldEnd;
    }
    if (run >= 0 && !isAscii(b, run, end - run)) {
      fields(SPAN, run, end, depth, false);
      return false;
    }
    return true;
  }

  /**
   * {@code KeyValue}: a key string, then the value message. Anything else hands the rest of the
   * message to the general loop.
   */
  private void keyValue(int p, int end, int depth) throws MalformedOtlpException {
    final byte[] b = bytes;
    while (p < end) {
      int tag = b[p];
      if (tag != KEY_TAG && tag != VALUE_TAG) {
        message(KEY_VALUE, p, end, depth);
        return;
      }
      int q = p + 1;
      int length;
      if (q < end && (length = b[q]) >= 0) {
        q++;
        if (length > end - q) {
          throw lengthExceeds(q - 1, length, end - q, depth);
        }
      } else {
        length = lengthSlow(q, end, depth);
        q = lengthEnd;
      }
      int valueEnd = q + length;
      if (tag == KEY_TAG) {
        string(q, length, depth);
      } else {
        if (depth >= maxDepth) {
          throw tooDeep(p, depth);
        }
        frameStart[depth + 1] = q;
        frameTable[depth + 1] = ANY_VALUE.id;
        anyValue(q, valueEnd, depth + 1);
      }
      p = valueEnd;
    }
  }

  /**
   * {@code AnyValue}: usually one string, integer or boolean. Anything else hands the rest of the
   * message to the general loop.
   */
  private void anyValue(int p, int end, int depth) throws MalformedOtlpException {
    final byte[] b = bytes;
    while (p < end) {
      int tag = b[p];
      int q = p + 1;
      if (tag == STRING_VALUE_TAG) {
        int length;
        if (q < end && (length = b[q]) >= 0) {
          q++;
          if (length > end - q) {
            throw lengthExceeds(q - 1, length, end - q, depth);
          }
        } else {
          length = lengthSlow(q, end, depth);
          q = lengthEnd;
        }
        string(q, length, depth);
        p = q + length;
      } else if (tag == INT_VALUE_TAG || tag == BOOL_VALUE_TAG) {
        p = q < end && b[q] >= 0 ? q + 1 : varintSlow(q, end, depth);
      } else {
        message(ANY_VALUE, p, end, depth);
        return;
      }
    }
  }

  // Strings: checked as UTF-8 after the walk, in one tight loop over their recorded ranges,
  // which keeps the walk's loops small. Only a request with invalid UTF-8 is walked again, with
  // strings checked in place, to name the field. The record has a fixed size: when it fills up,
  // the strings in it are checked then and there, so a request of many tiny strings costs no
  // memory.

  private static final int RECORDED_STRINGS = 1024;

  private final int[] strings = new int[2 * RECORDED_STRINGS];
  private int stringCount;
  private boolean invalidStringSeen;
  public boolean checkStringsInPlace;
  public boolean lastSpanCommon;

  /** Walks from now on check strings where they are (the second walk of a rejected request). */
  public void checkStringsInPlace(boolean inPlace) {
    checkStringsInPlace = inPlace;
    stringCount = 0;
    invalidStringSeen = false;
  }

  private void string(int start, int length, int depth) throws MalformedOtlpException {
    if (checkStringsInPlace) {
      if (!isAscii(bytes, start, length)) {
        checkUtf8(start, start + length, depth);
      }
      return;
    }
    record(start, length);
  }

  private void record(int start, int length) {
    int n = stringCount;
    if (n == strings.length) {
      invalidStringSeen |= !recordedValid();
      n = 0;
    }
    strings[n] = start;
    strings[n + 1] = length;
    stringCount = n + 2;
  }

  /** Whether every string recorded since the last call is valid UTF-8. */
  public boolean recordedStringsValid() {
    boolean valid = recordedValid() && !invalidStringSeen;
    invalidStringSeen = false;
    return valid;
  }

  private boolean recordedValid() {
    byte[] b = bytes;
    int[] ranges = strings;
    int n = stringCount;
    stringCount = 0;
    for (int i = 0; i < n; i += 2) {
      int start = ranges[i];
      int length = ranges[i + 1];
      if (!isAscii(b, start, length) && Utf8.firstInvalid(b, start, start + length) >= 0) {
        return false;
      }
    }
    return true;
  }

  // Values: the paths the hot loops call out to.

  private MalformedOtlpException lengthExceeds(int lengthStart, long length, int left, int depth) {
    return fail(
        lengthStart,
        "length " + length + " exceeds the " + left + " bytes left in the enclosing message",
        depth);
  }

  /**
   * Reads a length of any size at {@code q}, checked; leaves the payload's start in {@code
   * lengthEnd}.
   */
  private int lengthSlow(int q, int end, int depth) throws MalformedOtlpException {
    scratch.wrap(bytes, q, end - q);
    try {
      int length = scratch.readLength();
      lengthEnd = scratch.position();
      return length;
    } catch (MalformedOtlpException e) {
      errorDepth = depth;
      throw e;
    }
  }

  private void checkUtf8(int start, int end, int depth) throws MalformedOtlpException {
    int invalid = Utf8.firstInvalid(bytes, start, end);
    if (invalid >= 0) {
      throw fail(invalid, Kind.INVALID_UTF8, "invalid UTF-8", depth);
    }
  }

  private void checkId(MessageTable table, int tag, int lengthStart, int length, int depth)
      throws MalformedOtlpException {
    int idBytes = table.schema.field(tag >>> 3).idBytes();
    if (length != 0 && length != idBytes) {
      throw fail(
          lengthStart,
          Kind.ID_LENGTH,
          "length " + length + ", expected " + idBytes + " bytes or empty",
          depth);
    }
  }

  private int varintSlow(int q, int end, int depth) throws MalformedOtlpException {
    scratch.wrap(bytes, q, end - q);
    try {
      scratch.readVarint64();
      return scratch.position();
    } catch (MalformedOtlpException e) {
      errorDepth = depth;
      throw e;
    }
  }

  private void packedFixed(int lengthStart, int length, int width, int depth)
      throws MalformedOtlpException {
    if (length % width != 0) {
      throw fail(
          lengthStart,
          "packed length " + length + " is not a multiple of " + width + " bytes",
          depth);
    }
  }

  private void packedVarints(int p, int packedEnd, int depth) throws MalformedOtlpException {
    while (p < packedEnd) {
      p = bytes[p] >= 0 ? p + 1 : varintSlow(p, packedEnd, depth);
    }
  }

  // Structure: what the indexer reads between the checked fields.

  /**
   * Reads the tag at {@code p}, checked; returns it and leaves its value's start in {@link
   * #valueStart()}.
   */
  public int tagAt(int p, int end, int depth) throws MalformedOtlpException {
    int first = p < end ? bytes[p] : -1;
    if (first > 0 && (first & 7) <= WireType.I32 && (first >>> 3) != 0) {
      tag = first;
      valueStart = p + 1;
      return first;
    }
    readTag(p, end, depth);
    return tag;
  }

  public int valueStart() {
    return valueStart;
  }

  /**
   * Reads the length at {@code q} of a length-delimited field; returns it and leaves the payload's
   * start in {@link #lengthEnd()}.
   */
  public int lengthAt(int q, int end, int depth) throws MalformedOtlpException {
    if (q < end) {
      int length = bytes[q];
      if (length >= 0) {
        if (length > end - q - 1) {
          throw lengthExceeds(q, length, end - q - 1, depth);
        }
        lengthEnd = q + 1;
        return length;
      }
    }
    return lengthSlow(q, end, depth);
  }

  public int lengthEnd() {
    return lengthEnd;
  }

  /**
   * Whether {@code length} bytes at {@code start} are all ASCII. A string of up to 16 bytes (most
   * keys and values) is checked with two 8-byte reads masked to its length, without a branch on the
   * length, so that strings of mixed lengths do not cost mispredictions.
   */
  private static boolean isAscii(byte[] b, int start, int length) {
    if (length <= 16 && start <= b.length - 16) {
      long bits =
          ((long) LONGS.get(b, start) & LOW_MASKS[length])
              | ((long) LONGS.get(b, start + 8) & HIGH_MASKS[length]);
      return (bits & HIGH_BITS) == 0;
    }
    return isAsciiLong(b, start, length);
  }

  private static boolean isAsciiLong(byte[] b, int start, int length) {
    if (length < 8) {
      int bits = 0;
      for (int i = start; i < start + length; i++) {
        bits |= b[i];
      }
      return bits >= 0;
    }
    int last = start + length - 8;
    long bits = (long) LONGS.get(b, last);
    for (int i = start; i < last; i += 8) {
      bits |= (long) LONGS.get(b, i);
    }
    return (bits & HIGH_BITS) == 0;
  }

  private int fixed(int q, int width, int end, int depth) throws MalformedOtlpException {
    if (end - q < width) {
      throw fail(q, "truncated fixed" + (width * 8) + ": needs " + width + " bytes", depth);
    }
    return q + width;
  }

  private int skipUnknown(int tag, int p, int q, int end, int depth) throws MalformedOtlpException {
    if ((tag & 7) == WireType.EGROUP) {
      throw fail(p, "unexpected end-group for field " + (tag >>> 3), depth);
    }
    scratch.wrap(bytes, q, end - q);
    try {
      scratch.skipValue(tag, maxDepth - depth);
      return scratch.position();
    } catch (MalformedOtlpException e) {
      errorDepth = depth;
      throw e;
    }
  }

  /**
   * Reads a tag of any size at {@code p}, with every check; sets {@code tag} and {@code
   * valueStart}.
   */
  private void readTag(int p, int end, int depth) throws MalformedOtlpException {
    scratch.wrap(bytes, p, end - p);
    try {
      tag = scratch.readTag();
      valueStart = scratch.position();
    } catch (MalformedOtlpException e) {
      errorDepth = depth;
      throw e;
    }
  }

  private MalformedOtlpException wrongWireType(MessageTable table, int tag, int p, int depth) {
    FieldSchema field = table.schema.field(tag >>> 3);
    int wireType = tag & 7;
    return fail(
        p,
        Kind.WIRE_TYPE,
        "wire type "
            + wireType
            + " ("
            + WireType.name(wireType)
            + "), expected "
            + field.kind().wireType()
            + " ("
            + WireType.name(field.kind().wireType())
            + ") for "
            + field.kind().name().toLowerCase(Locale.ROOT),
        depth);
  }

  // Error paths: built only when a request is rejected.

  /**
   * The field path to an error at {@code offset} in the message at {@link #errorDepth()}: at each
   * level, the field that holds the next level's message (or, at the last level, the offset), found
   * by reading the level's message again, with the index of repeated fields.
   *
   * <p>Allocates the path and a reader only: nothing here is sized by a number read from the input
   * (a field number can be up to 2^29 - 1), and each level is read at most twice, field by field.
   */
  public String path(byte[] request, int offset) {
    StringBuilder path = new StringBuilder();
    WireReader scan = new WireReader();
    for (int d = 0; d <= errorDepth; d++) {
      boolean last = d == errorDepth;
      int target = last ? offset : frameStart[d + 1];
      int holderStart = holderOf(scan, request, frameStart[d], target, last);
      if (holderStart < 0) {
        break;
      }
      int number = tag >>> 3;
      int occurrence = occurrencesBefore(scan, request, frameStart[d], holderStart, number);
      MessageSchema schema = MessageTable.byId(frameTable[d]).schema;
      FieldSchema field = schema == null ? null : schema.field(number);
      if (path.length() > 0) {
        path.append('.');
      }
      if (field == null) {
        path.append("field#").append(number);
      } else {
        path.append(field.name());
        if (field.isRepeated()) {
          path.append('[').append(occurrence).append(']');
        }
      }
    }
    return path.toString();
  }

  /**
   * Where the field that holds {@code target} starts, in the message that starts at {@code start};
   * leaves its tag in {@link #tag}. -1 when no field holds it. With {@code last}, a field also
   * holds the target when it starts there or cannot be read past it.
   */
  private int holderOf(WireReader scan, byte[] request, int start, int target, boolean last) {
    scan.wrap(request, start, request.length - start);
    while (true) {
      int tagStart = scan.position();
      if (!last && tagStart >= target) {
        return -1;
      }
      int fieldTag;
      try {
        fieldTag = scan.readTag();
      } catch (MalformedOtlpException e) {
        return -1;
      }
      boolean holds;
      if (last && tagStart == target) {
        holds = true;
      } else {
        try {
          scan.skipValue(fieldTag, maxDepth);
          holds = scan.position() > target;
        } catch (MalformedOtlpException e) {
          holds = true;
        }
      }
      if (holds) {
        tag = fieldTag;
        return tagStart;
      }
    }
  }

  /** How many fields numbered {@code number} start in {@code [start, holderStart)}. */
  private int occurrencesBefore(
      WireReader scan, byte[] request, int start, int holderStart, int number) {
    scan.wrap(request, start, holderStart - start);
    int count = 0;
    try {
      while (scan.hasRemaining()) {
        int fieldTag = scan.readTag();
        if (fieldTag >>> 3 == number) {
          count++;
        }
        scan.skipValue(fieldTag, maxDepth);
      }
    } catch (MalformedOtlpException e) {
      // Cannot happen: these fields were read the same way to find the holder.
    }
    return count;
  }
}
