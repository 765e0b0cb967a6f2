package dev.sluice.receiver.otlp;

import com.github.luben.zstd.Zstd;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;
import org.xerial.snappy.Snappy;
import org.xerial.snappy.SnappyFramedOutputStream;

/** Compresses test bodies with the reference libraries, by {@code Content-Encoding}. */
final class BodyEncodings {
  private BodyEncodings() {}

  static byte[] compress(String encoding, byte[] body) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    switch (encoding) {
      case "gzip" -> {
        try (OutputStream gzip = new GZIPOutputStream(out)) {
          gzip.write(body);
        }
      }
      case "deflate" -> {
        try (OutputStream deflate = new DeflaterOutputStream(out)) {
          deflate.write(body);
        }
      }
      case "raw-deflate" -> {
        try (OutputStream deflate = new DeflaterOutputStream(out, new Deflater(6, true))) {
          deflate.write(body);
        }
      }
      case "zstd" -> out.write(Zstd.compress(body));
      case "snappy" -> out.write(Snappy.compress(body));
      case "x-snappy-framed" -> {
        try (OutputStream framed = new SnappyFramedOutputStream(out)) {
          framed.write(body);
        }
      }
      default -> throw new IllegalArgumentException(encoding);
    }
    return out.toByteArray();
  }
}
