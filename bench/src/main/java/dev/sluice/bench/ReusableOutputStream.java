package dev.sluice.bench;

import java.io.OutputStream;
import java.util.Arrays;

/**
 * An unsynchronized, growable byte sink kept between messages: after warm-up, writing to it
 * allocates nothing, so allocation measured around it belongs to the writer.
 */
public final class ReusableOutputStream extends OutputStream {
  private byte[] buffer;
  private int size;

  public ReusableOutputStream(int initialCapacity) {
    buffer = new byte[Math.max(16, initialCapacity)];
  }

  public void reset() {
    size = 0;
  }

  public int size() {
    return size;
  }

  public byte[] toByteArray() {
    return Arrays.copyOf(buffer, size);
  }

  @Override
  public void write(int b) {
    ensure(1);
    buffer[size++] = (byte) b;
  }

  @Override
  public void write(byte[] b, int off, int len) {
    ensure(len);
    System.arraycopy(b, off, buffer, size, len);
    size += len;
  }

  private void ensure(int extra) {
    if (size + extra > buffer.length) {
      buffer = Arrays.copyOf(buffer, Math.max(size + extra, buffer.length * 2));
    }
  }
}
