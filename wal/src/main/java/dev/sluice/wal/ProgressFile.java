package dev.sluice.wal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * The durable progress of a log's consumers: for each, the first sequence it is not done with.
 * Written whole, atomically ({@link FileAccess#writeAtomically}), with a checksum; a file that is
 * missing or does not check out reads as "nothing done", which re-delivers and never loses.
 *
 * <pre>
 * magic "SLWP" (4) | version (1) | count (4) | count x (name length (2) | UTF-8 name | watermark (8))
 * | CRC32C of everything before (4)
 * </pre>
 */
final class ProgressFile {
  static final String NAME = "progress";
  static final int MAX_BYTES = 64 * 1024;
  private static final int MAGIC = 0x534C5750;
  private static final byte VERSION = 1;

  private ProgressFile() {}

  static byte[] encode(List<String> names, long[] watermarks) {
    byte[][] encoded = new byte[names.size()][];
    int size = 4 + 1 + 4 + 4;
    for (int i = 0; i < names.size(); i++) {
      encoded[i] = names.get(i).getBytes(StandardCharsets.UTF_8);
      size += 2 + encoded[i].length + 8;
    }
    ByteBuffer out = ByteBuffer.allocate(size);
    out.putInt(MAGIC).put(VERSION).putInt(names.size());
    for (int i = 0; i < names.size(); i++) {
      out.putShort((short) encoded[i].length).put(encoded[i]).putLong(watermarks[i]);
    }
    CRC32C crc = new CRC32C();
    crc.update(out.array(), 0, out.position());
    out.putInt((int) crc.getValue());
    return out.array();
  }

  /**
   * The watermarks the file holds by consumer name, or null when it is missing, damaged or of
   * another version (the caller then treats every consumer as done with nothing).
   */
  static Map<String, Long> decode(byte[] content) {
    if (content == null || content.length < 13) {
      return null;
    }
    CRC32C crc = new CRC32C();
    crc.update(content, 0, content.length - 4);
    ByteBuffer in = ByteBuffer.wrap(content);
    if (in.getInt(content.length - 4) != (int) crc.getValue()
        || in.getInt() != MAGIC
        || in.get() != VERSION) {
      return null;
    }
    int count = in.getInt();
    Map<String, Long> watermarks = new HashMap<>();
    try {
      for (int i = 0; i < count; i++) {
        byte[] name = new byte[in.getShort() & 0xFFFF];
        in.get(name);
        watermarks.put(new String(name, StandardCharsets.UTF_8), in.getLong());
      }
    } catch (RuntimeException e) {
      return null;
    }
    return in.remaining() == 4 ? watermarks : null;
  }
}
