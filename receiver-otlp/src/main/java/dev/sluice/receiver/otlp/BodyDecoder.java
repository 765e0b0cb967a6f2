package dev.sluice.receiver.otlp;

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
import org.xerial.snappy.SnappyFramedInputStream;

/**
 * Decompresses HTTP request bodies by {@code Content-Encoding}, never producing more than a limit:
 * a small compressed body cannot make the receiver hold more than {@code max_request_body_size}
 * (zip bombs).
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
    try {
      switch (name) {
        case "":
        case "identity":
          return body;
        case "gzip":
          return readBounded(new GZIPInputStream(new ByteArrayInputStream(body), 8192), maxBytes);
        case "deflate":
        case "zlib":
          return inflate(body, maxBytes);
        case "zstd":
          return readBounded(
              new ZstdInputStreamNoFinalizer(new ByteArrayInputStream(body)), maxBytes);
        case "snappy":
          return startsWith(body, SNAPPY_FRAMED_START)
              ? snappyFramed(body, maxBytes)
              : snappyBlock(body, maxBytes);
        case "x-snappy-framed":
          return snappyFramed(body, maxBytes);
        default:
          throw new Undecodable("unsupported Content-Encoding \"" + encoding + "\"");
      }
    } catch (IOException e) {
      throw new Undecodable("cannot decode the " + name + " body: " + e.getMessage());
    }
  }

  private static byte[] inflate(byte[] body, long maxBytes) throws IOException, TooLarge {
    // zlib's header: the compression method is 8 and the first two bytes are a multiple of 31.
    boolean zlib =
        body.length >= 2
            && (body[0] & 0x0f) == 8
            && (((body[0] & 0xff) << 8) | (body[1] & 0xff)) % 31 == 0;
    Inflater inflater = new Inflater(!zlib);
    try {
      return readBounded(
          new InflaterInputStream(new ByteArrayInputStream(body), inflater, 8192), maxBytes);
    } finally {
      inflater.end();
    }
  }

  private static byte[] snappyBlock(byte[] body, long maxBytes) throws IOException, TooLarge {
    int length = Snappy.uncompressedLength(body);
    if (length > maxBytes) {
      throw new TooLarge(
          "the snappy body decompresses to " + length + " bytes, over the limit of " + maxBytes);
    }
    return Snappy.uncompress(body);
  }

  private static byte[] snappyFramed(byte[] body, long maxBytes) throws IOException, TooLarge {
    return readBounded(new SnappyFramedInputStream(new ByteArrayInputStream(body)), maxBytes);
  }

  private static boolean startsWith(byte[] body, byte[] prefix) {
    return body.length >= prefix.length
        && Arrays.equals(body, 0, prefix.length, prefix, 0, prefix.length);
  }

  /** Reads the whole stream, failing as soon as it passes {@code maxBytes}. */
  static byte[] readBounded(InputStream in, long maxBytes) throws IOException, TooLarge {
    try (in) {
      byte[] buffer = new byte[(int) Math.min(maxBytes + 1, 64 * 1024)];
      int size = 0;
      while (true) {
        if (size == buffer.length) {
          if (size > maxBytes) {
            throw new TooLarge(
                "the body decompresses to more than the limit of " + maxBytes + " bytes");
          }
          buffer = Arrays.copyOf(buffer, (int) Math.min(maxBytes + 1, (long) buffer.length * 2));
        }
        int read = in.read(buffer, size, buffer.length - size);
        if (read < 0) {
          return size == buffer.length ? buffer : Arrays.copyOf(buffer, size);
        }
        size += read;
        if (size > maxBytes) {
          throw new TooLarge(
              "the body decompresses to more than the limit of " + maxBytes + " bytes");
        }
      }
    }
  }
}
