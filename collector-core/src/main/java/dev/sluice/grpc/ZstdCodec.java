package dev.sluice.grpc;

import com.github.luben.zstd.RecyclingBufferPool;
import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import io.grpc.Codec;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * zstd for gRPC message compression ({@code grpc-encoding: zstd}), over zstd-jni. grpc-java ships
 * only gzip; receivers register this for decompression and exporters for compression, at {@link
 * #DEFAULT_LEVEL} or at a level of their own. Decompression reads every level.
 */
public final class ZstdCodec implements Codec {
  /**
   * Level 1: the level whose speed suits a collector (JMH {@code GzipBenchmark.zstd}: about 1 µs
   * per span).
   */
  public static final int DEFAULT_LEVEL = 1;

  public static final ZstdCodec INSTANCE = new ZstdCodec(DEFAULT_LEVEL);

  /** zstd's default largest window (128 MiB, native memory), stated rather than assumed. */
  public static final int MAX_WINDOW_LOG = 27;

  private final int level;

  private ZstdCodec(int level) {
    this.level = level;
  }

  /** A codec that compresses at {@code level} (zstd's 1 to 22; higher is smaller and slower). */
  public static ZstdCodec atLevel(int level) {
    return level == DEFAULT_LEVEL ? INSTANCE : new ZstdCodec(level);
  }

  @Override
  public String getMessageEncoding() {
    return "zstd";
  }

  @Override
  public OutputStream compress(OutputStream os) throws IOException {
    return new ZstdOutputStreamNoFinalizer(os, level);
  }

  /**
   * A stream that decompresses {@code is}; the caller bounds what it reads (grpc-java stops at the
   * server's {@code maxInboundMessageSize}) and must close it: the stream holds native memory until
   * then. Its 128 KiB input buffer comes from zstd-jni's recycling pool and goes back on close, so
   * a message does not cost that much heap; the window a frame may ask for is zstd's default
   * largest, {@link #MAX_WINDOW_LOG}.
   */
  @Override
  public InputStream decompress(InputStream is) throws IOException {
    return new ZstdInputStreamNoFinalizer(is, RecyclingBufferPool.INSTANCE)
        .setLongMax(MAX_WINDOW_LOG);
  }
}
