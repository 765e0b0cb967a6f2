package dev.sluice.wal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * Reads one segment back at start: every record whose header and payload check out is handed on;
 * damage is classified. A record that fails its checksums, with good records after it, is corrupt:
 * it is skipped and counted, and the records after it are kept (the scan finds the next header
 * whose checksum holds). Damage that runs to the end of the last segment is a torn tail: a write
 * the crash cut short, never answered, and cut off.
 *
 * <p>A reused segment file still holds records of the segment it was before, after what was written
 * to it since ({@link Segment}): they check out, but their sequences are below the segment's first,
 * or not above the record before them. Such a stale record is not good: it is counted apart, and
 * bytes after the last good record that hold stale records are old space, not a torn tail.
 */
final class SegmentScanner {
  /** Told about each good record, in file order. */
  interface Found {
    void record(long sequence, int routing, int signal, byte[] payload, int offset, int length)
        throws IOException;
  }

  /**
   * What a scan saw.
   *
   * @param goodEnd where the last good record ends: the torn tail, if any, starts there
   * @param firstSequence sequence of the first good record, or -1 when there is none
   * @param lastSequence sequence of the last good record, or -1
   * @param records good records
   * @param corrupt damaged records skipped in the middle (runs of damage between good records)
   * @param tornBytes bytes after the last good record that do not form one
   * @param staleRecords records left from the file's use as an earlier segment, skipped
   */
  record Result(
      long goodEnd,
      long firstSequence,
      long lastSequence,
      int records,
      int corrupt,
      long tornBytes,
      int staleRecords) {
    /** True when what follows the last good record is a reused file's old space. */
    boolean staleTail() {
      return tornBytes > 0 && staleRecords > 0;
    }
  }

  private SegmentScanner() {}

  /**
   * Scans {@code segment}, whose name says its records start at {@code firstSequence}.
   *
   * @param firstSequence no record of this segment has a lower sequence: one that does is stale
   */
  static Result scan(FileAccess files, Path segment, long firstSequence, CRC32C crc, Found found)
      throws IOException {
    long size = files.size(segment);
    if (size > Integer.MAX_VALUE - 8) {
      throw new IOException(segment + " is larger than a segment can be: " + size + " bytes");
    }
    ByteBuffer bytes = ByteBuffer.allocate((int) size);
    int read = files.read(segment, 0, bytes);
    bytes.clear().limit(read);
    byte[] array = bytes.array();
    int position = 0;
    int goodEnd = 0;
    long first = -1;
    long last = -1;
    int records = 0;
    int corrupt = 0;
    int stale = 0;
    boolean damaged = false;
    while (position <= read - RecordFormat.HEADER_BYTES) {
      int recordEnd = goodRecordAt(bytes, position, read, crc);
      if (recordEnd < 0) {
        damaged = true;
        position++;
        continue;
      }
      bytes.position(position);
      RecordFormat.Header header = RecordFormat.readHeader(bytes, crc);
      if (header.sequence() < firstSequence || (last >= 0 && header.sequence() <= last)) {
        stale++;
        damaged = true;
        position = recordEnd;
        continue;
      }
      if (damaged) {
        corrupt++;
        damaged = false;
      }
      int payloadAt = position + RecordFormat.HEADER_BYTES;
      found.record(
          header.sequence(),
          header.routing(),
          header.signal(),
          array,
          payloadAt,
          header.payloadLength());
      if (first < 0) {
        first = header.sequence();
      }
      last = header.sequence();
      records++;
      position = recordEnd;
      goodEnd = recordEnd;
    }
    return new Result(goodEnd, first, last, records, corrupt, read - goodEnd, stale);
  }

  /** Where the record at {@code position} ends if its header and payload check out, else -1. */
  private static int goodRecordAt(ByteBuffer bytes, int position, int end, CRC32C crc) {
    if (!RecordFormat.magicAt(bytes, position)) {
      return -1;
    }
    bytes.position(position);
    RecordFormat.Header header = RecordFormat.readHeader(bytes, crc);
    if (!header.valid()) {
      return -1;
    }
    long recordEnd = (long) position + RecordFormat.HEADER_BYTES + header.payloadLength();
    if (recordEnd > end) {
      return -1;
    }
    int payloadCrc =
        RecordFormat.payloadCrc(
            bytes.array(), position + RecordFormat.HEADER_BYTES, header.payloadLength(), crc);
    return payloadCrc == header.payloadCrc() ? (int) recordEnd : -1;
  }
}
