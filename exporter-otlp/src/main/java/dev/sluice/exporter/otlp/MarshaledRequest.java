package dev.sluice.exporter.otlp;

import dev.sluice.core.otlp.Batch;
import dev.sluice.core.otlp.MarshalContext;
import dev.sluice.core.otlp.OtlpMarshaler;
import io.grpc.Drainable;
import io.grpc.KnownLength;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * A batch handed to grpc-java as a {@link Drainable}, {@link KnownLength} stream that marshals
 * itself into grpc-java's frames (or its compressor) when drained: the spans go from the requests'
 * arrays straight into the frames, with no copy of the whole batch in between and no array of its
 * size kept by the sending thread.
 *
 * <p>grpc-java drains the stream inside {@code sendMessage}, on the sending thread, which then uses
 * its own context. Should it drain it on another thread (a call still waiting for its connection
 * can be written by the transport's thread), the stream marshals with a context of its own, since
 * the sending thread's may be marshaling its next batch by then. The batch's bytes never change, so
 * reading them late is safe. The channel's own retries are off, so nothing reads it twice.
 */
final class MarshaledRequest {
  private final Batch batch;
  private final MarshalContext context;
  private final Thread owner;
  private final int size;

  /**
   * @param context the sending thread's context, just used to {@link OtlpMarshaler#size} the batch
   */
  MarshaledRequest(Batch batch, MarshalContext context, int size) {
    this.batch = batch;
    this.context = context;
    this.owner = Thread.currentThread();
    this.size = size;
  }

  InputStream stream() {
    return new Stream();
  }

  private final class Stream extends InputStream implements Drainable, KnownLength {
    private boolean drained;

    /** Only for a reader that does not drain: the whole batch marshaled into an array. */
    private byte[] copy;

    private int position;

    @Override
    public int drainTo(OutputStream target) throws IOException {
      if (drained || copy != null) {
        throw new IllegalStateException("the request was already read");
      }
      drained = true;
      MarshalContext marshaling = Thread.currentThread() == owner ? context : new MarshalContext();
      return OtlpMarshaler.writeTo(batch, marshaling, target);
    }

    @Override
    public int available() {
      return drained ? 0 : copy == null ? size : copy.length - position;
    }

    @Override
    public int read() {
      byte[] bytes = copy();
      return position < bytes.length ? bytes[position++] & 0xFF : -1;
    }

    @Override
    public int read(byte[] target, int offset, int count) {
      byte[] bytes = copy();
      if (position >= bytes.length) {
        return -1;
      }
      int n = Math.min(count, bytes.length - position);
      System.arraycopy(bytes, position, target, offset, n);
      position += n;
      return n;
    }

    private byte[] copy() {
      if (drained) {
        throw new IllegalStateException("the request was already drained");
      }
      if (copy == null) {
        copy = OtlpMarshaler.toByteArray(batch);
      }
      return copy;
    }
  }
}
