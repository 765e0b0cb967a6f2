package dev.sluice.processor.probabilisticsampler;

import dev.sluice.component.telemetry.RateLimitedLog;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.otlp.BatchItem;
import dev.sluice.pdata.otlp.ItemVisitor;
import dev.sluice.pdata.wire.ProtoWriter;
import dev.sluice.pdata.wire.WireReader;
import dev.sluice.pdata.wire.WireType;
import java.nio.charset.StandardCharsets;

/**
 * One thread's pass over the spans of a batch: reads each span's trace ID, {@code trace_state} and
 * {@code sampling.priority} from its bytes, decides as the OpenTelemetry Collector does, drops the
 * span or, when it is kept and its tracestate changes, writes it anew with the new {@code
 * trace_state} and every other field copied as bytes. Holds only reusable scratch state.
 */
final class SpanPass implements ItemVisitor {
  private static final int TRACE_ID = 1;
  private static final int TRACE_STATE = 3;
  private static final int ATTRIBUTES = 9;
  private static final int TRACE_ID_TAG = WireType.tag(TRACE_ID, WireType.LEN);
  private static final int TRACE_STATE_TAG = WireType.tag(TRACE_STATE, WireType.LEN);
  private static final int ATTRIBUTES_TAG = WireType.tag(ATTRIBUTES, WireType.LEN);
  private static final byte[][] PRIORITY_KEY = {
    "sampling.priority".getBytes(StandardCharsets.UTF_8)
  };

  /** A rewritten span's buffer is given back past this size, so one huge span does not stay. */
  private static final int MAX_RETAINED_BYTES = 1 << 20;

  private final Sampler sampler;
  private final RateLimitedLog malformedLog;
  private final WireReader reader = new WireReader();
  private final WireReader attributeReader = new WireReader();
  private final FoundValue priority = new FoundValue();
  private final FoundValue[] priorityHolder = {priority};
  private final TraceState traceState = new TraceState();
  private final byte[] traceStateOut = new byte[TraceState.MAX_LENGTH + TraceState.MAX_GROWTH];
  private final ProtoWriter spanOut = new ProtoWriter();
  final long[] counts = SamplerCounters.newCounts();
  long malformed;

  // The span being looked at.
  private byte[] bytes;
  private long traceIdHigh;
  private long traceIdLow;
  private boolean hasTraceId;
  private int traceStateStart;
  private int traceStateLength;
  private int traceStateFieldStart;

  SpanPass(Sampler sampler, RateLimitedLog malformedLog) {
    this.sampler = sampler;
    this.malformedLog = malformedLog;
  }

  @Override
  public void visit(BatchItem item) {
    try {
      read(item.array(), item.offset(), item.length());
    } catch (MalformedOtlpException e) {
      // Validated at the edge, so a bug upstream: keep the span as it is rather than guess.
      malformed++;
      malformedLog.log("Keeping a span that does not parse: " + e.getMessage());
      return;
    }
    if (!decide(item)) {
      item.drop();
    }
  }

  /** Releases an outsized buffer at the end of a batch. */
  void finishBatch() {
    spanOut.release(MAX_RETAINED_BYTES);
    bytes = null;
  }

  private void read(byte[] span, int offset, int length) throws MalformedOtlpException {
    bytes = span;
    hasTraceId = false;
    traceIdHigh = 0;
    traceIdLow = 0;
    traceStateStart = -1;
    traceStateLength = 0;
    traceStateFieldStart = -1;
    priority.reset();
    reader.wrap(span, offset, length);
    while (reader.hasRemaining()) {
      int fieldStart = reader.position();
      int tag = reader.readTag();
      if (tag == TRACE_ID_TAG) {
        int idLength = reader.readLength();
        int p = reader.position();
        hasTraceId = false;
        if (idLength == Long.BYTES * 2) {
          traceIdHigh = FoundValue.bigEndian64(span, p);
          traceIdLow = FoundValue.bigEndian64(span, p + Long.BYTES);
          hasTraceId = (traceIdHigh | traceIdLow) != 0;
        }
        reader.position(p + idLength);
      } else if (tag == TRACE_STATE_TAG) {
        traceStateLength = reader.readLength();
        traceStateStart = reader.position();
        traceStateFieldStart = fieldStart;
        reader.position(traceStateStart + traceStateLength);
      } else if (tag == ATTRIBUTES_TAG) {
        int attributeLength = reader.readLength();
        int p = reader.position();
        if (!priority.found()) {
          FoundValue.match(attributeReader, span, p, attributeLength, PRIORITY_KEY, priorityHolder);
        }
        reader.position(p + attributeLength);
      } else {
        reader.skipValue(tag, FoundValue.MAX_GROUP_DEPTH);
      }
    }
  }

  /** Decides the span; writes its new tracestate when it is kept. Returns whether it is kept. */
  private boolean decide(BatchItem item) {
    boolean parsed =
        traceState.parse(bytes, Math.max(traceStateStart, 0), Math.max(traceStateLength, 0));
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
                  SamplingMath.fnvHash(sampler.hashSeed, traceIdHigh, traceIdLow));
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
    int priorityDecision = priorityDecision();
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

  private int priorityDecision() {
    switch (priority.type) {
      case FoundValue.INT:
        return priority.bits == 0
            ? PriorityText.ZERO
            : priority.bits > 0 ? PriorityText.POSITIVE : PriorityText.DEFER;
      case FoundValue.DOUBLE:
        double value = Double.longBitsToDouble(priority.bits);
        return value == 0
            ? PriorityText.ZERO
            : value > 0 ? PriorityText.POSITIVE : PriorityText.DEFER;
      case FoundValue.STRING:
        return PriorityText.classify(bytes, priority.start, priority.length);
      default:
        return PriorityText.DEFER;
    }
  }

  /** Rewrites the span with the new tracestate, unless it is byte for byte the old one. */
  private void writeTraceState(BatchItem item) {
    int length = traceState.writeTo(traceStateOut);
    if (length == traceStateLength
        && java.util.Arrays.equals(
            traceStateOut,
            0,
            length,
            bytes,
            Math.max(traceStateStart, 0),
            Math.max(traceStateStart, 0) + length)) {
      return;
    }
    byte[] span = item.array();
    int end = item.offset() + item.length();
    spanOut.reset();
    boolean written = false;
    reader.wrap(span, item.offset(), item.length());
    try {
      while (reader.hasRemaining()) {
        int fieldStart = reader.position();
        int tag = reader.readTag();
        reader.skipValue(tag, FoundValue.MAX_GROUP_DEPTH);
        int field = tag >>> 3;
        if (tag == TRACE_STATE_TAG) {
          // The last trace_state is the one in effect; it is written where that one was.
          if (fieldStart == traceStateFieldStart) {
            writeTraceStateField(length);
            written = true;
          }
          continue;
        }
        if (!written && traceStateFieldStart < 0 && field > TRACE_STATE) {
          writeTraceStateField(length);
          written = true;
        }
        spanOut.writeBytes(span, fieldStart, reader.position() - fieldStart);
      }
    } catch (MalformedOtlpException e) {
      throw new IllegalStateException("a span read once does not read again", e);
    }
    if (!written) {
      writeTraceStateField(length);
    }
    assert reader.position() == end;
    item.replace(spanOut.array(), 0, spanOut.size());
  }

  private void writeTraceStateField(int length) {
    if (length > 0) {
      spanOut.writeLengthDelimitedHeader(TRACE_STATE, length);
      spanOut.writeBytes(traceStateOut, 0, length);
    }
  }
}
