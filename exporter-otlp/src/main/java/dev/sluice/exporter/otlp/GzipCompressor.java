package dev.sluice.exporter.otlp;

import io.grpc.Compressor;
import java.io.IOException;
import java.io.OutputStream;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;

/**
 * gzip for gRPC message compression ({@code grpc-encoding: gzip}) at a chosen level. grpc-java's
 * own {@code Codec.Gzip} always deflates at the JDK's default level, which costs several times what
 * level 1 does; receivers read every level alike.
 */
final class GzipCompressor implements Compressor {
  private final int level;

  /**
   * @param level a {@link Deflater} level: 1 (fastest) to 9 (smallest), or {@link
   *     Deflater#DEFAULT_COMPRESSION}
   */
  GzipCompressor(int level) {
    if (level != Deflater.DEFAULT_COMPRESSION
        && (level < Deflater.BEST_SPEED || level > Deflater.BEST_COMPRESSION)) {
      throw new IllegalArgumentException("no gzip level " + level);
    }
    this.level = level;
  }

  @Override
  public String getMessageEncoding() {
    return "gzip";
  }

  @Override
  public OutputStream compress(OutputStream os) throws IOException {
    return new LeveledGzipOutputStream(os, level);
  }

  /** A gzip stream whose deflater is set to a level before it compresses anything. */
  private static final class LeveledGzipOutputStream extends GZIPOutputStream {
    LeveledGzipOutputStream(OutputStream out, int level) throws IOException {
      super(out);
      // The constructor wrote only the header; nothing has been deflated yet.
      def.setLevel(level);
    }
  }
}
