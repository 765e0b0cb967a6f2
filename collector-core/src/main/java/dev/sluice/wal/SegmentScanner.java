package dev.sluice.wal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * Reads one segment back: every record whose header and payload check out, that carries the
 * segment's key and whose sequence lies in the segment's range, is handed on; the rest is
 * classified. A run of damage with good records after it is corrupt: skipped and counted, and the
 * records after it are kept (the scan finds the next header that checks out and carries the key).
 * Bytes after the last good record that do not form one are the tail: a write the crash cut short,
 * or a reused file's old records; the caller decides what they are.
 *
 * <p>Only the log's own records are taken, never a client's bytes: a payload can hold a complete
 * record with valid checksums, but not the segment's key ({@link SegmentHeader}). A record's
 * sequence must lie in {@code [firstSequence, sequenceLimit)} and be above the record before it,
 * which bounds how far the sequences a scan hands on can jump.
 *
 * <p>Segments written before segments had a key (version 1, {@link RecordFormat.Former}) are read
 * at their records' natural places only, from the start: the first record that does not check out,
 * or whose sequence is out of place (a reused file's old records), ends the segment.
 */
final class SegmentScanner {
  /** Told about each good record, in file order. */
  interface Found {
    void record(
        long sequence, int layout, int routing, int signal, byte[] payload, int offset, int length)
        throws IOException;
  }

  /**
   * What a scan saw.
   *
   * @param goodEnd where the last good record ends (after the segment header when there is none):
   *     the tail, if any, starts there
   * @param lastSequence sequence of the last good record, or -1
   * @param records good records
   * @param corrupt damaged runs skipped between good records
   * @param tailBytes bytes after the last good record that do not form one
   * @param staleTail whether the tail starts with an old record of a reused file (version 1)
   * @param keyed whether the segment has a key, from its header or its first record: false for a
   *     version 1 segment and for one whose header and first record are both damaged
   */
  record Result(
      long goodEnd,
      long lastSequence,
      int records,
      int corrupt,
      long tailBytes,
      boolean staleTail,
      boolean keyed) {}

  private SegmentScanner() {}

  /**
   * Scans {@code segment}, whose name says its records start at {@code firstSequence}.
   *
   * @param sequenceLimit every record of the segment has a lower sequence
   */
  static Result scan(
      FileAccess files,
      Path segment,
      long firstSequence,
      long sequenceLimit,
      CRC32C crc,
      Found found)
      throws IOException {
    long size = files.size(segment);
    if (size > Integer.MAX_VALUE - 8) {
      throw new IOException(segment + " is larger than a segment can be: " + size + " bytes");
    }
    ByteBuffer bytes = ByteBuffer.allocate((int) size);
    int read = files.read(segment, 0, bytes);
    bytes.clear().limit(read);
    Scan scan = new Scan(bytes, read, firstSequence, sequenceLimit, crc, found);
    if (SegmentHeader.startsAsFormer(bytes)) {
      return scan.former();
    }
    return scan.keyed(SegmentHeader.keyOf(bytes, firstSequence, crc));
  }

  private static final class Scan {
    private final ByteBuffer bytes;
    private final int read;
    private final long firstSequence;
    private final long sequenceLimit;
    private final CRC32C crc;
    private final Found found;
    private long last = -1;
    private int records;
    private int corrupt;

    Scan(
        ByteBuffer bytes,
        int read,
        long firstSequence,
        long sequenceLimit,
        CRC32C crc,
        Found found) {
      this.bytes = bytes;
      this.read = read;
      this.firstSequence = firstSequence;
      this.sequenceLimit = sequenceLimit;
      this.crc = crc;
      this.found = found;
    }

    /** A segment with a header; {@code key} is 0 when the header is damaged. */
    Result keyed(long headerKey) throws IOException {
      long key = headerKey;
      int position = SegmentHeader.BYTES;
      int goodEnd = Math.min(position, read);
      if (key == 0) {
        // The first record, at its natural place, carries the key too.
        RecordFormat.Header first = goodRecordAt(position, false);
        if (first == null) {
          return new Result(goodEnd, -1, 0, 0, read - goodEnd, false, false);
        }
        key = first.key();
      }
      boolean damaged = false;
      while (position <= read - RecordFormat.HEADER_BYTES) {
        RecordFormat.Header header =
            RecordFormat.magicAt(bytes, position) ? goodRecordAt(position, false) : null;
        if (header == null || header.key() != key || !inPlace(header.sequence())) {
          damaged = true;
          position++;
          continue;
        }
        if (damaged) {
          corrupt++;
          damaged = false;
        }
        position = hand(header, position, RecordFormat.HEADER_BYTES);
        goodEnd = position;
      }
      return new Result(goodEnd, last, records, corrupt, read - goodEnd, false, true);
    }

    /** A version 1 segment: records at their natural places only. */
    Result former() throws IOException {
      int position = 0;
      boolean stale = false;
      while (position <= read - RecordFormat.Former.HEADER_BYTES) {
        RecordFormat.Header header = goodRecordAt(position, true);
        if (header == null) {
          break;
        }
        if (!inPlace(header.sequence())) {
          // A reused file's old record, after what its new use wrote: old space.
          stale = header.sequence() < firstSequence || header.sequence() <= last;
          break;
        }
        position = hand(header, position, RecordFormat.Former.HEADER_BYTES);
      }
      return new Result(position, last, records, 0, read - position, stale, false);
    }

    private boolean inPlace(long sequence) {
      return sequence >= firstSequence && sequence < sequenceLimit && sequence > last;
    }

    private int hand(RecordFormat.Header header, int position, int headerBytes) throws IOException {
      found.record(
          header.sequence(),
          header.layout(),
          header.routing(),
          header.signal(),
          bytes.array(),
          position + headerBytes,
          header.payloadLength());
      last = header.sequence();
      records++;
      return position + headerBytes + header.payloadLength();
    }

    /** The header at {@code position} if it and its payload check out, else null. */
    private RecordFormat.Header goodRecordAt(int position, boolean former) {
      int headerBytes = former ? RecordFormat.Former.HEADER_BYTES : RecordFormat.HEADER_BYTES;
      if (position > read - headerBytes) {
        return null;
      }
      RecordFormat.Header header =
          former
              ? RecordFormat.Former.readHeader(bytes, position, crc)
              : RecordFormat.readHeader(bytes, position, crc);
      if (!header.valid()) {
        return null;
      }
      long recordEnd = (long) position + headerBytes + header.payloadLength();
      if (recordEnd > read) {
        return null;
      }
      int payloadCrc =
          RecordFormat.payloadCrc(
              bytes.array(), position + headerBytes, header.payloadLength(), crc);
      return payloadCrc == header.payloadCrc() ? header : null;
    }
  }
}
