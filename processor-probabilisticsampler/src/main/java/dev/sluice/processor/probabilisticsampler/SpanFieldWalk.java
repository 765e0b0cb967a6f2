package dev.sluice.processor.probabilisticsampler;

import dev.sluice.pdata.internal.OtlpFields.KeyValue;
import dev.sluice.pdata.internal.OtlpFields.Span;
import dev.sluice.pdata.internal.WireType;
import dev.sluice.pdata.view.SpanView;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * One walk of a span's top-level fields that finds what the sampler needs: the trace ID, the
 * trace_state fields, where a new trace_state goes, and whether an attribute may be keyed {@code
 * sampling.priority} (what the span view, the attribute key walk and the rewrite otherwise walk
 * three times). For {@code hash_seed} mode it also hashes the trace ID as soon as it is read. A
 * reusable flyweight: the results stay in its fields until the next walk.
 */
final class SpanFieldWalk {
  private static final int TRACE_ID_TAG = WireType.tag(Span.TRACE_ID, WireType.LEN);
  private static final int TRACE_STATE_TAG = WireType.tag(Span.TRACE_STATE, WireType.LEN);
  private static final int ATTRIBUTES_TAG = WireType.tag(Span.ATTRIBUTES, WireType.LEN);
  private static final byte KEY_TAG = (byte) WireType.tag(KeyValue.KEY, WireType.LEN);
  private static final byte[] PRIORITY_KEY = SpanPass.PRIORITY_KEY;

  /** The least tag of a field numbered {@code trace_state} or higher. */
  private static final int FIRST_TAG_FROM_TRACE_STATE = WireType.tag(Span.TRACE_STATE, 0);

  private static final int WIRE_TYPE_MASK = 7;
  private static final int VARINT_PAYLOAD = 0x7F;

  /** A trace ID's two halves as one load each; the hash and the W3C rule read them big-endian. */
  private static final VarHandle BIG_ENDIAN_LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  private final boolean hash;
  private final int hashSeedState;
  private int cursor;

  // What the last walk found.
  /** The last trace_id field's two halves, or zeros when it is not 16 bytes (or absent). */
  long traceIdHigh;

  long traceIdLow;

  /** The hash sampler's randomness of that trace ID (when hashing). */
  long hashRandomness;

  /** The last trace_state field's value, and how many trace_state fields there are. */
  int stateFrom;

  int stateLength;
  int stateFields;

  /** The last trace_state field, tag included. */
  int stateFieldStart;

  int stateFieldEnd;

  /** The first field numbered trace_state or higher, or the span's end. */
  int insertAt;

  /** Whether an attribute may be keyed {@code sampling.priority}: a cursor must look. */
  boolean mayHavePriority;

  /** A walk that, when {@code hash}, hashes trace IDs from the seed's {@code hashSeedState}. */
  SpanFieldWalk(boolean hash, int hashSeedState) {
    this.hash = hash;
    this.hashSeedState = hashSeedState;
  }

  /**
   * Walks the span {@code span[offset, offset + length)}; false, with the results incomplete, for a
   * span holding a group (unknown and rare).
   */
  boolean walk(byte[] span, int offset, int length) {
    int p = offset;
    int end = offset + length;
    traceIdHigh = 0;
    traceIdLow = 0;
    // Locals in the loop, fields after it: the walk keeps them in registers.
    int stateFrom = 0;
    int stateLength = 0;
    int stateFields = 0;
    int insert = -1;
    boolean priority = false;
    while (p < end) {
      int fieldStart = p;
      int tag = span[p++];
      if (tag < 0) {
        cursor = fieldStart;
        tag = (int) varint(span);
        p = cursor;
      }
      if (insert < 0 && tag >= FIRST_TAG_FROM_TRACE_STATE) {
        insert = fieldStart;
      }
      switch (tag & WIRE_TYPE_MASK) {
        case WireType.VARINT:
          while (span[p++] < 0) {
            // the value's continuation bytes
          }
          break;
        case WireType.I64:
          p += Long.BYTES;
          break;
        case WireType.I32:
          p += Integer.BYTES;
          break;
        case WireType.LEN:
          if (tag == ATTRIBUTES_TAG) {
            // The commonest field, and it comes in runs: the run is walked at once.
            p = attributeRun(span, p, end);
            priority |= runMayHavePriority;
            break;
          }
          int fieldLength = span[p++];
          if (fieldLength < 0) {
            cursor = p - 1;
            fieldLength = (int) varint(span);
            p = cursor;
          }
          if (tag == TRACE_ID_TAG) {
            readTraceId(span, p, fieldLength);
          } else if (tag == TRACE_STATE_TAG) {
            stateFrom = p;
            stateLength = fieldLength;
            stateFields++;
            stateFieldStart = fieldStart;
            stateFieldEnd = p + fieldLength;
          }
          p += fieldLength;
          break;
        default:
          return false;
      }
    }
    this.insertAt = insert < 0 ? end : insert;
    this.stateFrom = stateFrom;
    this.stateLength = stateLength;
    this.stateFields = stateFields;
    this.mayHavePriority = priority;
    return true;
  }

  /**
   * Takes the trace ID at {@code span[p, p + length)} (none unless 16 bytes) and, when hashing,
   * hashes it at once: the hash is a chain of 16 dependent multiplications, which then runs while
   * the walk goes on through the span's other fields instead of after it.
   */
  private void readTraceId(byte[] span, int p, int length) {
    boolean full = length == SpanView.TRACE_ID_BYTES;
    long high = full ? (long) BIG_ENDIAN_LONGS.get(span, p) : 0;
    long low = full ? (long) BIG_ENDIAN_LONGS.get(span, p + Long.BYTES) : 0;
    traceIdHigh = high;
    traceIdLow = low;
    if (hash) {
      hashRandomness =
          SamplingMath.hashRandomness(SamplingMath.fnvHashAfterSeed(hashSeedState, high, low));
    }
  }

  // Whether the last attributeRun saw a KeyValue that may be keyed sampling.priority.
  private boolean runMayHavePriority;

  /**
   * Walks the attributes fields from the length of the one at {@code p} up to the first other
   * field, reading only their lengths and the start of their keys, and returns where that field
   * starts (or {@code end}). Sets {@link #runMayHavePriority}.
   */
  private int attributeRun(byte[] span, int p, int end) {
    boolean priority = false;
    while (true) {
      int length = span[p++];
      if (length < 0) {
        cursor = p - 1;
        length = (int) varint(span);
        p = cursor;
      }
      priority |= mayBePriority(span, p, length);
      p += length;
      if (p >= end || span[p] != ATTRIBUTES_TAG) {
        break;
      }
      p++;
    }
    runMayHavePriority = priority;
    return p;
  }

  /** Whether the KeyValue at {@code span[from, from + length)} may be keyed sampling.priority. */
  private static boolean mayBePriority(byte[] span, int from, int length) {
    if (length == 0) {
      return false;
    }
    if (span[from] != KEY_TAG) {
      return true; // the key is not written first: let the cursor look
    }
    int keyLength = span[from + 1];
    if (keyLength < 0) {
      // A length of several bytes: a long key, or a short one written in more bytes than it needs.
      return true;
    }
    int keyStart = from + 2;
    return keyLength == PRIORITY_KEY.length
        && Arrays.equals(span, keyStart, keyStart + keyLength, PRIORITY_KEY, 0, keyLength);
  }

  /** The varint at {@link #cursor}, which moves past it. */
  private long varint(byte[] bytes) {
    long value = 0;
    int shift = 0;
    int p = cursor;
    byte b;
    do {
      b = bytes[p++];
      value |= (long) (b & VARINT_PAYLOAD) << shift;
      shift += 7;
    } while (b < 0);
    cursor = p;
    return value;
  }
}
