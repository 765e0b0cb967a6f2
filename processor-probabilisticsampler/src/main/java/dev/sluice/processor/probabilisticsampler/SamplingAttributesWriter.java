package dev.sluice.processor.probabilisticsampler;

import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.internal.OtlpFields.AnyValue;
import dev.sluice.pdata.internal.OtlpFields.KeyValue;
import dev.sluice.pdata.internal.OtlpFields.LogRecord;
import dev.sluice.pdata.internal.ProtoWriter;
import dev.sluice.pdata.internal.WireReader;
import dev.sluice.pdata.internal.WireType;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Writes a kept log record's {@code sampling.randomness} and {@code sampling.threshold} string
 * attributes as the OpenTelemetry Collector does: a value replaces the first entry of its key where
 * it is, and is appended when there is none (or when the old threshold was removed as false); every
 * other field is copied as bytes. Reusable scratch, one per pass.
 */
final class SamplingAttributesWriter {
  static final byte[] RANDOMNESS_KEY = "sampling.randomness".getBytes(StandardCharsets.UTF_8);
  static final byte[] THRESHOLD_KEY = "sampling.threshold".getBytes(StandardCharsets.UTF_8);

  private static final int ATTRIBUTES_TAG = WireType.tag(LogRecord.ATTRIBUTES, WireType.LEN);
  private static final int RANDOMNESS = 0;
  private static final int THRESHOLD = 1;

  /** A rewritten record's buffer is given back past this size, so one huge record does not stay. */
  static final int MAX_RETAINED_BYTES = 1 << 20;

  private final WireReader reader = new WireReader();
  private final WireReader attributeReader = new WireReader();
  private final ProtoWriter recordOut = new ProtoWriter();
  private final byte[] valueText = new byte[SamplingMath.HEX_DIGITS];

  void finishBatch() {
    recordOut.release(MAX_RETAINED_BYTES);
  }

  /**
   * Writes the log record anew: {@code sampling.randomness} set to {@code randomnessValue} (unless
   * -1), {@code sampling.threshold} set to {@code threshold} (unless -1), the one there removed
   * first when {@code thresholdCleared}.
   */
  void rewrite(BatchItem item, long randomnessValue, long threshold, boolean thresholdCleared) {
    byte[] record = item.array();
    boolean randomnessDone = randomnessValue < 0;
    boolean thresholdDone = threshold < 0;
    recordOut.reset();
    reader.wrap(record, item.offset(), item.length());
    try {
      while (reader.hasRemaining()) {
        int fieldStart = reader.position();
        int tag = reader.readTag();
        reader.skipValue(tag, SpanPass.MAX_GROUP_DEPTH);
        int fieldEnd = reader.position();
        if (tag == ATTRIBUTES_TAG && !(randomnessDone && thresholdDone)) {
          int key = keyOf(record, fieldStart, fieldEnd);
          if (key == RANDOMNESS && !randomnessDone) {
            SamplingMath.writeRValue(randomnessValue, valueText, 0);
            writeStringAttribute(RANDOMNESS_KEY, SamplingMath.HEX_DIGITS);
            randomnessDone = true;
            continue;
          }
          if (key == THRESHOLD && !thresholdDone) {
            thresholdDone = true;
            if (thresholdCleared) {
              continue; // removed, as the Collector removes it; the new one goes at the end
            }
            writeStringAttribute(THRESHOLD_KEY, SamplingMath.writeTValue(threshold, valueText, 0));
            continue;
          }
        }
        recordOut.writeBytes(record, fieldStart, fieldEnd - fieldStart);
      }
    } catch (MalformedOtlpException e) {
      throw new IllegalStateException("a log record read once does not read again", e);
    }
    if (!randomnessDone) {
      SamplingMath.writeRValue(randomnessValue, valueText, 0);
      writeStringAttribute(RANDOMNESS_KEY, SamplingMath.HEX_DIGITS);
    }
    if (threshold >= 0 && (!thresholdDone || thresholdCleared)) {
      writeStringAttribute(THRESHOLD_KEY, SamplingMath.writeTValue(threshold, valueText, 0));
    }
    item.replace(recordOut.array(), 0, recordOut.size());
  }

  /** Which sampling key the attribute field at {@code [start, end)} has, or -1. */
  private int keyOf(byte[] record, int start, int end) throws MalformedOtlpException {
    attributeReader.wrap(record, start, end - start);
    attributeReader.readTag();
    int length = attributeReader.readLength();
    int p = attributeReader.position();
    attributeReader.wrap(record, p, length);
    while (attributeReader.hasRemaining()) {
      int tag = attributeReader.readTag();
      if (tag == WireType.tag(KeyValue.KEY, WireType.LEN)) {
        int keyLength = attributeReader.readLength();
        int keyStart = attributeReader.position();
        if (equal(record, keyStart, keyLength, RANDOMNESS_KEY)) {
          return RANDOMNESS;
        }
        if (equal(record, keyStart, keyLength, THRESHOLD_KEY)) {
          return THRESHOLD;
        }
        return -1;
      }
      attributeReader.skipValue(tag, SpanPass.MAX_GROUP_DEPTH);
    }
    return -1;
  }

  private static boolean equal(byte[] bytes, int start, int length, byte[] key) {
    return Arrays.equals(bytes, start, start + length, key, 0, key.length);
  }

  /** Writes {@code attributes { key, value { string_value: valueText[0, length) } }}. */
  private void writeStringAttribute(byte[] key, int length) {
    int any = 1 + 1 + length; // tag, one length byte (at most 14), the text
    int keyValue = 1 + 1 + key.length + 1 + 1 + any;
    recordOut.writeLengthDelimitedHeader(LogRecord.ATTRIBUTES, keyValue);
    recordOut.writeLengthDelimitedHeader(KeyValue.KEY, key.length);
    recordOut.writeBytes(key, 0, key.length);
    recordOut.writeLengthDelimitedHeader(KeyValue.VALUE, any);
    recordOut.writeLengthDelimitedHeader(AnyValue.STRING_VALUE, length);
    recordOut.writeBytes(valueText, 0, length);
  }
}
