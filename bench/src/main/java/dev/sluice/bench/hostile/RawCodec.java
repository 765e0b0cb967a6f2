package dev.sluice.bench.hostile;

import io.grpc.Codec;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * A gRPC codec that names an encoding ({@code grpc-encoding: gzip}) but passes bytes through: the
 * hostile client compresses (or corrupts) each body itself, so that truncated and corrupt
 * compressed streams reach the server under the encoding they claim.
 */
final class RawCodec implements Codec {
  private final String name;

  RawCodec(String name) {
    this.name = name;
  }

  @Override
  public String getMessageEncoding() {
    return name;
  }

  @Override
  public OutputStream compress(OutputStream os) {
    return os;
  }

  @Override
  public InputStream decompress(InputStream is) {
    return is;
  }
}
