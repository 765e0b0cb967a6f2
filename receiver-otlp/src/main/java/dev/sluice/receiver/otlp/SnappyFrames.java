package dev.sluice.receiver.otlp;

import java.io.IOException;
import java.util.zip.CRC32C;
import org.xerial.snappy.Snappy;

/**
 * Decodes the snappy framing format (github.com/google/snappy, {@code framing_format.txt}) from a
 * body in memory, chunk by chunk into a bounded {@link BodyDecoder.Output}.
 *
 * <p>snappy-java's {@code SnappyFramedInputStream} allocates its buffers from a chunk's declared
 * length (up to 16 MiB from a 4-byte header) before reading it; here a chunk is only looked at once
 * it is wholly in the body, each compressed chunk is checked to be a valid snappy block whose
 * output fits the format's 64 KiB before anything is written, and every chunk's masked CRC-32C is
 * verified.
 */
final class SnappyFrames {
  private static final int HEADER_BYTES = 4;
  private static final int CRC_BYTES = 4;

  private static final int COMPRESSED = 0x00;
  private static final int UNCOMPRESSED = 0x01;
  private static final int LAST_UNSKIPPABLE = 0x7f;
  private static final int STREAM_IDENTIFIER = 0xff;

  /** The stream identifier's body: "sNaPpY". */
  private static final byte[] MAGIC = {'s', 'N', 'a', 'P', 'p', 'Y'};

  /** The format's largest uncompressed chunk. */
  private static final int MAX_CHUNK_OUTPUT_BYTES = 65536;

  /** The constant of the format's CRC mask. */
  private static final int CRC_MASK_DELTA = 0xa282ead8;

  private SnappyFrames() {}

  static byte[] decode(byte[] body, BodyDecoder.Output out)
      throws IOException, BodyDecoder.TooLarge, BodyDecoder.Undecodable {
    CRC32C crc = new CRC32C();
    int at = 0;
    boolean identified = false;
    while (at < body.length) {
      if (body.length - at < HEADER_BYTES) {
        throw undecodable("a chunk header is truncated", at);
      }
      int type = body[at] & 0xff;
      int length = (body[at + 1] & 0xff) | (body[at + 2] & 0xff) << 8 | (body[at + 3] & 0xff) << 16;
      int data = at + HEADER_BYTES;
      if (length > body.length - data) {
        throw undecodable("a chunk of " + length + " bytes is truncated", at);
      }
      if (!identified && type != STREAM_IDENTIFIER) {
        throw undecodable("the stream does not start with the snappy stream identifier", at);
      }
      switch (type) {
        case STREAM_IDENTIFIER -> {
          if (length != MAGIC.length
              || !java.util.Arrays.equals(body, data, data + length, MAGIC, 0, MAGIC.length)) {
            throw undecodable("invalid stream identifier", at);
          }
          identified = true;
        }
        case COMPRESSED -> {
          int blockBytes = length - CRC_BYTES;
          if (blockBytes < 0) {
            throw undecodable("a compressed chunk is shorter than its checksum", at);
          }
          int block = data + CRC_BYTES;
          int produced = BodyDecoder.snappyLength(body, block, blockBytes);
          if (produced < 0
              || produced > MAX_CHUNK_OUTPUT_BYTES
              || !Snappy.isValidCompressedBuffer(body, block, blockBytes)) {
            throw undecodable("a compressed chunk is not a valid snappy block", at);
          }
          out.ensureRoom(produced);
          Snappy.uncompress(body, block, blockBytes, out.buffer, out.size);
          verify(crc, body, data, out.buffer, out.size, produced, at);
          out.size += produced;
        }
        case UNCOMPRESSED -> {
          int produced = length - CRC_BYTES;
          if (produced < 0 || produced > MAX_CHUNK_OUTPUT_BYTES) {
            throw undecodable("an uncompressed chunk of " + length + " bytes", at);
          }
          out.ensureRoom(produced);
          System.arraycopy(body, data + CRC_BYTES, out.buffer, out.size, produced);
          verify(crc, body, data, out.buffer, out.size, produced, at);
          out.size += produced;
        }
        default -> {
          if (type <= LAST_UNSKIPPABLE) {
            throw undecodable("reserved unskippable chunk type " + type, at);
          }
          // Reserved skippable chunks and padding carry nothing.
        }
      }
      out.checkLimit();
      at = data + length;
    }
    if (!identified) {
      throw undecodable("the body is empty", 0);
    }
    return out.toArray();
  }

  private static void verify(
      CRC32C crc, byte[] body, int at, byte[] output, int offset, int length, int chunk)
      throws BodyDecoder.Undecodable {
    crc.reset();
    crc.update(output, offset, length);
    int value = (int) crc.getValue();
    int masked = ((value >>> 15) | (value << 17)) + CRC_MASK_DELTA;
    int expected =
        (body[at] & 0xff)
            | (body[at + 1] & 0xff) << 8
            | (body[at + 2] & 0xff) << 16
            | (body[at + 3] & 0xff) << 24;
    if (masked != expected) {
      throw undecodable("checksum mismatch", chunk);
    }
  }

  private static BodyDecoder.Undecodable undecodable(String what, int offset) {
    return new BodyDecoder.Undecodable(
        "cannot decode the snappy framed body: " + what + " at offset " + offset);
  }
}
