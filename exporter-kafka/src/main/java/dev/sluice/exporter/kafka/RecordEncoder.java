package dev.sluice.exporter.kafka;

import dev.sluice.kafka.KafkaEncoding;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.codec.MarshalContext;
import dev.sluice.pdata.codec.OtlpJsonEncoder;
import dev.sluice.pdata.codec.OtlpMarshaler;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;

/**
 * Turns a batch into the value of one record: the marshaled {@code Export*ServiceRequest}, as
 * OTLP/JSON for {@code otlp_json}. One per sending thread at a time (the exporter pools them); its
 * buffers are reused, and one that an outsized batch grew is dropped by {@link #release()}.
 */
final class RecordEncoder {
  private static final int INITIAL_JSON_BYTES = 64 * 1024;

  /** OTLP/JSON is two to three times the protobuf size; keep what a retained protobuf needs. */
  static final int MAX_RETAINED_JSON_BYTES = 3 * MarshalContext.MAX_RETAINED_OUTPUT_BYTES;

  private final MarshalContext marshal = new MarshalContext();
  private final OtlpJsonEncoder jsonEncoder = new OtlpJsonEncoder();
  private final ExposedOutput jsonOut = new ExposedOutput();
  private byte[] array;
  private int length;

  /** Encodes {@code batch}; returns the value's size, readable through {@link #copyValue()}. */
  int encode(Batch batch, KafkaEncoding encoding) {
    int size = OtlpMarshaler.marshal(batch, marshal);
    byte[] bytes = marshal.outputArray();
    if (encoding == KafkaEncoding.OTLP_JSON) {
      jsonOut.reset();
      jsonEncoder.encode(batch.signal(), bytes, 0, size, jsonOut, false);
      bytes = jsonOut.array();
      size = jsonOut.size();
    }
    array = bytes;
    length = size;
    return size;
  }

  /**
   * The last value, in an array of its own: the Kafka client keeps the value it is given until the
   * record is appended to a batch, so the encoder's buffers cannot be handed over.
   */
  byte[] copyValue() {
    return Arrays.copyOf(array, length);
  }

  /** Call once the records of an export are handed to the client. */
  void release() {
    array = null;
    length = 0;
    marshal.release();
    jsonOut.release(MAX_RETAINED_JSON_BYTES);
  }

  private static final class ExposedOutput extends ByteArrayOutputStream {
    ExposedOutput() {
      super(INITIAL_JSON_BYTES);
    }

    byte[] array() {
      return buf;
    }

    void release(int maxRetainedBytes) {
      if (buf.length > maxRetainedBytes) {
        buf = new byte[INITIAL_JSON_BYTES];
      }
    }
  }
}
