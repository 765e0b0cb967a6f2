package dev.sluice.bench.hostile;

import com.github.luben.zstd.Zstd;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.GZIPOutputStream;
import org.xerial.snappy.Snappy;
import org.xerial.snappy.SnappyFramedOutputStream;

/** A body's compression: its header value ({@code grpc-encoding} or {@code Content-Encoding}). */
enum Encoding {
  NONE("none", true),
  GZIP("gzip", true),
  ZSTD("zstd", true),
  DEFLATE("deflate", false),
  SNAPPY("snappy", false),
  SNAPPY_FRAMED("x-snappy-framed", false);

  /** zstd's fastest level, as Sluice's own codec uses. */
  private static final int ZSTD_LEVEL = 1;

  private final String header;
  private final boolean grpc;

  Encoding(String header, boolean grpc) {
    this.header = header;
    this.grpc = grpc;
  }

  String header() {
    return header;
  }

  /** Whether gRPC clients may send it (Sluice's gRPC receiver takes gzip and zstd). */
  boolean grpc() {
    return grpc;
  }

  byte[] compress(byte[] body) {
    try {
      switch (this) {
        case NONE:
          return body;
        case GZIP:
          {
            ByteArrayOutputStream out = new ByteArrayOutputStream(body.length / 4 + 64);
            try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
              gzip.write(body);
            }
            return out.toByteArray();
          }
        case DEFLATE:
          {
            ByteArrayOutputStream out = new ByteArrayOutputStream(body.length / 4 + 64);
            try (DeflaterOutputStream deflate =
                new DeflaterOutputStream(out, new Deflater(Deflater.BEST_COMPRESSION))) {
              deflate.write(body);
            }
            return out.toByteArray();
          }
        case ZSTD:
          return Zstd.compress(body, ZSTD_LEVEL);
        case SNAPPY:
          return Snappy.compress(body);
        case SNAPPY_FRAMED:
          {
            ByteArrayOutputStream out = new ByteArrayOutputStream(body.length / 4 + 64);
            try (SnappyFramedOutputStream snappy = new SnappyFramedOutputStream(out)) {
              snappy.write(body);
            }
            return out.toByteArray();
          }
        default:
          throw new AssertionError(this);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
