package dev.sluice.receiver.otlp;

import io.grpc.Codec;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * gzip for gRPC messages, as grpc-java's own {@code Codec.Gzip} but reading the gzip header on the
 * first read rather than in {@link #decompress}: grpc-java calls {@code decompress} in its
 * deframer, where an {@link IOException} (a message whose header is not gzip) becomes a
 * RuntimeException that ends the call as UNKNOWN or INTERNAL; read by the request marshaller, the
 * same failure is answered INVALID_ARGUMENT with its reason.
 */
final class LazyGzipCodec implements Codec {
  static final LazyGzipCodec INSTANCE = new LazyGzipCodec();

  /** The inflater's input buffer; messages arrive in grpc-java's buffers, read in pieces. */
  private static final int BUFFER_BYTES = 4096;

  private LazyGzipCodec() {}

  @Override
  public String getMessageEncoding() {
    return "gzip";
  }

  @Override
  public OutputStream compress(OutputStream os) throws IOException {
    return new GZIPOutputStream(os);
  }

  @Override
  public InputStream decompress(InputStream is) {
    return new FilterInputStream(is) {
      private boolean opened;

      private InputStream open() throws IOException {
        if (!opened) {
          opened = true;
          in = new GZIPInputStream(in, BUFFER_BYTES);
        }
        return in;
      }

      @Override
      public int read() throws IOException {
        return open().read();
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        return open().read(b, off, len);
      }

      @Override
      public long skip(long n) throws IOException {
        return open().skip(n);
      }

      @Override
      public int available() throws IOException {
        return open().available();
      }
    };
  }
}
