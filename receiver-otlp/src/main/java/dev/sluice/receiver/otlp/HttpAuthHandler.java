package dev.sluice.receiver.otlp;

import dev.sluice.component.AuthOutcome;
import dev.sluice.component.ServerAuthenticator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;

/**
 * Checks each request's headers with the server's authenticator as soon as the head arrives, before
 * the admission gate and the body aggregator: a refused request is answered 401 with {@code
 * WWW-Authenticate} at once, whatever method, path or body it has, and its body is never gathered
 * nor counted. The connection is then closed lingering ({@link HttpEdgeGate#lingerAndClose}), since
 * the client may never send that body: whatever still arrives is dropped. A request the
 * authenticator cannot check now is answered the same way, but 503 with {@code Retry-After} and
 * without a challenge, so that the client retries it unchanged.
 *
 * <p>CORS preflights ({@link Cors#isPreflight}: {@code OPTIONS} with {@code
 * Access-Control-Request-Method}) pass unchecked when CORS is configured: browsers send them
 * without credentials, and the OpenTelemetry Collector answers them before authentication too. They
 * carry no data: the gate answers them without reading a body. Every other request, {@code OPTIONS}
 * included, needs credentials. One per connection, on its event loop.
 */
final class HttpAuthHandler extends ChannelInboundHandlerAdapter {
  private final ServerAuthenticator authenticator;
  private final ReceiverAuth.Refusals refusals;
  private final Cors cors;

  /**
   * Makes each connection's handler; shared by the server. {@code cors} (null when CORS is off)
   * lets preflights through and puts its headers on refusals, so that a browser can read them.
   */
  record Factory(ServerAuthenticator authenticator, ReceiverAuth.Refusals refusals, Cors cors) {
    HttpAuthHandler newHandler() {
      return new HttpAuthHandler(authenticator, refusals, cors);
    }
  }

  /**
   * Set once a request is refused: everything that arrives until the connection closes is dropped.
   */
  private boolean discarding;

  HttpAuthHandler(ServerAuthenticator authenticator, ReceiverAuth.Refusals refusals, Cors cors) {
    this.authenticator = authenticator;
    this.refusals = refusals;
    this.cors = cors;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object message) {
    if (discarding) {
      ReferenceCountUtil.release(message);
      return;
    }
    if (message instanceof HttpRequest request) {
      HttpHeaders headers = request.headers();
      boolean preflight = cors != null && Cors.isPreflight(request);
      AuthOutcome outcome = preflight ? AuthOutcome.ACCEPTED : authenticator.check(headers::get);
      if (outcome == AuthOutcome.ACCEPTED) {
        ctx.fireChannelRead(message);
        return;
      }
      boolean later = outcome == AuthOutcome.TRY_LATER;
      if (later) {
        refusals.countDeferred();
      } else {
        refusals.unauthenticated().increment();
      }
      discarding = true;
      ReferenceCountUtil.release(message);
      refuse(
          ctx,
          later,
          OtlpHttpHandler.mediaType(headers.get(HttpHeaderNames.CONTENT_TYPE)),
          headers.get(HttpHeaderNames.ORIGIN));
      return;
    }
    ctx.fireChannelRead(message);
  }

  private void refuse(ChannelHandlerContext ctx, boolean later, String contentType, String origin) {
    boolean json = OtlpHttpHandler.JSON.equals(contentType);
    OtlpHttpHandler.Answer answer =
        later
            ? OtlpHttpHandler.Answer.unavailable(
                authenticator.tryLater(), ReceiverAuth.RETRY_DELAY_MILLIS, json)
            : OtlpHttpHandler.Answer.error(
                HttpResponseStatus.UNAUTHORIZED,
                RpcStatus.UNAUTHENTICATED,
                authenticator.refusal(),
                json);
    if (cors != null && origin != null) {
      cors.allow(origin, answer.headers);
    }
    FullHttpResponse response =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1, answer.status, Unpooled.wrappedBuffer(answer.body));
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, answer.contentType);
    answer.headers.forEach(response.headers()::set);
    if (!later) {
      response.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, authenticator.challenge());
    }
    response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, answer.body.length);
    // The body is not read, so the connection cannot carry another request.
    response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    HttpEdgeGate.lingerAndClose(ctx, ctx.writeAndFlush(response));
  }
}
