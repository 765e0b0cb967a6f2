package dev.sluice.wal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * The durable progress of a log's consumers: for each, the first sequence it is not done with (its
 * watermark), and the first ranges above it that it finished out of order. Written whole,
 * atomically ({@link FileAccess#writeAtomically}), with a checksum; a file that is missing or does
 * not check out reads as "nothing done", which re-delivers and never loses.
 *
 * <pre>
 * magic "SLWP" (4) | version (1) | count (4)
 * | count x (name length (2) | UTF-8 name | watermark (8) | ranges (2) | ranges x (from (8) | to (8)))
 * | CRC32C of everything before (4)
 * </pre>
 *
 * Version 1 files (written before the ranges) have no range count; they are read too. At most
 * {@link #MAX_RANGES} ranges are kept per consumer, the lowest: any subset of what is done is safe
 * to keep, and the lowest are those a consumer that lags leaves longest.
 */
final class ProgressFile {
  static final String NAME = "progress";
  static final int MAX_BYTES = 256 * 1024;

  /** The done ranges kept per consumer: 4 KiB of them. */
  static final int MAX_RANGES = 256;

  private static final int MAGIC = 0x534C5750;
  private static final byte VERSION_WATERMARKS = 1;
  private static final byte VERSION = 2;

  /**
   * One consumer's persisted progress.
   *
   * @param ranges done ranges above the watermark, {@code [from, to)} pairs, ascending
   */
  record Progress(long watermark, long[] ranges) {}

  private ProgressFile() {}

  /**
   * The file's content for these consumers' watermarks and done ranges ({@code ranges[c]}, pairs).
   */
  static byte[] encode(List<String> names, long[] watermarks, long[][] ranges) {
    byte[][] encoded = new byte[names.size()][];
    int size = 4 + 1 + 4 + 4;
    for (int i = 0; i < names.size(); i++) {
      encoded[i] = names.get(i).getBytes(StandardCharsets.UTF_8);
      size += 2 + encoded[i].length + 8 + 2 + 8 * ranges[i].length;
    }
    ByteBuffer out = ByteBuffer.allocate(size);
    out.putInt(MAGIC).put(VERSION).putInt(names.size());
    for (int i = 0; i < names.size(); i++) {
      out.putShort((short) encoded[i].length).put(encoded[i]).putLong(watermarks[i]);
      out.putShort((short) (ranges[i].length / 2));
      for (long bound : ranges[i]) {
        out.putLong(bound);
      }
    }
    CRC32C crc = new CRC32C();
    crc.update(out.array(), 0, out.position());
    out.putInt((int) crc.getValue());
    return out.array();
  }

  /** {@link #encode} without done ranges. */
  static byte[] encode(List<String> names, long[] watermarks) {
    long[][] none = new long[names.size()][];
    java.util.Arrays.fill(none, new long[0]);
    return encode(names, watermarks, none);
  }

  /**
   * The progress the file holds by consumer name, or null when it is missing, damaged or of another
   * version (the caller then treats every consumer as done with nothing). Ranges that are not
   * ascending, not above the watermark or not within sequences make the file damaged too.
   */
  static Map<String, Progress> decode(byte[] content) {
    if (content == null || content.length < 13) {
      return null;
    }
    CRC32C crc = new CRC32C();
    crc.update(content, 0, content.length - 4);
    ByteBuffer in = ByteBuffer.wrap(content);
    if (in.getInt(content.length - 4) != (int) crc.getValue() || in.getInt() != MAGIC) {
      return null;
    }
    byte version = in.get();
    if (version != VERSION && version != VERSION_WATERMARKS) {
      return null;
    }
    int count = in.getInt();
    Map<String, Progress> progress = new HashMap<>();
    try {
      for (int i = 0; i < count; i++) {
        byte[] name = new byte[in.getShort() & 0xFFFF];
        in.get(name);
        long watermark = in.getLong();
        int rangeCount = version == VERSION ? in.getShort() & 0xFFFF : 0;
        if (rangeCount * 16L > in.remaining()) {
          return null;
        }
        long[] ranges = new long[2 * rangeCount];
        long last = watermark;
        for (int r = 0; r < ranges.length; r++) {
          ranges[r] = in.getLong();
          boolean ordered = r % 2 == 0 ? ranges[r] > last : ranges[r] > ranges[r - 1];
          if (!ordered || ranges[r] > Segment.MAX_SEQUENCE) {
            return null;
          }
          last = ranges[r];
        }
        progress.put(new String(name, StandardCharsets.UTF_8), new Progress(watermark, ranges));
      }
    } catch (RuntimeException e) {
      return null;
    }
    return in.remaining() == 4 ? progress : null;
  }
}
