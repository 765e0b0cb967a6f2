package dev.sluice.wal;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * One record of a segment: a fixed 40-byte header, then the payload (an accepted request's bytes).
 * All integers big-endian.
 *
 * <pre>
 *  0  magic           4  "SLWR"
 *  4  header CRC32C   4  of bytes 8..40
 *  8  segment key     8  the random key of the segment the record is in ({@link SegmentHeader})
 * 16  sequence        8  unique and increasing across the log
 * 24  payload length  4
 * 28  payload CRC32C  4
 * 32  routing         4  the pipeline set, as bits of the layout below
 * 36  layout          2  the pipeline layout the routing's bits refer to, as the owner numbers it
 * 38  signal          1  as the owner numbers it
 * 39  version         1  2
 * </pre>
 *
 * The header's checksum lets recovery tell a record from garbage before it trusts the length; the
 * payload's tells a torn or damaged payload. The key makes a header unforgeable: a client's bytes
 * land in payloads, and a payload may hold a complete record with valid checksums, which recovery,
 * searching byte by byte past damage, would take for one of the log's own. Such a record cannot
 * carry the key, a random value the log never shows.
 *
 * <p>Logs written before the key existed have {@linkplain Former version 1 records}: read only at
 * their natural places, one after the other from the segment's start, never by searching.
 */
final class RecordFormat {
  static final int HEADER_BYTES = 40;
  static final int MAGIC = 0x534C5752;
  static final byte VERSION = 2;

  /** Layout numbers are two bytes; {@link #FORMER_LAYOUT} stands for a version 1 record's. */
  static final int MAX_LAYOUT = 0xFFFF;

  /** The layout of a version 1 record, which has none of its own. */
  static final int FORMER_LAYOUT = -1;

  private static final int MAGIC_AT = 0;
  private static final int HEADER_CRC_AT = 4;
  private static final int KEY_AT = 8;
  private static final int SEQUENCE_AT = 16;
  private static final int LENGTH_AT = 24;
  private static final int PAYLOAD_CRC_AT = 28;
  private static final int ROUTING_AT = 32;
  private static final int LAYOUT_AT = 36;
  private static final int SIGNAL_AT = 38;
  private static final int VERSION_AT = 39;
  private static final int CHECKED_FROM = KEY_AT;

  private RecordFormat() {}

  /** Writes a header at {@code buffer}'s position and advances it by {@link #HEADER_BYTES}. */
  static void writeHeader(
      ByteBuffer buffer,
      long key,
      long sequence,
      int payloadLength,
      int payloadCrc,
      int routing,
      int layout,
      int signal,
      CRC32C crc) {
    int start = buffer.position();
    buffer.putInt(start + MAGIC_AT, MAGIC);
    buffer.putLong(start + KEY_AT, key);
    buffer.putLong(start + SEQUENCE_AT, sequence);
    buffer.putInt(start + LENGTH_AT, payloadLength);
    buffer.putInt(start + PAYLOAD_CRC_AT, payloadCrc);
    buffer.putInt(start + ROUTING_AT, routing);
    buffer.putShort(start + LAYOUT_AT, (short) layout);
    buffer.put(start + SIGNAL_AT, (byte) signal);
    buffer.put(start + VERSION_AT, VERSION);
    buffer.putInt(
        start + HEADER_CRC_AT, crcOf(buffer, start + CHECKED_FROM, start + HEADER_BYTES, crc));
    buffer.position(start + HEADER_BYTES);
  }

  static int crcOf(ByteBuffer buffer, int from, int to, CRC32C crc) {
    crc.reset();
    ByteBuffer checked = buffer.duplicate();
    checked.limit(to).position(from);
    crc.update(checked);
    return (int) crc.getValue();
  }

  static int payloadCrc(byte[] payload, int offset, int length, CRC32C crc) {
    crc.reset();
    crc.update(payload, offset, length);
    return (int) crc.getValue();
  }

  /**
   * A header read back; {@link #valid} false when magic, version or checksum do not match.
   *
   * @param key the segment key it carries (0 for a version 1 record, which has none)
   */
  record Header(
      boolean valid,
      long key,
      long sequence,
      int payloadLength,
      int payloadCrc,
      int routing,
      int layout,
      int signal) {}

  /** Reads the header at {@code position} (which must have {@link #HEADER_BYTES} after it). */
  static Header readHeader(ByteBuffer buffer, int position, CRC32C crc) {
    boolean valid =
        buffer.getInt(position + MAGIC_AT) == MAGIC
            && buffer.get(position + VERSION_AT) == VERSION
            && buffer.getInt(position + HEADER_CRC_AT)
                == crcOf(buffer, position + CHECKED_FROM, position + HEADER_BYTES, crc)
            && buffer.getInt(position + LENGTH_AT) >= 0;
    return new Header(
        valid,
        buffer.getLong(position + KEY_AT),
        buffer.getLong(position + SEQUENCE_AT),
        buffer.getInt(position + LENGTH_AT),
        buffer.getInt(position + PAYLOAD_CRC_AT),
        buffer.getInt(position + ROUTING_AT),
        buffer.getShort(position + LAYOUT_AT) & MAX_LAYOUT,
        buffer.get(position + SIGNAL_AT) & 0xFF);
  }

  /** The magic's bytes, for searching past a damaged record. */
  static boolean magicAt(ByteBuffer buffer, int position) {
    return buffer.getInt(position) == MAGIC;
  }

  /**
   * The records of logs written before segments had a key, read only: a 32-byte header.
   *
   * <pre>
   *  0  magic           4  "SLWR"
   *  4  header CRC32C   4  of bytes 8..32
   *  8  sequence        8
   * 16  payload length  4
   * 20  payload CRC32C  4
   * 24  routing         4  bits of the pipelines the run that wrote it had
   * 28  signal          1
   * 29  version         1  1
   * 30  zero            2
   * </pre>
   */
  static final class Former {
    static final int HEADER_BYTES = 32;
    static final byte VERSION = 1;

    private static final int SEQUENCE_AT = 8;
    private static final int LENGTH_AT = 16;
    private static final int PAYLOAD_CRC_AT = 20;
    private static final int ROUTING_AT = 24;
    private static final int SIGNAL_AT = 28;
    private static final int VERSION_AT = 29;

    private Former() {}

    /** Reads a version 1 header at {@code position} (32 bytes must follow it). */
    static Header readHeader(ByteBuffer buffer, int position, CRC32C crc) {
      boolean valid =
          buffer.getInt(position + MAGIC_AT) == MAGIC
              && buffer.get(position + VERSION_AT) == VERSION
              && buffer.getInt(position + HEADER_CRC_AT)
                  == crcOf(buffer, position + SEQUENCE_AT, position + HEADER_BYTES, crc)
              && buffer.getInt(position + LENGTH_AT) >= 0;
      return new Header(
          valid,
          0,
          buffer.getLong(position + SEQUENCE_AT),
          buffer.getInt(position + LENGTH_AT),
          buffer.getInt(position + PAYLOAD_CRC_AT),
          buffer.getInt(position + ROUTING_AT),
          FORMER_LAYOUT,
          buffer.get(position + SIGNAL_AT) & 0xFF);
    }

    /** Writes a version 1 record's header, for tests of reading logs of the earlier format. */
    static void writeHeader(
        ByteBuffer buffer,
        long sequence,
        int payloadLength,
        int payloadCrc,
        int routing,
        int signal,
        CRC32C crc) {
      int start = buffer.position();
      buffer.putInt(start + MAGIC_AT, MAGIC);
      buffer.putLong(start + SEQUENCE_AT, sequence);
      buffer.putInt(start + LENGTH_AT, payloadLength);
      buffer.putInt(start + PAYLOAD_CRC_AT, payloadCrc);
      buffer.putInt(start + ROUTING_AT, routing);
      buffer.put(start + SIGNAL_AT, (byte) signal);
      buffer.put(start + VERSION_AT, VERSION);
      buffer.putShort(start + VERSION_AT + 1, (short) 0);
      buffer.putInt(
          start + HEADER_CRC_AT, crcOf(buffer, start + SEQUENCE_AT, start + HEADER_BYTES, crc));
      buffer.position(start + HEADER_BYTES);
    }
  }
}
