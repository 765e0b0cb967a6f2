package dev.sluice.processor.probabilisticsampler;

import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.ItemVisitor;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.internal.OtlpFields.KeyValue;
import dev.sluice.pdata.internal.OtlpFields.Span;
import dev.sluice.pdata.internal.ProtoWriter;
import dev.sluice.pdata.internal.WireReader;
import dev.sluice.pdata.internal.WireType;
import dev.sluice.pdata.view.AnyValueView;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.SpanView;
import dev.sluice.pdata.view.TextView;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One thread's pass over the spans of a batch: reads each span's trace ID, {@code trace_state} and
 * {@code sampling.priority} in one walk of its fields ({@link SpanFieldWalk}; the item's view for a
 * span the walk leaves), decides as the OpenTelemetry Collector does, drops the span or, when it is
 * kept and its tracestate changes, writes it anew with the new {@code trace_state} and every other
 * field copied as bytes. Holds only reusable scratch state.
 */
final class SpanPass implements ItemVisitor {
  private static final int TRACE_STATE_TAG = WireType.tag(Span.TRACE_STATE, WireType.LEN);
  private static final int ATTRIBUTES_TAG = WireType.tag(Span.ATTRIBUTES, WireType.LEN);
  private static final byte KEY_TAG = (byte) WireType.tag(KeyValue.KEY, WireType.LEN);
  static final byte[] PRIORITY_KEY = "sampling.priority".getBytes(StandardCharsets.UTF_8);

  /** Groups in unknown fields were checked at the edge; none nests deeper than this. */
  static final int MAX_GROUP_DEPTH = 100;

  /** A rewritten span's buffer is given back past this size, so one huge span does not stay. */
  private static final int MAX_RETAINED_BYTES = 1 << 20;

  /** Room for a string priority; a longer one (unusual) grows it. */
  private static final int PRIORITY_TEXT_BYTES = 32;

  private static final int HASH_SAMPLED_SLOT = SamplerCounters.slot(Policy.TRACE_ID_HASH, true);
  private static final int HASH_NOT_SAMPLED_SLOT =
      SamplerCounters.slot(Policy.TRACE_ID_HASH, false);

  private final Sampler sampler;

  /**
   * Whether spans are read by one walk of their fields ({@link SpanFieldWalk}) rather than through
   * the span view, and kept ones written from what it found. Off only in tests that compare the
   * two.
   */
  private final boolean fastPaths;

  /**
   * Whether spans in {@code hash_seed} mode that carry a trace ID and neither a trace_state nor a
   * priority take the short path: hashed as soon as the trace ID is read, decided without parsing a
   * tracestate, marked with the pre-built {@link HashMark}.
   */
  private final boolean hashFastPath;

  private final SpanFieldWalk walk;
  private final long hashThreshold;
  private final HashMark hashMark;
  private final WireReader reader = new WireReader();
  private final AttributeCursor attributes = new AttributeCursor();
  private final TraceState traceState = new TraceState();
  private final byte[] traceStateIn = new byte[TraceState.MAX_LENGTH];
  private final byte[] traceStateOut = new byte[TraceState.MAX_LENGTH + TraceState.MAX_GROWTH];
  private final ProtoWriter spanOut = new ProtoWriter();
  private byte[] priorityText = new byte[PRIORITY_TEXT_BYTES];
  final long[] counts = SamplerCounters.newCounts();

  // The span being looked at.
  private long traceIdHigh;
  private long traceIdLow;
  private boolean hasTraceId;
  private int traceStateLength;
  private int priorityDecision;

  SpanPass(Sampler sampler) {
    this(sampler, true);
  }

  SpanPass(Sampler sampler, boolean fastPaths) {
    this.sampler = sampler;
    this.fastPaths = fastPaths;
    this.hashFastPath = fastPaths && sampler.kind == Sampler.Kind.HASH;
    this.walk = new SpanFieldWalk(hashFastPath, sampler.hashSeedState);
    this.hashThreshold = sampler.hashThreshold();
    this.hashMark = hashFastPath ? new HashMark(hashThreshold) : null;
  }

  @Override
  public void visit(BatchItem item) {
    SpanFieldWalk walk = this.walk;
    if (!fastPaths || !walk.walk(item.array(), item.offset(), item.length())) {
      read(item, item.span());
    } else if (hashFastPath
        && walk.stateFields == 0
        && !walk.mayHavePriority
        && (walk.traceIdHigh | walk.traceIdLow) != 0) {
      // Nearly every span: decided from the walk's fields as they are.
      decideByHash(item);
      return;
    } else {
      takeWalk(item);
      if (hashFastPath
          && hasTraceId
          && traceStateFields == 0
          && priorityDecision == PriorityText.DEFER) {
        decideByHash(item);
        return;
      }
    }
    if (!decide(item)) {
      item.drop();
    }
  }

  /**
   * What {@link #decide} does for a span in {@code hash_seed} mode with a trace ID, no trace_state
   * and no priority, less what cannot apply: no tracestate to parse, no arriving threshold, no
   * error.
   */
  private void decideByHash(BatchItem item) {
    if (hashThreshold <= walk.hashRandomness) {
      counts[HASH_SAMPLED_SLOT]++;
      writeHashMark(item);
    } else {
      counts[HASH_NOT_SAMPLED_SLOT]++;
      item.drop();
    }
  }

  /**
   * Writes the kept span with the mark inserted where the walk found its place, straight into the
   * batch's replacement storage: the span's old bytes stay readable there until the visit ends.
   */
  private void writeHashMark(BatchItem item) {
    byte[] span = item.array();
    int from = item.offset();
    int end = from + item.length();
    int insertAt = walk.insertAt;
    item.replaceToBeWritten(item.length() + hashMark.length());
    byte[] into = item.array();
    int at = item.offset();
    System.arraycopy(span, from, into, at, insertAt - from);
    at += insertAt - from;
    hashMark.writeTo(walk.hashRandomness, into, at);
    at += hashMark.length();
    System.arraycopy(span, insertAt, into, at, end - insertAt);
  }

  // What the field walk found of the span's fields, for a rewrite of its trace_state.
  private int traceStateFields;
  private int traceStateFieldStart;
  private int traceStateFieldEnd;
  // Where the new trace_state goes: the first field that is a trace_state or follows one.
  private int insertAt;

  /** Takes what the walk found of the span, and reads its priority if it may have one. */
  private void takeWalk(BatchItem item) {
    SpanFieldWalk walk = this.walk;
    byte[] span = item.array();
    traceIdHigh = walk.traceIdHigh;
    traceIdLow = walk.traceIdLow;
    hasTraceId = (traceIdHigh | traceIdLow) != 0;
    insertAt = walk.insertAt;
    traceStateFields = walk.stateFields;
    traceStateFieldStart = walk.stateFieldStart;
    traceStateFieldEnd = walk.stateFieldEnd;
    int stateLength = walk.stateLength;
    traceStateLength = stateLength;
    if (stateLength > 0 && stateLength <= TraceState.MAX_LENGTH) {
      System.arraycopy(span, walk.stateFrom, traceStateIn, 0, stateLength);
    }
    priorityDecision = PriorityText.DEFER;
    if (walk.mayHavePriority) {
      SpanView view = item.span();
      if (view.attributes(attributes).find(PRIORITY_KEY)) {
        priorityDecision = priorityDecision(attributes.value());
      }
    }
  }

  /** Releases an outsized buffer at the end of a batch. */
  void finishBatch() {
    spanOut.release(MAX_RETAINED_BYTES);
  }

  private void read(BatchItem item, SpanView span) {
    insertAt = -1;
    traceIdHigh = span.traceIdHigh();
    traceIdLow = span.traceIdLow();
    hasTraceId = (traceIdHigh | traceIdLow) != 0;
    TextView text = span.traceState();
    traceStateLength = text.length();
    if (traceStateLength <= TraceState.MAX_LENGTH) {
      text.copyTo(traceStateIn, 0);
    }
    priorityDecision = PriorityText.DEFER;
    if (mayHavePriority(item) && span.attributes(attributes).find(PRIORITY_KEY)) {
      priorityDecision = priorityDecision(attributes.value());
    }
  }

  /**
   * False when no attribute of the span is keyed {@code sampling.priority}, found by a walk that
   * reads only tags, lengths and keys (nearly every span has none, and a cursor would read every
   * value); true when one may be, for the cursor to read.
   */
  private boolean mayHavePriority(BatchItem item) {
    byte[] span = item.array();
    try {
      reader.wrap(span, item.offset(), item.length());
      while (reader.hasRemaining()) {
        int tag = reader.readTag();
        if (tag != ATTRIBUTES_TAG) {
          reader.skipValue(tag, MAX_GROUP_DEPTH);
          continue;
        }
        int keyValueLength = reader.readLength();
        int keyValueEnd = reader.position() + keyValueLength;
        if (keyValueLength == 0) {
          continue;
        }
        if (span[reader.position()] != KEY_TAG) {
          return true; // the key is not written first: let the cursor look
        }
        reader.readTag();
        int keyLength = reader.readLength();
        int keyStart = reader.position();
        if (keyLength == PRIORITY_KEY.length
            && Arrays.equals(span, keyStart, keyStart + keyLength, PRIORITY_KEY, 0, keyLength)) {
          return true;
        }
        reader.position(keyValueEnd);
      }
    } catch (MalformedOtlpException e) {
      return true; // validated at the edge; the cursor reads what there is
    }
    return false;
  }

  /** What a {@code sampling.priority} value says, read as the Collector reads it. */
  private int priorityDecision(AnyValueView value) {
    switch (value.type()) {
      case INT:
        long number = value.intValue();
        return number == 0
            ? PriorityText.ZERO
            : number > 0 ? PriorityText.POSITIVE : PriorityText.DEFER;
      case DOUBLE:
        double real = value.doubleValue();
        return real == 0
            ? PriorityText.ZERO
            : real > 0 ? PriorityText.POSITIVE : PriorityText.DEFER;
      case STRING:
        TextView text = value.stringValue();
        if (text.length() > priorityText.length) {
          priorityText = new byte[text.length()];
        }
        return PriorityText.classify(priorityText, 0, text.copyTo(priorityText, 0));
      default:
        return PriorityText.DEFER;
    }
  }

  /** Decides the span; writes its new tracestate when it is kept. Returns whether it is kept. */
  private boolean decide(BatchItem item) {
    // Longer than the limit: refused without a look, as the Collector refuses it.
    boolean parsed =
        traceStateLength <= TraceState.MAX_LENGTH
            && traceState.parse(traceStateIn, 0, traceStateLength);
    Policy policy;
    long randomness;
    boolean missing = false;
    boolean carrier = true;
    boolean error = false;
    switch (sampler.kind) {
      case NEVER:
        // Randomness does not matter: only a priority can sample.
        policy = Policy.SAMPLING_PRIORITY;
        randomness = SamplingMath.ALL_RANDOMNESS;
        error = !parsed;
        break;
      case HASH:
        if (hasTraceId) {
          policy = Policy.TRACE_ID_HASH;
          randomness =
              SamplingMath.hashRandomness(
                  SamplingMath.fnvHashAfterSeed(sampler.hashSeedState, traceIdHigh, traceIdLow));
        } else {
          policy = Policy.MISSING_RANDOMNESS;
          randomness = SamplingMath.ALL_RANDOMNESS;
          missing = true;
        }
        if (!parsed) {
          error = true;
          carrier = false;
        } else if (traceState.hasRandomness() || traceState.hasThreshold()) {
          if (!missing && sampledHereBefore(randomness)) {
            SamplerCounters.count(counts, policy, true);
            return true;
          }
          // Another sampler's consistent-sampling values: left alone, the span is an error.
          error = true;
          carrier = false;
        } else {
          traceState.setRandomness(randomness);
        }
        break;
      default:
        if (!parsed) {
          policy = Policy.MISSING_RANDOMNESS;
          randomness = SamplingMath.ALL_RANDOMNESS;
          missing = true;
          error = true;
          carrier = false;
        } else if (traceState.hasRandomness()) {
          policy = Policy.SAMPLING_RANDOMNESS;
          randomness = traceState.randomness();
        } else if (hasTraceId) {
          policy = Policy.TRACE_ID_W3C;
          randomness = SamplingMath.traceIdRandomness(traceIdLow);
        } else {
          policy = Policy.MISSING_RANDOMNESS;
          randomness = SamplingMath.ALL_RANDOMNESS;
          missing = true;
        }
    }
    if (!error) {
      if (missing) {
        error = true;
      } else if (traceState.hasThreshold() && traceState.threshold() > randomness) {
        // Sampled upstream at a threshold its randomness does not meet: the threshold is false.
        traceState.clearThreshold();
        error = true;
      }
    }
    long threshold =
        error
            ? sampler.onError()
            : sampler.decide(traceState.hasThreshold(), traceState.threshold());
    if (priorityDecision == PriorityText.ZERO) {
      threshold = SamplingMath.NEVER;
      policy = Policy.SAMPLING_PRIORITY;
    } else if (priorityDecision == PriorityText.POSITIVE) {
      threshold = SamplingMath.ALWAYS;
      policy = Policy.SAMPLING_PRIORITY;
    }
    boolean sampled = threshold <= randomness;
    SamplerCounters.count(counts, policy, sampled);
    if (sampled && carrier) {
      traceState.updateThreshold(threshold);
      writeTraceState(item);
    }
    return sampled;
  }

  /**
   * Whether the span carries exactly what this sampler writes on a span it keeps ({@code rv} from
   * the hash, {@code th} at this percentage): it passed here already, as a batch the next stage
   * refused and that is offered again. Kept unchanged, so that sampling twice is sampling once.
   */
  private boolean sampledHereBefore(long randomness) {
    return traceState.hasRandomness()
        && traceState.randomness() == randomness
        && traceState.hasThreshold()
        && traceState.threshold() == sampler.hashThreshold();
  }

  /** Rewrites the span with the new tracestate, unless it is byte for byte the old one. */
  private void writeTraceState(BatchItem item) {
    int length = traceState.writeTo(traceStateOut);
    if (length == traceStateLength
        && Arrays.equals(traceStateOut, 0, length, traceStateIn, 0, length)) {
      return;
    }
    byte[] span = item.array();
    int end = item.offset() + item.length();
    spanOut.reset();
    if (insertAt >= 0 && traceStateFields <= 1) {
      // What the walk below does, from what the field walk found: the span less its trace_state,
      // with
      // the new one where the old one was or before the first later field.
      spanOut.writeBytes(span, item.offset(), insertAt - item.offset());
      writeTraceStateField(length);
      if (traceStateFields == 0) {
        spanOut.writeBytes(span, insertAt, end - insertAt);
      } else {
        spanOut.writeBytes(span, insertAt, traceStateFieldStart - insertAt);
        spanOut.writeBytes(span, traceStateFieldEnd, end - traceStateFieldEnd);
      }
      item.replace(spanOut.array(), 0, spanOut.size());
      return;
    }
    // One walk, copying runs of fields as they are: the new trace_state goes where the first old
    // one was (or before the first later field), and any other old one is left out. Which of
    // several is in effect does not matter: none of them is kept.
    boolean written = false;
    int run = item.offset();
    try {
      reader.wrap(span, item.offset(), item.length());
      while (reader.hasRemaining()) {
        int fieldStart = reader.position();
        int tag = reader.readTag();
        reader.skipValue(tag, MAX_GROUP_DEPTH);
        if (tag == TRACE_STATE_TAG) {
          spanOut.writeBytes(span, run, fieldStart - run);
          run = reader.position();
          if (!written) {
            writeTraceStateField(length);
            written = true;
          }
        } else if (!written && (tag >>> 3) > Span.TRACE_STATE) {
          spanOut.writeBytes(span, run, fieldStart - run);
          run = fieldStart;
          writeTraceStateField(length);
          written = true;
        }
      }
    } catch (MalformedOtlpException e) {
      throw new IllegalStateException("a span validated at the edge does not parse", e);
    }
    spanOut.writeBytes(span, run, end - run);
    if (!written) {
      writeTraceStateField(length);
    }
    item.replace(spanOut.array(), 0, spanOut.size());
  }

  private void writeTraceStateField(int length) {
    if (length > 0) {
      spanOut.writeLengthDelimitedHeader(Span.TRACE_STATE, length);
      spanOut.writeBytes(traceStateOut, 0, length);
    }
  }
}
