package dev.sluice.exporter.file;

import com.github.luben.zstd.Zstd;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.codec.MarshalContext;
import dev.sluice.pdata.codec.OtlpJsonEncoder;
import dev.sluice.pdata.codec.OtlpMarshaler;
import java.io.ByteArrayOutputStream;

/**
 * Turns a batch into the bytes of one record: the marshaled {@code Export*ServiceRequest}, as
 * OTLP/JSON for the {@code json} format, compressed on its own for {@code zstd}. One per sending
 * thread at a time (the exporter pools them); its buffers are reused, and those that an outsized
 * batch grew past {@link MarshalContext#MAX_RETAINED_OUTPUT_BYTES} (protobuf) or {@link
 * #MAX_RETAINED_JSON_BYTES} (JSON, compressed) are dropped after the write.
 */
final class RecordEncoder {
  /** zstd's own default level, close to the Collector's (klauspost's SpeedDefault). */
  static final int ZSTD_LEVEL = 3;

  /**
   * The most JSON (and compressed-output) capacity kept between batches: OTLP/JSON is about two to
   * three times the protobuf size (field names, hex IDs, integers as text), so the JSON of a batch
   * that the marshaler's retained output fits also stays, and steady sending does not reallocate.
   */
  static final int MAX_RETAINED_JSON_BYTES = 3 * MarshalContext.MAX_RETAINED_OUTPUT_BYTES;

  private static final int INITIAL_BUFFER_BYTES = 64 * 1024;
  private static final byte[] EMPTY = new byte[0];

  private final boolean json;
  private final boolean compress;
  private final int maxRetainedJsonBytes;
  private final MarshalContext marshal = new MarshalContext();
  private final OtlpJsonEncoder jsonEncoder = new OtlpJsonEncoder();
  private final ExposedOutput jsonOut = new ExposedOutput();
  private byte[] compressed = EMPTY;
  private byte[] array = EMPTY;
  private int length;

  RecordEncoder(FileExporterConfig.Format format, boolean compress) {
    this(format, compress, MAX_RETAINED_JSON_BYTES);
  }

  RecordEncoder(FileExporterConfig.Format format, boolean compress, int maxRetainedJsonBytes) {
    this.json = format == FileExporterConfig.Format.JSON;
    this.compress = compress;
    this.maxRetainedJsonBytes = maxRetainedJsonBytes;
  }

  Framing framing() {
    return json && !compress ? Framing.LINE : Framing.LENGTH_PREFIXED;
  }

  /** Encodes {@code batch}; the record is {@link #array()} from 0 to {@link #length()}. */
  void encode(Batch batch) {
    int size = OtlpMarshaler.marshal(batch, marshal);
    byte[] bytes = marshal.outputArray();
    if (json) {
      jsonOut.reset();
      jsonEncoder.encode(batch.signal(), bytes, 0, size, jsonOut, false);
      bytes = jsonOut.array();
      size = jsonOut.size();
    }
    if (compress) {
      long bound = Zstd.compressBound(size);
      if (compressed.length < bound) {
        compressed = new byte[(int) Math.min(Integer.MAX_VALUE - 8, bound)];
      }
      long written =
          Zstd.compressByteArray(compressed, 0, compressed.length, bytes, 0, size, ZSTD_LEVEL);
      if (Zstd.isError(written)) {
        throw new IllegalStateException("zstd: " + Zstd.getErrorName(written));
      }
      bytes = compressed;
      size = (int) written;
    }
    array = bytes;
    length = size;
  }

  byte[] array() {
    return array;
  }

  int length() {
    return length;
  }

  /** Call once the record is written. */
  void release() {
    array = EMPTY;
    length = 0;
    marshal.release();
    jsonOut.release(maxRetainedJsonBytes);
    if (compressed.length > maxRetainedJsonBytes) {
      compressed = EMPTY;
    }
  }

  /** The capacity of the JSON and compressed-output buffers, kept for the next batch. */
  int retainedJsonBytes() {
    return jsonOut.capacity() + compressed.length;
  }

  /** A byte array stream whose array is read in place, not copied. */
  private static final class ExposedOutput extends ByteArrayOutputStream {
    ExposedOutput() {
      super(INITIAL_BUFFER_BYTES);
    }

    byte[] array() {
      return buf;
    }

    int capacity() {
      return buf.length;
    }

    void release(int maxRetainedBytes) {
      if (buf.length > maxRetainedBytes) {
        buf = new byte[INITIAL_BUFFER_BYTES];
      }
    }
  }
}
