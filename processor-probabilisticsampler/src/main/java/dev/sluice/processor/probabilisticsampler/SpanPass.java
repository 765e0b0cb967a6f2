package dev.sluice.processor.probabilisticsampler;

import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.ItemVisitor;
import dev.sluice.pdata.view.AnyValueView;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.SpanFieldScan;
import dev.sluice.pdata.view.SpanView;
import dev.sluice.pdata.view.TextView;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One thread's pass over the spans of a batch: reads each span's trace ID, {@code trace_state} and
 * {@code sampling.priority} in one walk of its fields (the data model's {@link SpanFieldScan}; the
 * span view and an attribute cursor for a span the walk leaves), decides as the OpenTelemetry
 * Collector does, drops the span or, when it is kept and its tracestate changes, gives it the new
 * {@code trace_state} through the span editor. Holds only reusable scratch state.
 */
final class SpanPass implements ItemVisitor {
  static final byte[] PRIORITY_KEY = "sampling.priority".getBytes(StandardCharsets.UTF_8);

  /** Room for a string priority; a longer one (unusual) grows it. */
  private static final int PRIORITY_TEXT_BYTES = 32;

  private static final int HASH_SAMPLED_SLOT = SamplerCounters.slot(Policy.TRACE_ID_HASH, true);
  private static final int HASH_NOT_SAMPLED_SLOT =
      SamplerCounters.slot(Policy.TRACE_ID_HASH, false);

  private final Sampler sampler;

  /**
   * Whether spans are read by one walk of their fields ({@link SpanFieldScan}) and, in {@code
   * hash_seed} mode, those with a trace ID and neither a trace_state nor a priority take the short
   * path (decided without parsing a tracestate, marked with the pre-built {@link HashMark}), rather
   * than through the span view and the general decision. Off only in tests that compare the two.
   */
  private final boolean fastPaths;

  private final boolean hashFastPath;
  private final SpanFieldScan scan;
  private final int prioritySlot;
  private final long hashThreshold;
  private final HashMark hashMark;
  private final byte[] mark;
  private final AttributeCursor attributes = new AttributeCursor();
  private final TraceState traceState = new TraceState();
  private final byte[] traceStateIn = new byte[TraceState.MAX_LENGTH];
  private final byte[] traceStateOut = new byte[TraceState.MAX_LENGTH + TraceState.MAX_GROWTH];
  private byte[] priorityText = new byte[PRIORITY_TEXT_BYTES];
  final long[] counts = SamplerCounters.newCounts();

  // The span being looked at.
  private long traceIdHigh;
  private long traceIdLow;
  private boolean hasTraceId;
  private int traceStateLength;
  private int traceStateFields;
  private int priorityDecision;

  SpanPass(Sampler sampler) {
    this(sampler, true);
  }

  SpanPass(Sampler sampler, boolean fastPaths) {
    this.sampler = sampler;
    this.fastPaths = fastPaths;
    this.hashFastPath = fastPaths && sampler.kind == Sampler.Kind.HASH;
    this.hashThreshold = sampler.hashThreshold();
    this.hashMark = hashFastPath ? new HashMark(hashThreshold) : null;
    this.mark = hashFastPath ? new byte[hashMark.length()] : null;
    // In hash_seed mode the trace ID is hashed as soon as the walk reads it.
    this.scan =
        hashFastPath
            ? new SpanFieldScan().traceFields(this::hashTraceId)
            : new SpanFieldScan().traceFields();
    this.prioritySlot = scan.key(PRIORITY_KEY);
  }

  // The hash sampler's randomness of the trace ID the scan read last.
  private long hashRandomness;

  private void hashTraceId(long high, long low) {
    hashRandomness =
        SamplingMath.hashRandomness(
            SamplingMath.fnvHashAfterSeed(sampler.hashSeedState, high, low));
  }

  @Override
  public void visit(BatchItem item) {
    SpanView span = item.span();
    if (fastPaths && scan.scan(span)) {
      takeScan();
      if (hashFastPath
          && hasTraceId
          && traceStateFields == 0
          && priorityDecision == PriorityText.DEFER) {
        // Nearly every span: decided from its trace ID alone.
        decideByHash(item);
        return;
      }
    } else {
      read(span);
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
    long randomness = hashRandomness;
    if (hashThreshold <= randomness) {
      counts[HASH_SAMPLED_SLOT]++;
      hashMark.writeTo(randomness, mark, 0);
      item.editSpan().setTraceState(mark, 0, mark.length);
    } else {
      counts[HASH_NOT_SAMPLED_SLOT]++;
      item.drop();
    }
  }

  /** Takes what the scan found of the span. */
  private void takeScan() {
    SpanFieldScan scan = this.scan;
    traceIdHigh = scan.traceIdHigh();
    traceIdLow = scan.traceIdLow();
    hasTraceId = (traceIdHigh | traceIdLow) != 0;
    traceStateFields = scan.traceStateFields();
    if (traceStateFields == 0) {
      traceStateLength = 0; // nearly every span: nothing to copy
    } else {
      takeTraceState(scan.traceState());
    }
    priorityDecision =
        scan.found(prioritySlot) ? priorityDecision(scan.value(prioritySlot)) : PriorityText.DEFER;
  }

  /** Reads the span through its view and an attribute cursor. */
  private void read(SpanView span) {
    traceIdHigh = span.traceIdHigh();
    traceIdLow = span.traceIdLow();
    hasTraceId = (traceIdHigh | traceIdLow) != 0;
    traceStateFields = -1; // not counted
    takeTraceState(span.traceState());
    priorityDecision = PriorityText.DEFER;
    if (span.attributes(attributes).find(PRIORITY_KEY)) {
      priorityDecision = priorityDecision(attributes.value());
    }
  }

  private void takeTraceState(TextView text) {
    traceStateLength = text.length();
    if (traceStateLength <= TraceState.MAX_LENGTH) {
      text.copyTo(traceStateIn, 0);
    }
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

  /** Gives the span the new tracestate, unless it is byte for byte the old one. */
  private void writeTraceState(BatchItem item) {
    int length = traceState.writeTo(traceStateOut);
    if (length == traceStateLength
        && Arrays.equals(traceStateOut, 0, length, traceStateIn, 0, length)) {
      return;
    }
    item.editSpan().setTraceState(traceStateOut, 0, length);
  }
}
