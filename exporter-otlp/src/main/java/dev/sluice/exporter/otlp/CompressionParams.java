package dev.sluice.exporter.otlp;

import dev.sluice.component.ConfigProblems;
import dev.sluice.grpc.ZstdCodec;
import java.util.zip.Deflater;

/**
 * An exporter's {@code compression_params}, with the OpenTelemetry Collector's key: how hard its
 * {@code compression} works. Lower levels cost less CPU per byte for a larger body; gzip at its
 * default level is most of what sending a batch costs.
 *
 * @param level 0 (the default) for the compression's own default level: the JDK's {@link
 *     Deflater#DEFAULT_COMPRESSION} for gzip and deflate, {@link ZstdCodec#DEFAULT_LEVEL} for zstd;
 *     otherwise 1 (fastest) to 9 (smallest) or -1 (the default) for gzip and deflate, 1 to 22 for
 *     zstd. A level with no compression is an error.
 */
public record CompressionParams(int level) {
  public static final CompressionParams DEFAULT = new CompressionParams(0);

  private static final int MAX_DEFLATE_LEVEL = Deflater.BEST_COMPRESSION;
  private static final int MAX_ZSTD_LEVEL = 22;

  /**
   * Reports a level that {@code compression} does not have; {@code compression} is one the exporter
   * takes, {@code ""} and {@code none} meaning none.
   */
  void validate(String compression, ConfigProblems problems) {
    if (level == 0) {
      return;
    }
    switch (compression) {
      case "gzip", "deflate" -> {
        if (level != Deflater.DEFAULT_COMPRESSION && (level < 1 || level > MAX_DEFLATE_LEVEL)) {
          problems.add(
              "level",
              "must be between 1 and "
                  + MAX_DEFLATE_LEVEL
                  + " (or -1 for the default) for "
                  + compression
                  + ", was "
                  + level);
        }
      }
      case "zstd" -> {
        if (level < 1 || level > MAX_ZSTD_LEVEL) {
          problems.add(
              "level", "must be between 1 and " + MAX_ZSTD_LEVEL + " for zstd, was " + level);
        }
      }
      case "", "none" ->
          problems.add("level", "must be left out without compression, was " + level);
      default -> {}
    }
  }

  /**
   * The level to compress at with {@code compression} ({@code gzip}, {@code deflate} or {@code
   * zstd}): the configured one, or the compression's default for 0.
   */
  int levelFor(String compression) {
    if (level != 0) {
      return level;
    }
    return "zstd".equals(compression) ? ZstdCodec.DEFAULT_LEVEL : Deflater.DEFAULT_COMPRESSION;
  }
}
