package dev.sluice.exporter.loadbalancing;

import dev.sluice.pdata.view.AnyValueView;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.LogRecordView;
import dev.sluice.pdata.view.MetricView;
import dev.sluice.pdata.view.ResourceView;
import dev.sluice.pdata.view.SpanView;
import dev.sluice.pdata.view.TextView;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * The ring position of each routing key, read through the views without decoding. Reuses its
 * buffers: one instance per thread.
 *
 * <p>{@code traceID} and {@code service} hash the bytes the Go collector hashes (the 16 trace ID
 * bytes; the {@code service.name} string's UTF-8 bytes), so those keys land where a Go agent puts
 * them. {@code metric} hashes the metric name's bytes, as Go does. {@code resource} hashes every
 * resource attribute, in any order: the same attributes give the same position, but not the Go
 * collector's (which hashes its own identity of the resource).
 */
final class KeyPositions {
  private static final byte[] SERVICE_NAME = "service.name".getBytes(StandardCharsets.UTF_8);
  private static final int INITIAL_TEXT_BYTES = 256;

  private final CRC32 crc = new CRC32();
  private final byte[] traceId = new byte[SpanView.TRACE_ID_BYTES];
  private final byte[] word = new byte[Long.BYTES];
  private final AttributeCursor attributes = new AttributeCursor();
  private byte[] text = new byte[INITIAL_TEXT_BYTES];

  int ofSpan(SpanView span) {
    if (!span.copyTraceId(traceId)) {
      java.util.Arrays.fill(traceId, (byte) 0);
    }
    return HashRing.position(crc, traceId, 0, traceId.length);
  }

  /** A log record without a trace ID hashes 16 zero bytes: such records share one backend. */
  int ofLogRecord(LogRecordView logRecord) {
    if (!logRecord.copyTraceId(traceId)) {
      java.util.Arrays.fill(traceId, (byte) 0);
    }
    return HashRing.position(crc, traceId, 0, traceId.length);
  }

  /** The resource's {@code service.name} (a string), or the empty key without one. */
  int ofService(ResourceView resource) {
    resource.attributes(attributes);
    if (attributes.find(SERVICE_NAME)) {
      return ofText(attributes.value().stringValue());
    }
    return ofEmpty();
  }

  int ofMetric(MetricView metric) {
    return ofText(metric.name());
  }

  /**
   * Every attribute's key and value, combined so that their order does not matter: the sum of one
   * CRC-32 per attribute, hashed once more.
   */
  int ofResource(ResourceView resource) {
    resource.attributes(attributes);
    int sum = 0;
    while (attributes.next()) {
      crc.reset();
      update(attributes.key());
      crc.update(0);
      AnyValueView value = attributes.value();
      crc.update(value.type().ordinal());
      switch (value.type()) {
        case STRING -> update(value.stringValue());
        case BOOL -> crc.update(value.boolValue() ? 1 : 0);
        case INT -> updateLong(value.intValue());
        case DOUBLE -> updateLong(Double.doubleToLongBits(value.doubleValue()));
        case BYTES -> {
          ensureText(value.bytesLength());
          crc.update(text, 0, value.copyBytes(text, 0));
        }
        default -> {
          // Arrays and maps place by their type alone.
        }
      }
      sum += (int) crc.getValue();
    }
    for (int i = 0; i < Integer.BYTES; i++) {
      word[i] = (byte) (sum >>> (8 * (Integer.BYTES - 1 - i)));
    }
    return HashRing.position(crc, word, 0, Integer.BYTES);
  }

  private int ofText(TextView view) {
    crc.reset();
    update(view);
    return (int) (crc.getValue() % HashRing.POSITIONS);
  }

  private int ofEmpty() {
    crc.reset();
    return (int) (crc.getValue() % HashRing.POSITIONS);
  }

  private void update(TextView view) {
    ensureText(view.length());
    crc.update(text, 0, view.copyTo(text, 0));
  }

  private void updateLong(long value) {
    for (int i = 0; i < Long.BYTES; i++) {
      word[i] = (byte) (value >>> (8 * (Long.BYTES - 1 - i)));
    }
    crc.update(word, 0, Long.BYTES);
  }

  private void ensureText(int length) {
    if (text.length < length) {
      text = new byte[Math.max(length, text.length * 2)];
    }
  }
}
