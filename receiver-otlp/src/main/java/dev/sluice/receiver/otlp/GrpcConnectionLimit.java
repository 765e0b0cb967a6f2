package dev.sluice.receiver.otlp;

import io.grpc.netty.shaded.io.netty.channel.ChannelHandler;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandlerContext;
import io.grpc.netty.shaded.io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Put in front of each new gRPC connection's negotiation handler: takes the connection's place in
 * {@link ConnectionLimit}, or closes it before anything is read when none is left; then stands
 * aside, putting the negotiation handler it wraps in its own place.
 */
final class GrpcConnectionLimit extends ChannelInboundHandlerAdapter {
  private final ConnectionLimit limit;
  private final ChannelHandler negotiation;

  GrpcConnectionLimit(ConnectionLimit limit, ChannelHandler negotiation) {
    this.limit = limit;
    this.negotiation = negotiation;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    if (!limit.tryOpen()) {
      ctx.channel().close();
      return;
    }
    ctx.channel().closeFuture().addListener(closed -> limit.closed());
    ctx.pipeline().replace(this, null, negotiation);
  }
}
