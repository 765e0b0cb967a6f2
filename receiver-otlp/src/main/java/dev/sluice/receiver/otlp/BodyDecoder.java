package dev.sluice.receiver.otlp;

import com.github.luben.zstd.RecyclingBufferPool;
import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Locale;
import java.util.zip.GZIPInputStream;
import java.util.zip.Inflater;
import java.util.zip.InflaterInputStream;
import org.xerial.snappy.Snappy;

/**
 * Decompresses HTTP request bodies by {@code Content-Encoding}, never producing more than a limit:
 * a small compressed body cannot make the receiver hold more than {@code max_request_body_size}
 * (zip bombs).
 *
 * <p>What a body costs is bounded by what it is: the heap a call allocates is at most a small
 * multiple of the compressed body plus the output actually produced, plus a fixed amount (the
 * edge's {@code AllocationBound}). Sizes declared inside the input (snappy's uncompressed length,
 * zstd's frame content size and window, a framed-snappy chunk length) never size an allocation
 * before the data behind them is known to be there. The decoder stops as soon as the output passes
 * the limit ({@link TooLarge}); anything that is not a complete, valid stream of its encoding is
 * {@link Undecodable}, with a message of bounded length. Nothing else escapes.
 *
 * <p>Encodings, as the OpenTelemetry Collector takes them: {@code gzip}; {@code deflate} and {@code
 * zlib} (zlib-wrapped, raw deflate also accepted); {@code zstd}; {@code snappy} (the block format,
 * or the framed format when the body starts with its stream identifier) and {@code
 * x-snappy-framed}.
 */
final class BodyDecoder {
  /** The body is larger than the limit once decompressed. */
  static final class TooLarge extends Exception {
    private static final long serialVersionUID = 1L;

    TooLarge(String message) {
      super(message, null, false, false);
    }
  }

  /** The body is not valid data of its encoding, or the encoding is unknown. */
  static final class Undecodable extends Exception {
    private static final long serialVersionUID = 1L;

    Undecodable(String message) {
      super(message, null, false, false);
    }
  }

  /** The longest piece of a header value or of a library's message quoted in an answer. */
  static final int MAX_QUOTED_CHARS = 128;

  /**
   * The first output buffer is this many times the compressed body (OTLP compresses 4 to 10 times);
   * it doubles from there, so buffers cost at most about three times the output.
   */
  private static final int INITIAL_EXPANSION = 4;

  /** The smallest first output buffer, so that tiny bodies do not start with a few bytes. */
  private static final int MIN_INITIAL_BYTES = 256;

  /** The input buffer of the gzip and deflate streams (they read from the body in memory). */
  private static final int INFLATE_BUFFER_BYTES = 4096;

  /** zstd's smallest and default largest window logs (zstd.h). */
  private static final int ZSTD_MIN_WINDOW_LOG = 10;

  private static final int ZSTD_MAX_WINDOW_LOG = 27;

  /** What zstd's getFrameContentSize answers for a frame without a size, and for an error. */
  private static final long ZSTD_CONTENT_SIZE_UNKNOWN = -1;

  private static final long ZSTD_CONTENT_SIZE_ERROR = -2;

  private static final int SNAPPY_MAX_VARINT_BYTES = 5;

  private static final byte[] SNAPPY_FRAMED_START = {
    (byte) 0xff, 0x06, 0x00, 0x00, 's', 'N', 'a', 'P', 'p', 'Y'
  };

  private BodyDecoder() {}

  /** Whether Sluice can decode this {@code Content-Encoding} value. */
  static boolean supports(String encoding) {
    switch (normalize(encoding)) {
      case "":
      case "identity":
      case "gzip":
      case "deflate":
      case "zlib":
      case "zstd":
      case "snappy":
      case "x-snappy-framed":
        return true;
      default:
        return false;
    }
  }

  private static String normalize(String encoding) {
    return encoding == null ? "" : encoding.trim().toLowerCase(Locale.ROOT);
  }

  /** The decoded body, at most {@code maxBytes} long. */
  static byte[] decode(String encoding, byte[] body, long maxBytes) throws TooLarge, Undecodable {
    String name = normalize(encoding);
    if (name.isEmpty() || name.equals("identity")) {
      return body;
    }
    return decode(encoding, body, new Output(body.length, maxBytes));
  }

  /**
   * Decodes a compressed {@code body} into {@code out}, bounded by its limit; what {@code out}
   * holds after a failure is the output produced until then.
   */
  static byte[] decode(String encoding, byte[] body, Output out) throws TooLarge, Undecodable {
    String name = normalize(encoding);
    try {
      switch (name) {
        case "gzip":
          return readBounded(
              new GZIPInputStream(new ByteArrayInputStream(body), INFLATE_BUFFER_BYTES), out);
        case "deflate":
        case "zlib":
          return inflate(body, out);
        case "zstd":
          return zstd(body, out);
        case "snappy":
          return startsWith(body, SNAPPY_FRAMED_START)
              ? SnappyFrames.decode(body, out)
              : snappyBlock(body, out);
        case "x-snappy-framed":
          return SnappyFrames.decode(body, out);
        default:
          throw new Undecodable("unsupported Content-Encoding \"" + quoted(encoding) + "\"");
      }
    } catch (IOException | RuntimeException e) {
      // RuntimeException: the native libraries report some corrupt input that way.
      throw new Undecodable("cannot decode the " + name + " body: " + quoted(e.getMessage()));
    }
  }

  /** {@code text} cut to {@link #MAX_QUOTED_CHARS}, so that no answer grows with the input. */
  static String quoted(String text) {
    if (text == null) {
      return "";
    }
    return text.length() <= MAX_QUOTED_CHARS ? text : text.substring(0, MAX_QUOTED_CHARS) + "...";
  }

  private static byte[] inflate(byte[] body, Output out) throws IOException, TooLarge {
    // zlib's header: the compression method is 8 and the first two bytes are a multiple of 31.
    boolean zlib =
        body.length >= 2
            && (body[0] & 0x0f) == 8
            && (((body[0] & 0xff) << 8) | (body[1] & 0xff)) % 31 == 0;
    Inflater inflater = new Inflater(!zlib);
    try {
      InflaterInputStream in =
          new InflaterInputStream(new ByteArrayInputStream(body), inflater, INFLATE_BUFFER_BYTES);
      byte[] decoded = readBounded(in, out);
      // InflaterInputStream ends early at a preset dictionary, which OTLP bodies never use.
      if (!inflater.finished()) {
        throw new IOException("the deflate stream is incomplete or needs a preset dictionary");
      }
      return decoded;
    } finally {
      inflater.end();
    }
  }

  private static byte[] zstd(byte[] body, Output out) throws IOException, TooLarge {
    // The input buffer comes from zstd-jni's recycling pool (128 KiB otherwise per body), and
    // the window, which a frame header declares and zstd allocates natively before any output,
    // may not exceed the limit: a window larger than the limit cannot be needed.
    if (body.length == 0) {
      // zstd-jni reads no frame at all as an empty body; a zstd stream has at least one frame.
      throw new IOException("the body is empty");
    }
    ZstdInputStreamNoFinalizer in =
        new ZstdInputStreamNoFinalizer(
            new ByteArrayInputStream(body), RecyclingBufferPool.INSTANCE);
    in.setLongMax(zstdWindowLog(out.maxBytes));
    byte[] decoded = readBounded(in, out);
    checkZstdContentSizes(body, decoded.length);
    return decoded;
  }

  /**
   * zstd-jni's stream skips the check that a frame produced the content size its header declares
   * when the caller reads into a buffer smaller than that size (found by fuzzing; its own
   * one-read-of-8-KiB use does check), so the frames' declared sizes are checked here. Their sum
   * stands for each frame's own only when every frame declares its size (a frame cannot produce
   * more than it declares, so an equal sum means every frame produced its size) or none does: a
   * frame without a size could make up for one that fell short, so a body that mixes the two is
   * refused (no encoder writes one).
   */
  private static void checkZstdContentSizes(byte[] body, long produced) throws IOException {
    long declared = 0;
    boolean unknown = false;
    boolean known = false;
    int at = 0;
    while (at < body.length) {
      long frameBytes = Zstd.findFrameCompressedSize(body, at, body.length - at);
      long contentBytes = Zstd.getFrameContentSize(body, at, body.length - at);
      if (Zstd.isError(frameBytes) || frameBytes <= 0 || contentBytes == ZSTD_CONTENT_SIZE_ERROR) {
        throw new IOException("a zstd frame is malformed at offset " + at);
      }
      if (contentBytes == ZSTD_CONTENT_SIZE_UNKNOWN) {
        unknown = true;
      } else {
        known = true;
        declared += contentBytes;
      }
      if (known && unknown) {
        throw new IOException(
            "the zstd frames mix declared and undeclared content sizes at offset " + at);
      }
      at += (int) frameBytes;
    }
    if (unknown ? declared > produced : declared != produced) {
      throw new IOException(
          "the zstd frames declare " + declared + " bytes of content but hold " + produced);
    }
  }

  /** The window log that covers {@code maxBytes}, within zstd's range. */
  static int zstdWindowLog(long maxBytes) {
    int log = 64 - Long.numberOfLeadingZeros(Math.max(1, maxBytes - 1));
    return Math.max(ZSTD_MIN_WINDOW_LOG, Math.min(ZSTD_MAX_WINDOW_LOG, log));
  }

  private static byte[] snappyBlock(byte[] body, Output out) throws IOException, TooLarge {
    int length = snappyLength(body, 0, body.length);
    if (length > out.maxBytes) {
      throw new TooLarge(
          "the snappy body decompresses to "
              + length
              + " bytes, over the limit of "
              + out.maxBytes);
    }
    // The declared length sizes the output only once the whole block is known to produce it.
    if (length < 0 || !Snappy.isValidCompressedBuffer(body)) {
      throw new IOException("not a valid snappy block");
    }
    out.ensureRoom(length);
    out.size = Snappy.uncompress(body, 0, body.length, out.buffer, 0);
    return out.toArray();
  }

  /**
   * The uncompressed length that a snappy block declares (a varint of at most five bytes), or -1
   * when it has none. Read here rather than by snappy-java, whose native error path allocates a few
   * hundred KiB per failure.
   */
  static int snappyLength(byte[] bytes, int offset, int length) {
    long value = 0;
    for (int i = 0; i < Math.min(length, SNAPPY_MAX_VARINT_BYTES); i++) {
      int b = bytes[offset + i];
      value |= (long) (b & 0x7f) << (7 * i);
      if (b >= 0) {
        return value > Integer.MAX_VALUE ? -1 : (int) value;
      }
    }
    return -1;
  }

  private static boolean startsWith(byte[] body, byte[] prefix) {
    return body.length >= prefix.length
        && Arrays.equals(body, 0, prefix.length, prefix, 0, prefix.length);
  }

  /** Reads the whole stream into {@code out}, failing as soon as it passes its limit. */
  static byte[] readBounded(InputStream in, Output out) throws IOException, TooLarge {
    try (in) {
      while (true) {
        out.ensureRoom(1);
        int read = in.read(out.buffer, out.size, out.buffer.length - out.size);
        if (read < 0) {
          return out.toArray();
        }
        out.size += read;
        out.checkLimit();
      }
    }
  }

  /**
   * A growing output buffer that never exceeds {@code maxBytes + 1} (one byte more tells that a
   * stream passes the limit) and starts from the input's size, not from the limit.
   */
  static final class Output {
    final long maxBytes;
    byte[] buffer;
    int size;

    Output(int inputBytes, long maxBytes) {
      this.maxBytes = maxBytes;
      long initial = Math.max(MIN_INITIAL_BYTES, (long) INITIAL_EXPANSION * inputBytes);
      this.buffer = new byte[(int) Math.min(initial, maxBytes + 1)];
    }

    /** Makes room for {@code bytes} more, or fails when that would pass the limit. */
    void ensureRoom(int bytes) throws TooLarge {
      long needed = (long) size + bytes;
      if (needed <= buffer.length) {
        return;
      }
      if (needed > maxBytes + 1 || buffer.length > maxBytes) {
        throw tooLarge();
      }
      long grown = Math.max(needed, (long) buffer.length * 2);
      buffer = Arrays.copyOf(buffer, (int) Math.min(grown, maxBytes + 1));
    }

    void checkLimit() throws TooLarge {
      if (size > maxBytes) {
        throw tooLarge();
      }
    }

    private TooLarge tooLarge() {
      return new TooLarge("the body decompresses to more than the limit of " + maxBytes + " bytes");
    }

    byte[] toArray() {
      return size == buffer.length ? buffer : Arrays.copyOf(buffer, size);
    }
  }
}
