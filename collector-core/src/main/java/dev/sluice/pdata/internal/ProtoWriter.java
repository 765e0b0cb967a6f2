package dev.sluice.pdata.internal;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Writes protobuf into a growable byte array that is kept between messages: after the first few
 * messages it has the size it needs and writing allocates nothing.
 *
 * <p>Owned by one thread at a time; {@link #reset()} starts the next message in the same array.
 */
public final class ProtoWriter {
  private static final VarHandle INTS =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final int initialCapacity;
  private byte[] buffer;
  private int size;

  public ProtoWriter() {
    this(256);
  }

  public ProtoWriter(int initialCapacity) {
    this.initialCapacity = Math.max(16, initialCapacity);
    buffer = new byte[this.initialCapacity];
  }

  /** Forgets what was written; the array is kept. */
  public void reset() {
    size = 0;
  }

  /**
   * Forgets what was written and, if the array grew beyond {@code maxRetainedBytes}, goes back to
   * one of the initial capacity: one outsized message must not keep its memory for as long as the
   * thread that wrote it lives.
   */
  public void release(int maxRetainedBytes) {
    size = 0;
    if (buffer.length > maxRetainedBytes) {
      buffer = new byte[initialCapacity];
    }
  }

  /** The backing array; bytes {@code [0, size())} are the message. */
  public byte[] array() {
    return buffer;
  }

  public int size() {
    return size;
  }

  /** A copy of what was written. Allocates: for tests and cold paths. */
  public byte[] toByteArray() {
    return Arrays.copyOf(buffer, size);
  }

  public void writeTo(OutputStream out) throws IOException {
    out.write(buffer, 0, size);
  }

  /** Makes room for {@code bytes} more bytes. */
  public void ensureRemaining(int bytes) {
    int needed = size + bytes;
    if (needed > buffer.length) {
      grow(needed);
    }
  }

  /**
   * Counts {@code bytes} that the caller wrote straight into {@link #array()} from {@link #size()},
   * after making room for them with {@link #ensureRemaining}.
   */
  public void advance(int bytes) {
    if (bytes < 0 || size + bytes > buffer.length) {
      throw new IndexOutOfBoundsException("advanced past the room made: " + bytes);
    }
    size += bytes;
  }

  private void grow(int needed) {
    if (needed < 0) {
      throw new IllegalStateException("message larger than 2 GiB");
    }
    int capacity = Math.max(needed, buffer.length + (buffer.length >> 1));
    buffer = Arrays.copyOf(buffer, capacity < 0 ? Integer.MAX_VALUE - 8 : capacity);
  }

  public void writeTag(int fieldNumber, int wireType) {
    writeVarint32(WireType.tag(fieldNumber, wireType));
  }

  public void writeVarint32(int value) {
    ensureRemaining(5);
    byte[] b = buffer;
    int p = size;
    while ((value & ~0x7F) != 0) {
      b[p++] = (byte) ((value & 0x7F) | 0x80);
      value >>>= 7;
    }
    b[p++] = (byte) value;
    size = p;
  }

  public void writeVarint64(long value) {
    ensureRemaining(10);
    byte[] b = buffer;
    int p = size;
    while ((value & ~0x7FL) != 0) {
      b[p++] = (byte) ((value & 0x7F) | 0x80);
      value >>>= 7;
    }
    b[p++] = (byte) value;
    size = p;
  }

  public void writeFixed32(int value) {
    ensureRemaining(4);
    INTS.set(buffer, size, value);
    size += 4;
  }

  public void writeFixed64(long value) {
    ensureRemaining(8);
    LONGS.set(buffer, size, value);
    size += 8;
  }

  public void writeBytes(byte[] source, int offset, int length) {
    ensureRemaining(length);
    System.arraycopy(source, offset, buffer, size, length);
    size += length;
  }

  /** Writes a tag and a length prefix; the caller writes {@code length} payload bytes next. */
  public void writeLengthDelimitedHeader(int fieldNumber, int length) {
    writeTag(fieldNumber, WireType.LEN);
    writeVarint32(length);
  }

  /**
   * Starts a length-delimited field whose length is not known yet: writes the tag and keeps one
   * byte for the length. Returns the mark to pass to {@link #endLengthDelimited(int)}.
   */
  public int beginLengthDelimited(int fieldNumber) {
    writeTag(fieldNumber, WireType.LEN);
    ensureRemaining(1);
    int mark = size;
    size++;
    return mark;
  }

  /**
   * Writes the length of the field begun at {@code mark}, moving the payload right when the length
   * needs more than the one byte kept for it. Used where lengths cannot be known ahead (transcoding
   * JSON); the marshaler sizes first instead.
   */
  public void endLengthDelimited(int mark) {
    int payloadStart = mark + 1;
    int length = size - payloadStart;
    int lengthBytes = Varint.size32(length);
    if (lengthBytes > 1) {
      int extra = lengthBytes - 1;
      ensureRemaining(extra);
      System.arraycopy(buffer, payloadStart, buffer, payloadStart + extra, length);
      size += extra;
    }
    int p = mark;
    int value = length;
    while ((value & ~0x7F) != 0) {
      buffer[p++] = (byte) ((value & 0x7F) | 0x80);
      value >>>= 7;
    }
    buffer[p] = (byte) value;
  }
}
