package dev.sluice.receiver.otlp;

import io.grpc.netty.shaded.io.netty.buffer.Unpooled;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2Exception;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2Headers;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * An HTTP/2 client written frame by frame over a plain socket, for tests that must do what a
 * well-behaved client library never does: stop in the middle of a frame or a message, open more
 * streams than allowed, send headers over the advertised limit. Header blocks are HPACK literals
 * without indexing or Huffman coding; answers are decoded with Netty's HPACK decoder.
 */
final class RawHttp2 implements AutoCloseable {
  static final int DATA = 0;
  static final int HEADERS = 1;
  static final int RST_STREAM = 3;
  static final int SETTINGS = 4;
  static final int PING = 6;
  static final int GOAWAY = 7;
  static final int WINDOW_UPDATE = 8;
  static final int CONTINUATION = 9;
  static final int END_STREAM = 0x1;
  static final int END_HEADERS = 0x4;
  static final int ACK = 0x1;
  static final int MAX_FRAME_BYTES = 16384;

  static final byte[] PREFACE =
      "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

  /** One frame read. */
  record Frame(int type, int flags, int streamId, byte[] payload) {}

  final Socket socket;
  private final OutputStream out;
  private final DataInputStream in;
  private final DefaultHttp2HeadersDecoder decoder = new DefaultHttp2HeadersDecoder(false);
  private int pings;

  RawHttp2(int port) throws IOException {
    socket = new Socket("127.0.0.1", port);
    socket.setSoTimeout(10_000);
    out = socket.getOutputStream();
    in = new DataInputStream(socket.getInputStream());
  }

  /** Sends the preface and empty SETTINGS, and acknowledges the server's SETTINGS. */
  RawHttp2 handshake() throws IOException {
    out.write(PREFACE);
    frame(SETTINGS, 0, 0, new byte[0]);
    while (true) {
      Frame frame = read();
      if (frame.type() == SETTINGS && (frame.flags() & ACK) == 0) {
        frame(SETTINGS, ACK, 0, new byte[0]);
        return this;
      }
    }
  }

  /**
   * A gRPC call's HEADERS for the traces Export, with extra headers as name/value pairs; a block
   * larger than a frame goes on in CONTINUATION frames.
   */
  void exportHeaders(int streamId, String... extra) throws IOException {
    byte[] block = exportHeaderBlock(extra);
    int type = HEADERS;
    for (int offset = 0; ; offset += MAX_FRAME_BYTES) {
      int length = Math.min(MAX_FRAME_BYTES, block.length - offset);
      boolean last = offset + length == block.length;
      frameHeader(length, type, last ? END_HEADERS : 0, streamId);
      out.write(block, offset, length);
      if (last) {
        out.flush();
        return;
      }
      type = CONTINUATION;
    }
  }

  static byte[] exportHeaderBlock(String... extra) {
    ByteArrayOutputStream block = new ByteArrayOutputStream();
    literal(block, ":method", "POST");
    literal(block, ":scheme", "http");
    literal(block, ":path", "/opentelemetry.proto.collector.trace.v1.TraceService/Export");
    literal(block, ":authority", "localhost");
    literal(block, "content-type", "application/grpc");
    literal(block, "te", "trailers");
    for (int i = 0; i < extra.length; i += 2) {
      literal(block, extra[i], extra[i + 1]);
    }
    return block.toByteArray();
  }

  /**
   * Starts a gRPC message declaring {@code declaredBytes} and sends {@code sentBytes} of it, in
   * DATA frames, without ending the stream.
   */
  void partialMessage(int streamId, int declaredBytes, int sentBytes) throws IOException {
    byte[] prefix = {
      0,
      (byte) (declaredBytes >>> 24),
      (byte) (declaredBytes >>> 16),
      (byte) (declaredBytes >>> 8),
      (byte) declaredBytes
    };
    frame(DATA, 0, streamId, prefix);
    byte[] chunk = new byte[MAX_FRAME_BYTES];
    for (int sent = 0; sent < sentBytes; sent += chunk.length) {
      int length = Math.min(chunk.length, sentBytes - sent);
      frame(DATA, 0, streamId, length == chunk.length ? chunk : new byte[length]);
    }
    out.flush();
  }

  void frame(int type, int flags, int streamId, byte[] payload) throws IOException {
    frameHeader(payload.length, type, flags, streamId);
    out.write(payload);
    out.flush();
  }

  void frameHeader(int length, int type, int flags, int streamId) throws IOException {
    out.write(
        new byte[] {
          (byte) (length >>> 16),
          (byte) (length >>> 8),
          (byte) length,
          (byte) type,
          (byte) flags,
          (byte) (streamId >>> 24),
          (byte) (streamId >>> 16),
          (byte) (streamId >>> 8),
          (byte) streamId
        });
  }

  void writeRaw(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  /** The next frame; EOFException when the server has closed the connection. */
  Frame read() throws IOException {
    int length = in.readUnsignedByte() << 16 | in.readUnsignedByte() << 8 | in.readUnsignedByte();
    int type = in.readUnsignedByte();
    int flags = in.readUnsignedByte();
    int streamId = in.readInt() & Integer.MAX_VALUE;
    byte[] payload = new byte[length];
    in.readFully(payload);
    return new Frame(type, flags, streamId, payload);
  }

  /** The next frame on the stream other than WINDOW_UPDATE, skipping connection-level ones. */
  Frame readOn(int streamId) throws IOException {
    while (true) {
      Frame frame = read();
      if (frame.streamId() == streamId && frame.type() != WINDOW_UPDATE) {
        return frame;
      }
    }
  }

  /**
   * Sends a PING and reads until the server acknowledges it, returning the frames read before. The
   * server handles a connection's frames in order, starting calls and taking their DATA as it goes,
   * so when the acknowledgement comes it has handled every frame sent before the PING.
   */
  List<Frame> roundTrip() throws IOException {
    byte[] payload = {'s', 'l', 'u', 'i', 'c', 'e', 0, (byte) ++pings};
    frame(PING, 0, 0, payload);
    List<Frame> before = new ArrayList<>();
    while (true) {
      Frame frame = read();
      if (frame.type() == PING
          && (frame.flags() & ACK) != 0
          && java.util.Arrays.equals(frame.payload(), payload)) {
        return before;
      }
      before.add(frame);
    }
  }

  /** Reads until the server closes the connection; true if a GOAWAY came first. */
  boolean readUntilClosed() throws IOException {
    boolean goAway = false;
    try {
      while (true) {
        goAway |= read().type() == GOAWAY;
      }
    } catch (EOFException | java.net.SocketException closed) {
      return goAway;
    }
  }

  Http2Headers decode(Frame headers) throws Http2Exception {
    return decoder.decodeHeaders(headers.streamId(), Unpooled.wrappedBuffer(headers.payload()));
  }

  static int errorCode(Frame rstStream) {
    byte[] p = rstStream.payload();
    return (p[0] & 0xff) << 24 | (p[1] & 0xff) << 16 | (p[2] & 0xff) << 8 | (p[3] & 0xff);
  }

  private static void literal(ByteArrayOutputStream block, String name, String value) {
    block.write(0);
    string(block, name.getBytes(StandardCharsets.US_ASCII));
    string(block, value.getBytes(StandardCharsets.US_ASCII));
  }

  /** An HPACK string literal: a 7-bit-prefix length, no Huffman coding. */
  private static void string(ByteArrayOutputStream block, byte[] bytes) {
    int length = bytes.length;
    if (length < 127) {
      block.write(length);
    } else {
      block.write(127);
      length -= 127;
      while (length >= 128) {
        block.write((length & 0x7f) | 0x80);
        length >>>= 7;
      }
      block.write(length);
    }
    block.write(bytes, 0, bytes.length);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
