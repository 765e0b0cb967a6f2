package dev.sluice.exporter.otlp;

import io.grpc.Drainable;
import io.grpc.KnownLength;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * A request marshaled into a sending thread's reusable buffer, handed to grpc-java as a {@link
 * Drainable}, {@link KnownLength} stream: grpc-java copies it straight into its frames (and its
 * compressor) without falling back to {@code read()}.
 *
 * <p>The buffer belongs to the sending thread's context; grpc-java drains the stream inside {@code
 * sendMessage}, before that thread marshals the next batch. The channel's own retries are off, so
 * it never reads the message again later.
 */
final class MarshaledRequest {
  private final byte[] buffer;
  private final int length;

  MarshaledRequest(byte[] buffer, int length) {
    this.buffer = buffer;
    this.length = length;
  }

  InputStream stream() {
    return new Stream(buffer, length);
  }

  private static final class Stream extends InputStream implements Drainable, KnownLength {
    private final byte[] buffer;
    private final int length;
    private int position;

    Stream(byte[] buffer, int length) {
      this.buffer = buffer;
      this.length = length;
    }

    @Override
    public int drainTo(OutputStream target) throws java.io.IOException {
      int count = length - position;
      target.write(buffer, position, count);
      position = length;
      return count;
    }

    @Override
    public int available() {
      return length - position;
    }

    @Override
    public int read() {
      return position < length ? buffer[position++] & 0xFF : -1;
    }

    @Override
    public int read(byte[] target, int offset, int count) {
      if (position >= length) {
        return -1;
      }
      int n = Math.min(count, length - position);
      System.arraycopy(buffer, position, target, offset, n);
      position += n;
      return n;
    }
  }
}
