package dev.sluice.receiver.otlp;

import dev.sluice.pdata.Signal;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.EmptyHttpHeaders;
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
 * whether its body is read at all, then counts what is read:
 *
 * <ul>
 *   <li>a request that is no export (another method than {@code POST}, another path, a CORS
 *       preflight) is handed on as a {@link HeadOnlyRequest}: its answer (404, 405, 204) comes from
 *       the headers alone, and a body it declares is dropped as it arrives, neither gathered nor
 *       counted; since that body is not read, the answer closes the connection (a request without a
 *       body keeps it);
 *   <li>an export whose {@code Content-Length} is over {@code max_request_body_size} is answered
 *       413 at once, also instead of {@code 100 Continue};
 *   <li>an export the {@link EdgeAdmission} refuses (pipelines full, or this receiver's bytes in
 *       flight at their bound) is answered 503 with {@code Retry-After} at once, before a byte of
 *       its body is aggregated; a request that asked for {@code 100 Continue} gets the 503 instead,
 *       and so never sends its body;
 *   <li>headers over the codec's limits are answered 431 (header fields) or 414 (request line),
 *       other unparsable heads 400.
 * </ul>
 *
 * <p>Those refusals say {@code Connection: close}, and the connection is closed lingering, as
 * nginx's {@code lingering_close} does: the answer is written, the sending side shut, and whatever
 * the client still sends is read and dropped at once (never held) until it closes or {@link
 * #LINGER_MILLIS} pass. Keeping the connection instead would mean reading the whole refused body
 * (up to {@code max_request_body_size}) only to drop it, which is the cost an overloaded collector
 * refuses in the first place; closing at once, with the body's bytes unread, would have the kernel
 * reset the connection and the client could lose the 503 with its retry delay. The client retries
 * after {@code Retry-After} on a new connection.
 *
 * <p>An export's body counts in {@link InFlightBytes} as it arrives, part by part, never as what
 * its headers declare: a client that declares a large body and sends little of it holds what it
 * sent, whoever else is waiting. The count is given back once the aggregated request has been
 * handled (the handler after the aggregator copies it out on the same call), or when the request is
 * refused or the connection closes. A part that would take the body over {@code
 * max_request_body_size} (a chunked body) gets 413, and a part that would take the total past the
 * bound by more than {@link InFlightBytes#overshootBytes()} gets 503 with {@code Retry-After} where
 * it is; either way the aggregator's part of the body is dropped. So the total never passes the
 * bound plus that overshoot, and what a request holds is what has arrived of it.
 */
final class HttpEdgeGate extends ChannelInboundHandlerAdapter {
  /** How long a refused connection is read and drained before it is closed. */
  static final long LINGER_MILLIS = 2000;

  /**
   * A request handed on without the body it declares, which the gate drops as it arrives: its
   * answer closes the connection lingering ({@link #lingerAndClose}) rather than keeping it.
   */
  static final class HeadOnlyRequest extends DefaultFullHttpRequest {
    HeadOnlyRequest(HttpRequest head) {
      super(
          head.protocolVersion(),
          head.method(),
          head.uri(),
          Unpooled.EMPTY_BUFFER,
          head.headers().copy(),
          EmptyHttpHeaders.INSTANCE);
      headers()
          .remove(HttpHeaderNames.TRANSFER_ENCODING)
          .remove(HttpHeaderNames.EXPECT)
          .setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
    }
  }

  private final OtlpHttpHandler.Routes routes;
  private final EdgeAdmission admission;
  private final InFlightBytes inFlight;
  private Signal signal;
  private String origin;
  private boolean json;

  /** The bytes of the current export's body that have arrived, all counted in {@link #inFlight}. */
  private long countedBytes;

  /** Set once the connection is closing: everything that arrives is dropped. */
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
      if (signal == null && declaresBody(request)) {
        // No export: answered from its head, while its body is dropped unread and uncounted.
        ReferenceCountUtil.release(message);
        discarding = true;
        ctx.fireChannelRead(new HeadOnlyRequest(request));
        return;
      }
      if (signal != null && HttpUtil.getContentLength(request, 0L) > routes.maxBodyBytes) {
        ReferenceCountUtil.release(message);
        refuse(ctx, tooLarge());
        return;
      }
      EdgeAdmission.Refusal refusal = signal == null ? null : admission.atHeaders(signal);
      if (refusal != null) {
        ReferenceCountUtil.release(message);
        refuse(ctx, unavailable(refusal));
        return;
      }
    }
    if (message instanceof HttpContent content && !count(ctx, content)) {
      return;
    }
    ctx.fireChannelRead(message);
    if (message instanceof LastHttpContent) {
      releaseCounted();
    }
  }

  /**
   * Counts a part of an export's body; false, with the part released and the request refused, when
   * it would take the body over {@code max_request_body_size} or the total past its bound.
   */
  private boolean count(ChannelHandlerContext ctx, HttpContent content) {
    int bytes = content.content().readableBytes();
    if (bytes == 0) {
      return true;
    }
    OtlpHttpHandler.Answer refusal = null;
    if (countedBytes + bytes > routes.maxBodyBytes) {
      refusal = tooLarge();
    } else if (!inFlight.tryAdd(bytes)) {
      refusal = unavailable(admission.overshot(signal));
    }
    if (refusal == null) {
      countedBytes += bytes;
      return true;
    }
    ReferenceCountUtil.release(content);
    releaseCounted();
    dropAggregatedPart(ctx);
    refuse(ctx, refusal);
    return false;
  }

  /** Whether a body follows {@code request}'s head: a Content-Length above 0, or chunks. */
  private static boolean declaresBody(HttpRequest request) {
    return HttpUtil.getContentLength(request, 0L) > 0
        || HttpUtil.isTransferEncodingChunked(request);
  }

  private OtlpHttpHandler.Answer tooLarge() {
    OtlpHttpHandler.Answer answer =
        OtlpHttpHandler.Answer.error(
            HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
            RpcStatus.RESOURCE_EXHAUSTED,
            BoundedBodyAggregator.tooLargeMessage(routes.maxBodyBytes),
            json);
    if (routes.cors != null && origin != null) {
      routes.cors.allow(origin, answer.headers);
    }
    return answer;
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

  private void releaseCounted() {
    inFlight.release(countedBytes);
    countedBytes = 0;
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    releaseCounted();
    super.channelInactive(ctx);
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    releaseCounted();
  }
}
