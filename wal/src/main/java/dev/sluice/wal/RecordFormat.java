package dev.sluice.wal;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * One record of a segment: a fixed 32-byte header, then the payload (an accepted request's bytes).
 * All integers big-endian.
 *
 * <pre>
 *  0  magic           4  "SLWR"
 *  4  header CRC32C   4  of bytes 8..32
 *  8  sequence        8  unique and increasing across the log
 * 16  payload length  4
 * 20  payload CRC32C  4
 * 24  routing         4  the pipeline set, as the log's owner numbers it
 * 28  signal          1  as the owner numbers it
 * 29  version         1  1
 * 30  reserved        2  0
 * </pre>
 *
 * The header's checksum lets recovery tell a record from garbage before it trusts the length; the
 * payload's tells a torn or damaged payload.
 */
final class RecordFormat {
  static final int HEADER_BYTES = 32;
  static final int MAGIC = 0x534C5752;
  static final byte VERSION = 1;

  private static final int MAGIC_AT = 0;
  private static final int HEADER_CRC_AT = 4;
  private static final int SEQUENCE_AT = 8;
  private static final int LENGTH_AT = 16;
  private static final int PAYLOAD_CRC_AT = 20;
  private static final int ROUTING_AT = 24;
  private static final int SIGNAL_AT = 28;
  private static final int VERSION_AT = 29;
  private static final int CHECKED_FROM = SEQUENCE_AT;

  private RecordFormat() {}

  /** Writes a header at {@code buffer}'s position and advances it by {@link #HEADER_BYTES}. */
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
    buffer.putInt(start + HEADER_CRC_AT, headerCrc(buffer, start, crc));
    buffer.position(start + HEADER_BYTES);
  }

  private static int headerCrc(ByteBuffer buffer, int start, CRC32C crc) {
    crc.reset();
    ByteBuffer checked = buffer.duplicate();
    checked.limit(start + HEADER_BYTES).position(start + CHECKED_FROM);
    crc.update(checked);
    return (int) crc.getValue();
  }

  static int payloadCrc(byte[] payload, int offset, int length, CRC32C crc) {
    crc.reset();
    crc.update(payload, offset, length);
    return (int) crc.getValue();
  }

  /** A header read back; {@link #valid} false when magic, version or checksum do not match. */
  record Header(
      boolean valid, long sequence, int payloadLength, int payloadCrc, int routing, int signal) {}

  /** Reads the header at {@code buffer}'s position (which must have 32 bytes left). */
  static Header readHeader(ByteBuffer buffer, CRC32C crc) {
    int start = buffer.position();
    boolean valid =
        buffer.getInt(start + MAGIC_AT) == MAGIC
            && buffer.get(start + VERSION_AT) == VERSION
            && buffer.getInt(start + HEADER_CRC_AT) == headerCrc(buffer, start, crc)
            && buffer.getInt(start + LENGTH_AT) >= 0;
    return new Header(
        valid,
        buffer.getLong(start + SEQUENCE_AT),
        buffer.getInt(start + LENGTH_AT),
        buffer.getInt(start + PAYLOAD_CRC_AT),
        buffer.getInt(start + ROUTING_AT),
        buffer.get(start + SIGNAL_AT) & 0xFF);
  }

  /** The magic's bytes, for searching past a damaged record. */
  static boolean magicAt(ByteBuffer buffer, int position) {
    return buffer.getInt(position) == MAGIC;
  }
}
