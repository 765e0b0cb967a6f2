package dev.sluice.receiver.otlp;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * Knows whether its connection is between requests, so that a stopping server can close the idle
 * connections at once and let each busy one finish the request it is reading or answering (whose
 * answer then says {@code Connection: close}), as HTTP servers stop gracefully. One per connection,
 * on its event loop; placed after the HTTP codec, so that it sees every request's head and every
 * final answer, including the body aggregator's 413.
 */
final class RequestTracker extends ChannelDuplexHandler {
  /** The user event that asks a connection to close as soon as it is idle. */
  static final Object DRAIN = new Object();

  private boolean busy;
  private boolean draining;

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object message) throws Exception {
    if (message instanceof HttpRequest) {
      busy = true;
    }
    super.channelRead(ctx, message);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object message, ChannelPromise promise)
      throws Exception {
    boolean ends = endsAnswer(message);
    super.write(ctx, message, promise);
    if (ends) {
      busy = false;
      if (draining) {
        // The answer said Connection: close; close once it is written, whoever wrote it.
        promise.addListener(written -> ctx.close());
      }
    }
  }

  /**
   * Whether writing {@code message} ends the answer to a request: its last content, unless that is
   * a whole interim (1xx) answer such as {@code 100 Continue}, after which the final one follows.
   */
  static boolean endsAnswer(Object message) {
    return message instanceof LastHttpContent
        && !(message instanceof HttpResponse response
            && response.status().codeClass() == HttpStatusClass.INFORMATIONAL);
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
    if (event == DRAIN) {
      draining = true;
      if (!busy) {
        ctx.close();
      }
      return;
    }
    super.userEventTriggered(ctx, event);
  }
}
