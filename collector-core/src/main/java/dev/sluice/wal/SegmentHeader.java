package dev.sluice.wal;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.zip.CRC32C;

/**
 * The first 32 bytes of a segment: its first sequence and its key, a random value every record of
 * the segment carries ({@link RecordFormat}). Big-endian.
 *
 * <pre>
 *  0  magic           4  "SLWS"
 *  4  version         4  2
 *  8  first sequence  8  as the segment's name says
 * 16  key             8  random, drawn when the segment is started
 * 24  CRC32C          4  of bytes 0..24
 * 28  zero            4
 * </pre>
 *
 * The header is written with the segment's first group. A segment whose header is damaged can still
 * be read: its first record, right after the header, carries the key too.
 */
final class SegmentHeader {
  static final int BYTES = 32;
  static final int MAGIC = 0x534C5753;
  static final int VERSION = 2;

  private static final int VERSION_AT = 4;
  private static final int FIRST_SEQUENCE_AT = 8;
  private static final int KEY_AT = 16;
  private static final int CRC_AT = 24;
  private static final int ZERO_AT = 28;
  private static final SecureRandom KEYS = new SecureRandom();

  private SegmentHeader() {}

  /** A new segment's key: random, never 0, so that no all-zero block carries it. */
  static long newKey() {
    long key;
    do {
      key = KEYS.nextLong();
    } while (key == 0);
    return key;
  }

  /** Writes the header at {@code buffer}'s position and advances it by {@link #BYTES}. */
  static void write(ByteBuffer buffer, long firstSequence, long key, CRC32C crc) {
    int start = buffer.position();
    buffer.putInt(start, MAGIC);
    buffer.putInt(start + VERSION_AT, VERSION);
    buffer.putLong(start + FIRST_SEQUENCE_AT, firstSequence);
    buffer.putLong(start + KEY_AT, key);
    buffer.putInt(start + CRC_AT, RecordFormat.crcOf(buffer, start, start + CRC_AT, crc));
    buffer.putInt(start + ZERO_AT, 0);
    buffer.position(start + BYTES);
  }

  /**
   * The key of the header at the start of {@code buffer} (its limit the bytes read), or 0 when
   * there is no intact header there for a segment starting at {@code firstSequence}.
   */
  static long keyOf(ByteBuffer buffer, long firstSequence, CRC32C crc) {
    if (buffer.limit() < BYTES
        || buffer.getInt(0) != MAGIC
        || buffer.getInt(VERSION_AT) != VERSION
        || buffer.getInt(CRC_AT) != RecordFormat.crcOf(buffer, 0, CRC_AT, crc)
        || buffer.getLong(FIRST_SEQUENCE_AT) != firstSequence) {
      return 0;
    }
    return buffer.getLong(KEY_AT);
  }

  /** Whether the segment starts like one written before segments had a header (version 1). */
  static boolean startsAsFormer(ByteBuffer buffer) {
    return buffer.limit() >= RecordFormat.Former.HEADER_BYTES
        && buffer.getInt(0) == RecordFormat.MAGIC
        && buffer.get(29) == RecordFormat.Former.VERSION;
  }
}
