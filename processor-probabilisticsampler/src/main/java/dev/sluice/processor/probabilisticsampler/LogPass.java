package dev.sluice.processor.probabilisticsampler;

import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.ItemVisitor;
import dev.sluice.pdata.edit.LogRecordEditor;
import dev.sluice.pdata.view.AnyValueView;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.LogRecordView;
import dev.sluice.pdata.view.TextView;
import dev.sluice.pdata.view.ValueType;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One thread's pass over the log records of a batch: reads each record's trace ID and the
 * attributes sampling looks at through the item's view, decides as the OpenTelemetry Collector
 * does, drops the record or, when it is kept, sets its {@code sampling.randomness} and {@code
 * sampling.threshold} attributes through the log record editor as the Collector does (replaced
 * where they are, appended otherwise). Holds only reusable scratch state.
 */
final class LogPass implements ItemVisitor {

  private static final int RANDOMNESS = 0;
  private static final int THRESHOLD = 1;
  private static final int SOURCE = 2;
  private static final int PRIORITY = 3;

  /** Room for a bytes-valued {@code from_attribute}; a longer one grows it. */
  private static final int SOURCE_BYTES = 64;

  private static final double PERCENT = 100.0;

  static final String RANDOMNESS_KEY = "sampling.randomness";
  static final String THRESHOLD_KEY = "sampling.threshold";

  private final Sampler sampler;
  private final boolean useTraceId;
  private final byte[][] keys;
  private final boolean[] wanted;
  private final AttributeCursor attributes = new AttributeCursor();
  private final byte[] valueText = new byte[SamplingMath.HEX_DIGITS];
  private final byte[] digits = new byte[Long.toString(Long.MIN_VALUE).length()];
  private byte[] sourceBytes = new byte[SOURCE_BYTES];
  final long[] counts = SamplerCounters.newCounts();

  private long traceIdHigh;
  private long traceIdLow;
  private boolean hasTraceId;

  // The attributes looked at, as found (the first entry of a key counts, as in the Collector).
  private final boolean[] found = new boolean[4];
  private final byte[] randomnessText = new byte[SamplingMath.HEX_DIGITS + 1];
  private int randomnessTextLength;
  private final byte[] thresholdText = new byte[SamplingMath.HEX_DIGITS + 1];
  private int thresholdTextLength;
  private boolean sourceHashable;
  private int sourceHash;
  private boolean priorityIsNumber;
  private double priorityPercent;

  // The record's sampling state, as read and as changed.
  private boolean hasRandomness;
  private long randomnessValue;
  private boolean hasThreshold;
  private long thresholdValue;
  private boolean setRandomness;
  private boolean thresholdCleared;

  LogPass(Sampler sampler, ProbabilisticSamplerConfig config) {
    this.sampler = sampler;
    this.useTraceId = config.logsUseTraceId();
    keys =
        new byte[][] {
          RANDOMNESS_KEY.getBytes(StandardCharsets.UTF_8),
          THRESHOLD_KEY.getBytes(StandardCharsets.UTF_8),
          config.fromAttribute().getBytes(StandardCharsets.UTF_8),
          config.samplingPriority().getBytes(StandardCharsets.UTF_8)
        };
    // An attribute name left empty is not looked for.
    wanted =
        new boolean[] {
          true, true, !config.fromAttribute().isEmpty(), !config.samplingPriority().isEmpty()
        };
  }

  @Override
  public void visit(BatchItem item) {
    read(item.logRecord());
    if (!decide(item)) {
      item.drop();
    }
  }

  private void read(LogRecordView record) {
    traceIdHigh = record.traceIdHigh();
    traceIdLow = record.traceIdLow();
    hasTraceId = (traceIdHigh | traceIdLow) != 0;
    Arrays.fill(found, false);
    randomnessTextLength = -1;
    thresholdTextLength = -1;
    sourceHashable = false;
    priorityIsNumber = false;
    record.attributes(attributes);
    while (attributes.next()) {
      TextView key = attributes.key();
      for (int k = 0; k < keys.length; k++) {
        if (wanted[k] && !found[k] && key.contentEquals(keys[k])) {
          found[k] = true;
          take(k, attributes.value());
        }
      }
    }
  }

  /** Keeps what decisions need of a wanted attribute's value. */
  private void take(int key, AnyValueView value) {
    switch (key) {
      case RANDOMNESS:
        randomnessTextLength = samplingText(value, randomnessText);
        break;
      case THRESHOLD:
        thresholdTextLength = samplingText(value, thresholdText);
        break;
      case SOURCE:
        hashSource(value);
        break;
      default:
        if (value.type() == ValueType.INT) {
          priorityIsNumber = true;
          priorityPercent = value.intValue();
        } else if (value.type() == ValueType.DOUBLE) {
          priorityIsNumber = true;
          priorityPercent = value.doubleValue();
        }
    }
  }

  /**
   * Copies a string value of at most 15 bytes (one more than any valid value, so that a longer one
   * still fails to parse) into {@code into}; returns its length, or -1 for no string.
   */
  private static int samplingText(AnyValueView value, byte[] into) {
    if (value.type() != ValueType.STRING) {
      return -1;
    }
    TextView text = value.stringValue();
    int length = Math.min(text.length(), into.length);
    for (int i = 0; i < length; i++) {
      into[i] = text.byteAt(i);
    }
    return text.length() > into.length ? into.length : length;
  }

  /**
   * Hashes {@code from_attribute}'s value as the Collector does: the bytes of a string or a bytes
   * value, the decimal text of an int, {@code true}/{@code false}; an empty one is not hashed.
   * Doubles, arrays and maps are not hashed either (see the docs).
   */
  private void hashSource(AnyValueView value) {
    int seed = sampler.hashSeed;
    switch (value.type()) {
      case STRING:
        TextView text = value.stringValue();
        sourceHashable = text.length() > 0;
        sourceHash = SamplingMath.fnvHash(seed, text);
        break;
      case BYTES:
        sourceHashable = value.bytesLength() > 0;
        if (sourceHashable) {
          if (value.bytesLength() > sourceBytes.length) {
            sourceBytes = new byte[value.bytesLength()];
          }
          int length = value.copyBytes(sourceBytes, 0);
          sourceHash = SamplingMath.fnvHash(seed, sourceBytes, 0, length);
        }
        break;
      case INT:
        sourceHashable = true;
        sourceHash = SamplingMath.fnvHash(seed, digits, 0, decimal(value.intValue()));
        break;
      case BOOL:
        sourceHashable = true;
        byte[] bool = value.boolValue() ? TRUE : FALSE;
        sourceHash = SamplingMath.fnvHash(seed, bool, 0, bool.length);
        break;
      default:
        sourceHashable = false;
    }
  }

  /** Reads the string-valued sampling attributes; false when one is there and does not parse. */
  private boolean readSamplingState() {
    boolean ok = true;
    hasRandomness = false;
    hasThreshold = false;
    thresholdValue = SamplingMath.ALWAYS;
    setRandomness = false;
    thresholdCleared = false;
    if (thresholdTextLength > 0) {
      long parsed = SamplingMath.parseTValue(thresholdText, 0, thresholdTextLength);
      if (parsed < 0) {
        ok = false;
      } else {
        hasThreshold = true;
        thresholdValue = parsed;
      }
    }
    if (randomnessTextLength > 0) {
      long parsed = SamplingMath.parseRValue(randomnessText, 0, randomnessTextLength);
      if (parsed < 0) {
        ok = false;
      } else {
        hasRandomness = true;
        randomnessValue = parsed;
      }
    }
    return ok;
  }

  private boolean decide(BatchItem item) {
    boolean parsed = readSamplingState();
    Policy policy;
    long randomness = SamplingMath.ALL_RANDOMNESS;
    boolean missing = false;
    boolean carrier = true;
    boolean error = false;
    switch (sampler.kind) {
      case NEVER:
        policy = Policy.SAMPLING_PRIORITY;
        error = !parsed;
        break;
      case HASH:
        policy = Policy.MISSING_RANDOMNESS;
        missing = true;
        if (useTraceId && hasTraceId) {
          policy = Policy.TRACE_ID_HASH;
          randomness =
              SamplingMath.hashRandomness(
                  SamplingMath.fnvHash(sampler.hashSeed, traceIdHigh, traceIdLow));
          missing = false;
        } else if (sourceHashable) {
          policy = Policy.ATTRIBUTE;
          randomness = SamplingMath.hashRandomness(sourceHash);
          missing = false;
        }
        if (!parsed) {
          error = true;
          carrier = false;
        } else if (hasRandomness || hasThreshold) {
          if (!missing && sampledHereBefore(randomness)) {
            SamplerCounters.count(counts, policy, true);
            return true;
          }
          error = true;
          carrier = false;
        } else if (!missing) {
          setRandomness = true;
          randomnessValue = randomness;
        }
        break;
      default:
        if (!parsed) {
          policy = Policy.MISSING_RANDOMNESS;
          missing = true;
          error = true;
          carrier = false;
        } else if (hasRandomness) {
          policy = Policy.SAMPLING_RANDOMNESS;
          randomness = randomnessValue;
        } else if (hasTraceId) {
          policy = Policy.TRACE_ID_W3C;
          randomness = SamplingMath.traceIdRandomness(traceIdLow);
        } else {
          policy = Policy.MISSING_RANDOMNESS;
          missing = true;
        }
    }
    if (!error) {
      if (missing) {
        error = true;
      } else if (hasThreshold && thresholdValue > randomness) {
        hasThreshold = false;
        thresholdValue = SamplingMath.ALWAYS;
        thresholdCleared = true;
        error = true;
      }
    }
    long threshold = error ? sampler.onError() : sampler.decide(hasThreshold, thresholdValue);
    long priorityThreshold = priorityThreshold();
    if (priorityThreshold >= 0) {
      threshold = priorityThreshold;
      policy = Policy.SAMPLING_PRIORITY;
    }
    boolean sampled = threshold <= randomness;
    SamplerCounters.count(counts, policy, sampled);
    if (sampled && carrier) {
      boolean writeThreshold = !(hasThreshold && threshold < thresholdValue);
      if (writeThreshold || setRandomness || thresholdCleared) {
        writeSamplingAttributes(item, writeThreshold ? threshold : -1);
      }
    }
    return sampled;
  }

  /**
   * Sets {@code sampling.randomness} when this sampler gave the record its randomness, and {@code
   * sampling.threshold} to {@code threshold} (unless -1): a value replaces the first entry of its
   * key where it is and is appended when there is none, or when the old threshold was removed as
   * false, as the Collector does.
   */
  private void writeSamplingAttributes(BatchItem item, long threshold) {
    LogRecordEditor record = item.editLogRecord();
    if (setRandomness) {
      SamplingMath.writeRValue(randomnessValue, valueText, 0);
      record.putStringAttribute(RANDOMNESS_KEY, valueText, 0, SamplingMath.HEX_DIGITS);
    }
    if (thresholdCleared) {
      record.removeAttribute(THRESHOLD_KEY);
    }
    if (threshold >= 0) {
      record.putStringAttribute(
          THRESHOLD_KEY, valueText, 0, SamplingMath.writeTValue(threshold, valueText, 0));
    }
  }

  private boolean sampledHereBefore(long randomness) {
    return hasRandomness
        && randomnessValue == randomness
        && hasThreshold
        && thresholdValue == sampler.hashThreshold();
  }

  private static final byte[] TRUE = "true".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] FALSE = "false".getBytes(StandardCharsets.US_ASCII);

  /** Writes {@code value} in decimal into {@link #digits}; returns the length. */
  private int decimal(long value) {
    if (value == Long.MIN_VALUE) {
      byte[] min = Long.toString(Long.MIN_VALUE).getBytes(StandardCharsets.US_ASCII);
      System.arraycopy(min, 0, digits, 0, min.length);
      return min.length;
    }
    int end = digits.length;
    int p = end;
    long rest = Math.abs(value);
    do {
      digits[--p] = (byte) ('0' + rest % 10);
      rest /= 10;
    } while (rest != 0);
    if (value < 0) {
      digits[--p] = '-';
    }
    int length = end - p;
    System.arraycopy(digits, p, digits, 0, length);
    return length;
  }

  /** The threshold {@code sampling_priority} sets, or -1 when it sets none. */
  private long priorityThreshold() {
    if (!priorityIsNumber) {
      return -1;
    }
    double probability = priorityPercent / PERCENT;
    if (probability == 0) {
      return -1;
    }
    return SamplingMath.probabilityToThreshold(probability, sampler.precision);
  }
}
