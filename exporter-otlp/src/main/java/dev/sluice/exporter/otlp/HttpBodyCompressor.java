package dev.sluice.exporter.otlp;

import com.github.luben.zstd.Zstd;
import dev.sluice.pdata.codec.MarshalContext;
import java.util.Arrays;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * Compresses request bodies for a {@code Content-Encoding} into an output buffer it reuses, with a
 * reused {@link Deflater}: one per sending thread, so that after the first requests compressing
 * allocates nothing on the heap. {@code gzip} is a raw deflate stream between a header and a
 * trailer written here (RFC 1952), {@code deflate} the zlib format (RFC 1950) that HTTP's {@code
 * deflate} means, {@code zstd} a frame; each at the level it is made with.
 *
 * <p>The output is valid until the next call on the same compressor.
 */
final class HttpBodyCompressor {
  private static final int GZIP_HEADER = 10;
  private static final int GZIP_TRAILER = 8;

  private final String encoding;
  private final int level;
  private final Deflater deflater;
  private final CRC32 crc;
  private byte[] output = new byte[64 * 1024];

  /**
   * @param encoding {@code gzip}, {@code deflate} or {@code zstd}
   * @param level a {@link Deflater} level for gzip and deflate, a zstd level for zstd
   */
  HttpBodyCompressor(String encoding, int level) {
    this.encoding = encoding;
    this.level = level;
    switch (encoding) {
      case "gzip":
        deflater = new Deflater(level, true);
        crc = new CRC32();
        break;
      case "deflate":
        deflater = new Deflater(level, false);
        crc = null;
        break;
      case "zstd":
        deflater = null;
        crc = null;
        break;
      default:
        throw new IllegalArgumentException("no compression named " + encoding);
    }
  }

  /**
   * Call when the output has been sent: drops an output buffer that grew past {@link
   * MarshalContext#MAX_RETAINED_OUTPUT_BYTES} for an outsized body.
   */
  void release() {
    if (output.length > MarshalContext.MAX_RETAINED_OUTPUT_BYTES) {
      output = new byte[64 * 1024];
    }
  }

  /** The buffer the last {@link #compress} wrote, from offset 0. */
  byte[] output() {
    return output;
  }

  /** Compresses {@code length} bytes of {@code input} into {@link #output()}; their length. */
  int compress(byte[] input, int offset, int length) {
    switch (encoding) {
      case "gzip":
        return gzip(input, offset, length);
      case "deflate":
        return deflate(input, offset, length, 0);
      default:
        return zstd(input, offset, length);
    }
  }

  private int gzip(byte[] input, int offset, int length) {
    // ID1 ID2, CM = deflate, no flags, MTIME 0, no XFL, OS unknown.
    output[0] = 0x1f;
    output[1] = (byte) 0x8b;
    output[2] = 8;
    Arrays.fill(output, 3, 9, (byte) 0);
    output[9] = (byte) 0xff;
    int end = deflate(input, offset, length, GZIP_HEADER);
    crc.reset();
    crc.update(input, offset, length);
    ensureCapacity(end + GZIP_TRAILER);
    writeIntLe(end, (int) crc.getValue());
    writeIntLe(end + 4, length);
    return end + GZIP_TRAILER;
  }

  /** Deflates into the output from {@code start}; where the compressed data ends. */
  private int deflate(byte[] input, int offset, int length, int start) {
    deflater.reset();
    deflater.setInput(input, offset, length);
    deflater.finish();
    int position = start;
    while (!deflater.finished()) {
      if (position == output.length) {
        ensureCapacity(output.length * 2);
      }
      position += deflater.deflate(output, position, output.length - position);
    }
    return position;
  }

  private int zstd(byte[] input, int offset, int length) {
    ensureCapacity((int) Math.min(Integer.MAX_VALUE - 8, Zstd.compressBound(length)));
    long size = Zstd.compressByteArray(output, 0, output.length, input, offset, length, level);
    if (Zstd.isError(size)) {
      throw new IllegalStateException("zstd: " + Zstd.getErrorName(size));
    }
    return (int) size;
  }

  private void ensureCapacity(int capacity) {
    if (capacity > output.length) {
      output = Arrays.copyOf(output, capacity);
    }
  }

  private void writeIntLe(int at, int value) {
    output[at] = (byte) value;
    output[at + 1] = (byte) (value >>> 8);
    output[at + 2] = (byte) (value >>> 16);
    output[at + 3] = (byte) (value >>> 24);
  }
}
