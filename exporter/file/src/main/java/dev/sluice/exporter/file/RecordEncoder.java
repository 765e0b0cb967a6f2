package dev.sluice.exporter.file;

import com.github.luben.zstd.Zstd;
import dev.sluice.pdata.json.OtlpJsonEncoder;
import dev.sluice.pdata.otlp.Batch;
import dev.sluice.pdata.otlp.MarshalContext;
import dev.sluice.pdata.otlp.OtlpMarshaler;
import java.io.ByteArrayOutputStream;

/**
 * Turns a batch into the bytes of one record: the marshaled {@code Export*ServiceRequest}, as
 * OTLP/JSON for the {@code json} format, compressed on its own for {@code zstd}. One per sending
 * thread at a time (the exporter pools them); its buffers are reused, and those that an outsized
 * batch grew past {@link MarshalContext#MAX_RETAINED_OUTPUT_BYTES} are dropped after the write.
 */
final class RecordEncoder {
  /** zstd's own default level, close to the Collector's (klauspost's SpeedDefault). */
  static final int ZSTD_LEVEL = 3;

  private static final int INITIAL_BUFFER_BYTES = 64 * 1024;
  private static final byte[] EMPTY = new byte[0];

  private final boolean json;
  private final boolean compress;
  private final MarshalContext marshal = new MarshalContext();
  private final OtlpJsonEncoder jsonEncoder = new OtlpJsonEncoder();
  private final ExposedOutput jsonOut = new ExposedOutput();
  private byte[] compressed = EMPTY;
  private byte[] array = EMPTY;
  private int length;

  RecordEncoder(FileExporterConfig.Format format, boolean compress) {
    this.json = format == FileExporterConfig.Format.JSON;
    this.compress = compress;
  }

  Framing framing() {
    return json && !compress ? Framing.LINE : Framing.LENGTH_PREFIXED;
  }

  /** Encodes {@code batch}; the record is {@link #array()} from 0 to {@link #length()}. */
  void encode(Batch batch) {
    int size = OtlpMarshaler.marshal(batch, marshal);
    byte[] bytes = marshal.output().array();
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
    jsonOut.release(MarshalContext.MAX_RETAINED_OUTPUT_BYTES);
    if (compressed.length > MarshalContext.MAX_RETAINED_OUTPUT_BYTES) {
      compressed = EMPTY;
    }
  }

  /** A byte array stream whose array is read in place, not copied. */
  private static final class ExposedOutput extends ByteArrayOutputStream {
    ExposedOutput() {
      super(INITIAL_BUFFER_BYTES);
    }

    byte[] array() {
      return buf;
    }

    void release(int maxRetainedBytes) {
      if (buf.length > maxRetainedBytes) {
        buf = new byte[INITIAL_BUFFER_BYTES];
      }
    }
  }
}
