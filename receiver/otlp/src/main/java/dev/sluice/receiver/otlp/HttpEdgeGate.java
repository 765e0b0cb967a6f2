package dev.sluice.receiver.otlp;

import dev.sluice.pdata.otlp.Signal;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import java.util.concurrent.TimeUnit;

/**
 * Stands before the body aggregator of one HTTP connection and decides at each request's headers
 * whether its body is read at all:
 *
 * <ul>
 *   <li>an export the {@link EdgeAdmission} refuses (pipelines full, or this receiver's bytes in
 *       flight at their bound) is answered 503 with {@code Retry-After} at once, before a byte of
 *       its body is aggregated; a request that asked for {@code 100 Continue} gets the 503 instead,
 *       and so never sends its body;
 *   <li>headers over the codec's limits are answered 431 (header fields) or 414 (request line),
 *       other unparsable heads 400.
 * </ul>
 *
 * <p>Those answers say {@code Connection: close}, and the connection is closed lingering, as
 * nginx's {@code lingering_close} does: the answer is written, the sending side shut, and whatever
 * the client still sends is read and dropped at once (never held) until it closes or {@link
 * #LINGER_MILLIS} pass. Keeping the connection instead would mean reading the whole refused body
 * (up to {@code max_request_body_size}) only to drop it, which is the cost an overloaded collector
 * refuses in the first place; closing at once, with the body's bytes unread, would have the kernel
 * reset the connection and the client could lose the 503 with its retry delay. The client retries
 * after {@code Retry-After} on a new connection.
 *
 * <p>It also counts the body bytes of each request in {@link InFlightBytes} from the headers until
 * the aggregated request has been handled (the handler after the aggregator copies it out on the
 * same call), or the connection closes: as its {@code Content-Length} (capped at {@code
 * max_request_body_size}) from the headers on, so that the next request's check sees what is still
 * to come, or as what has arrived when that is more (a chunked body). A body that brings more than
 * it declared while the total is past the bound by more than {@link InFlightBytes#overshootBytes()}
 * is refused with 503 where it is, and the aggregator's part of it dropped, so the total stays
 * bounded whatever the requests being read bring.
 */
final class HttpEdgeGate extends ChannelInboundHandlerAdapter {
  /** How long a refused connection is read and drained before it is closed. */
  static final long LINGER_MILLIS = 2000;

  private final OtlpHttpHandler.Routes routes;
  private final EdgeAdmission admission;
  private final InFlightBytes inFlight;
  private Signal signal;
  private String origin;
  private boolean json;
  private long receivedBytes;
  private long reservedBytes;
  private long countedBytes;
  private boolean discarding;

  HttpEdgeGate(OtlpHttpHandler.Routes routes, EdgeAdmission admission) {
    this.routes = routes;
    this.admission = admission;
    this.inFlight = admission.inFlight();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object message) {
    if (discarding) {
      ReferenceCountUtil.release(message);
      return;
    }
    if (message instanceof HttpRequest request) {
      DecoderResult decoded = request.decoderResult();
      if (decoded.isFailure()) {
        ReferenceCountUtil.release(message);
        refuse(ctx, unparsable(decoded.cause()));
        return;
      }
      origin = request.headers().get(HttpHeaderNames.ORIGIN);
      json =
          OtlpHttpHandler.JSON.equals(
              OtlpHttpHandler.mediaType(request.headers().get(HttpHeaderNames.CONTENT_TYPE)));
      signal =
          HttpMethod.POST.equals(request.method())
              ? routes.paths.get(new QueryStringDecoder(request.uri()).path())
              : null;
      EdgeAdmission.Refusal refusal = signal == null ? null : admission.atHeaders(signal);
      if (refusal != null) {
        ReferenceCountUtil.release(message);
        refuse(ctx, unavailable(refusal));
        return;
      }
      reservedBytes =
          Math.min(routes.maxBodyBytes, Math.max(0, HttpUtil.getContentLength(request, 0L)));
      recount();
    }
    if (message instanceof HttpContent content) {
      int bytes = content.content().readableBytes();
      if (bytes > 0) {
        receivedBytes += bytes;
        recount();
        if (receivedBytes > reservedBytes && inFlight.overshot()) {
          ReferenceCountUtil.release(message);
          releasePending();
          dropAggregatedPart(ctx);
          refuse(ctx, unavailable(admission.overshot(signal)));
          return;
        }
      }
    }
    ctx.fireChannelRead(message);
    if (message instanceof LastHttpContent) {
      releasePending();
    }
  }

  private OtlpHttpHandler.Answer unavailable(EdgeAdmission.Refusal refusal) {
    OtlpHttpHandler.Answer answer =
        OtlpHttpHandler.Answer.unavailable(refusal.message(), refusal.retryDelayMillis(), json);
    if (routes.cors != null && origin != null) {
      routes.cors.allow(origin, answer.headers);
    }
    return answer;
  }

  private static OtlpHttpHandler.Answer unparsable(Throwable cause) {
    if (cause instanceof TooLongHttpHeaderException) {
      return OtlpHttpHandler.Answer.error(
          HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE,
          RpcStatus.RESOURCE_EXHAUSTED,
          "the request's header fields are larger than " + HttpServer.MAX_HEADER_BYTES + " bytes",
          false);
    }
    if (cause instanceof TooLongHttpLineException) {
      return OtlpHttpHandler.Answer.error(
          HttpResponseStatus.REQUEST_URI_TOO_LONG,
          RpcStatus.RESOURCE_EXHAUSTED,
          "the request line is longer than " + HttpServer.MAX_INITIAL_LINE_BYTES + " bytes",
          false);
    }
    return OtlpHttpHandler.Answer.error(
        HttpResponseStatus.BAD_REQUEST,
        RpcStatus.INVALID_ARGUMENT,
        "cannot parse the request: " + cause.getMessage(),
        false);
  }

  /** Answers, then drains and closes the connection as the class comment says. */
  private void refuse(ChannelHandlerContext ctx, OtlpHttpHandler.Answer answer) {
    discarding = true;
    lingerAndClose(ctx, ctx.writeAndFlush(OtlpHttpHandler.response(answer, false)));
  }

  /**
   * Once {@code written} is out, shuts the connection's output and closes it when the client does,
   * or after {@link #LINGER_MILLIS}: closing at once while the client still sends its body would
   * reset the connection, and the client would lose the answer. What arrives meanwhile must be
   * dropped by the caller.
   */
  static void lingerAndClose(ChannelHandlerContext ctx, ChannelFuture written) {
    written.addListener(
        done -> {
          if (done.isSuccess() && ctx.channel() instanceof DuplexChannel duplex) {
            duplex.shutdownOutput();
          } else {
            ctx.close();
          }
        });
    ctx.executor().schedule(() -> ctx.close(), LINGER_MILLIS, TimeUnit.MILLISECONDS);
  }

  /** Has the aggregator after this handler let go of the body it has gathered so far. */
  private static void dropAggregatedPart(ChannelHandlerContext ctx) {
    ChannelHandler aggregator = ctx.pipeline().get(BoundedBodyAggregator.class);
    if (aggregator != null) {
      ctx.pipeline().remove(aggregator);
    }
  }

  /** Counts the larger of what the request declared and what has arrived. */
  private void recount() {
    long target = Math.max(receivedBytes, reservedBytes);
    inFlight.add(target - countedBytes);
    countedBytes = target;
  }

  private void releasePending() {
    inFlight.release(countedBytes);
    countedBytes = 0;
    receivedBytes = 0;
    reservedBytes = 0;
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    releasePending();
    super.channelInactive(ctx);
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    releasePending();
  }
}
