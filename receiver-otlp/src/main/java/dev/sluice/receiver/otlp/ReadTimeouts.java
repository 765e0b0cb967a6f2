package dev.sluice.receiver.otlp;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The read timeouts of one HTTP connection, with the meanings Go's {@code net/http} server (and so
 * the OpenTelemetry Collector's {@code confighttp}) gives their keys, against slow clients
 * (slowloris) that would hold a connection, and the buffers of its request, for as long as they
 * like:
 *
 * <ul>
 *   <li>{@code read_header_timeout}: a request's headers must be complete this long after its first
 *       byte (for a connection's first request, after the accept, so that it also bounds a TLS
 *       handshake and a connection that sends nothing);
 *   <li>{@code read_timeout}: the whole request, headers and body, this long after its first byte;
 *   <li>{@code idle_timeout}: a kept-alive connection waits this long for its next request.
 * </ul>
 *
 * A request that runs out of time is answered 408 with {@code Connection: close} and its connection
 * closed; a connection with no request begun (idle, or no byte since the accept) is closed without
 * an answer, as Go's server does. No timer runs while a request is being answered.
 *
 * <p>Two handlers on one connection's event loop: this one after the HTTP codec, which sees where
 * requests and answers end, and {@link #requestStart()} before it, which sees a request's first
 * byte. One timer at a time per connection, rescheduled only when a deadline comes earlier than it.
 */
final class ReadTimeouts extends ChannelDuplexHandler {
  private enum State {
    HEADERS,
    BODY,
    ANSWERING,
    IDLE
  }

  private static final long NONE = 0;

  private final long readNanos;
  private final long readHeaderNanos;
  private final long idleNanos;
  private ChannelHandlerContext ctx;
  private State state = State.HEADERS;
  private long startNanos;
  private boolean requestBytesSeen;
  private ScheduledFuture<?> timer;
  private long timerAtNanos;

  ReadTimeouts(HttpServerConfig config) {
    this.readNanos = config.readTimeout().toNanos();
    this.readHeaderNanos = config.effectiveReadHeaderTimeout().toNanos();
    this.idleNanos = config.effectiveIdleTimeout().toNanos();
  }

  /** The handler to put before the HTTP codec, which tells this one of a request's first byte. */
  ChannelHandler requestStart() {
    return new ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object message) {
        if (state == State.IDLE) {
          state = State.HEADERS;
          startNanos = System.nanoTime();
          arm();
        }
        requestBytesSeen = true;
        ctx.fireChannelRead(message);
      }
    };
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    startNanos = System.nanoTime();
    arm();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object message) throws Exception {
    if (message instanceof LastHttpContent) {
      state = State.ANSWERING;
    } else if (message instanceof HttpRequest && state == State.HEADERS) {
      state = State.BODY;
      arm();
    }
    super.channelRead(ctx, message);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object message, ChannelPromise promise)
      throws Exception {
    boolean ends = RequestTracker.endsAnswer(message);
    super.write(ctx, message, promise);
    if (ends && state == State.ANSWERING) {
      state = State.IDLE;
      requestBytesSeen = false;
      startNanos = System.nanoTime();
      arm();
    }
  }

  /** When the current state runs out, or {@link #NONE}. */
  private long deadlineNanos() {
    switch (state) {
      case HEADERS:
        return earliest(after(readHeaderNanos), after(readNanos));
      case BODY:
        return after(readNanos);
      case IDLE:
        return after(idleNanos);
      default:
        return NONE;
    }
  }

  private long after(long timeoutNanos) {
    if (timeoutNanos <= 0) {
      return NONE;
    }
    long deadline = startNanos + timeoutNanos;
    return deadline == NONE ? 1 : deadline;
  }

  private static long earliest(long a, long b) {
    if (a == NONE) {
      return b;
    }
    if (b == NONE) {
      return a;
    }
    return a - b < 0 ? a : b;
  }

  /** Makes sure the timer fires no later than the current deadline. */
  private void arm() {
    long deadline = deadlineNanos();
    if (deadline == NONE || (timer != null && timerAtNanos - deadline <= 0)) {
      return;
    }
    if (timer != null) {
      timer.cancel(false);
    }
    timerAtNanos = deadline;
    timer = ctx.executor().schedule(this::fire, deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
  }

  private void fire() {
    timer = null;
    long deadline = deadlineNanos();
    if (deadline == NONE || !ctx.channel().isActive()) {
      return;
    }
    if (System.nanoTime() - deadline < 0) {
      arm();
      return;
    }
    if (state == State.IDLE || (state == State.HEADERS && !requestBytesSeen)) {
      ctx.close();
      return;
    }
    String which = state == State.HEADERS ? "read_header_timeout" : "read_timeout";
    state = State.ANSWERING;
    OtlpHttpHandler.Answer answer =
        OtlpHttpHandler.Answer.error(
            HttpResponseStatus.REQUEST_TIMEOUT,
            RpcStatus.DEADLINE_EXCEEDED,
            "the request did not arrive within " + which,
            false);
    ctx.writeAndFlush(OtlpHttpHandler.response(answer, false))
        .addListener(ChannelFutureListener.CLOSE);
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    handlerRemoved(ctx);
    super.channelInactive(ctx);
  }
}
