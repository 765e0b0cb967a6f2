package dev.sluice.receiver.otlp;

import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandler;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandlerContext;
import io.grpc.netty.shaded.io.netty.channel.ChannelInboundHandlerAdapter;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2Error;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2Stream;

/**
 * Resets with {@code NO_ERROR} each stream of the connection whose call the server has closed (its
 * trailers sent) while the client is still sending the request: a refusal at the headers, a message
 * over {@code max_recv_msg_size_mib} refused at its length prefix, bytes in flight over their
 * bound. HTTP/2 (RFC 9113, section 8.1) has the server do so when it answers before the request is
 * whole, and grpc-go does; grpc-java does not, and its client, once it has half-closed the call,
 * does not reset it either but waits for flow-control window to send the rest, which the server
 * never gives back for a call it has closed. Without the reset such a stream stays open on both
 * sides for as long as the connection lives, counting against {@code max_concurrent_streams}: after
 * that many refused messages larger than the flow-control window, every new call on the connection
 * waits for a stream forever.
 *
 * <p>Put in front of the connection's negotiation handler, it registers its listener with the
 * connection's HTTP/2 handler, then puts the negotiation handler in its own place. The reset is
 * written after the trailers (in a task run after the one that wrote them), so the client has its
 * answer first; a grpc-java client then ignores the reset, since its call is already closed.
 */
final class GrpcAnsweredStreamReset extends ChannelInboundHandlerAdapter {
  private final Http2ConnectionHandler http2;
  private final ChannelHandler negotiation;

  GrpcAnsweredStreamReset(Http2ConnectionHandler http2, ChannelHandler negotiation) {
    this.http2 = http2;
    this.negotiation = negotiation;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    Channel channel = ctx.channel();
    http2
        .connection()
        .addListener(
            new Http2ConnectionAdapter() {
              @Override
              public void onStreamHalfClosed(Http2Stream stream) {
                // HALF_CLOSED_LOCAL: the server's side ended first, the client's is still open.
                if (stream.state() == Http2Stream.State.HALF_CLOSED_LOCAL) {
                  int streamId = stream.id();
                  channel.eventLoop().execute(() -> reset(channel, streamId));
                }
              }
            });
    ctx.pipeline().replace(this, null, negotiation);
  }

  /** Resets the stream if the client has not ended its side in the meantime. */
  private void reset(Channel channel, int streamId) {
    Http2Stream stream = http2.connection().stream(streamId);
    ChannelHandlerContext context = channel.pipeline().context(http2);
    if (stream == null
        || stream.state() != Http2Stream.State.HALF_CLOSED_LOCAL
        || context == null) {
      return;
    }
    http2.resetStream(context, streamId, Http2Error.NO_ERROR.code(), context.newPromise());
    context.flush();
  }
}
