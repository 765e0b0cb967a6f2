package dev.sluice.receiver.otlp;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;

/**
 * Gathers a request body up to {@code max_request_body_size} bytes. A larger body is refused with
 * 413 (as the OTLP specification asks; the OpenTelemetry Collector answers 400 there) and the
 * connection is closed, since the rest of the body is not read: once the client has sent it (and
 * read the answer) or within {@link HttpEdgeGate#LINGER_MILLIS}. The {@link HttpEdgeGate} before it
 * gives that 413 first, at the headers or at the part that passes the limit, so that it stops
 * counting the body it refuses; the limit here stays as a second line.
 *
 * <p>The same holds for the answers given at the headers instead of {@code 100 Continue}: 413 for a
 * declared body over the limit, 417 for an expectation other than {@code 100-continue}. Netty's
 * aggregator would keep the connection open after them, with its HTTP decoder reset to read the
 * next request where the refused body was; a client that sends the body anyway would then have it
 * parsed as requests. So those answers say {@code Connection: close} and the connection is closed
 * once they are written.
 */
final class BoundedBodyAggregator extends HttpObjectAggregator {
  /** Close the connection after an answer refusing an {@code Expect} header (Netty's option). */
  private static final boolean CLOSE_ON_EXPECTATION_FAILED = true;

  BoundedBodyAggregator(long maxBytes) {
    super((int) Math.min(Integer.MAX_VALUE, maxBytes), CLOSE_ON_EXPECTATION_FAILED);
  }

  @Override
  protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
    // The aggregator drops the rest of this body itself while the client still sends it.
    HttpEdgeGate.lingerAndClose(ctx, ctx.writeAndFlush(tooLarge()));
  }

  @Override
  protected Object newContinueResponse(
      HttpMessage start, int maxContentLength, ChannelPipeline pipeline) {
    Object answer = super.newContinueResponse(start, maxContentLength, pipeline);
    if (!(answer instanceof HttpResponse response)
        || response.status().codeClass() != HttpStatusClass.CLIENT_ERROR) {
      return answer;
    }
    // A refusal: ours, with the reason and Connection: close, instead of Netty's empty one.
    HttpResponseStatus status = response.status();
    ReferenceCountUtil.release(answer);
    if (HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE.equals(status)) {
      return tooLarge();
    }
    return refusal(
        status,
        RpcStatus.INVALID_ARGUMENT,
        "unsupported expectation \""
            + BodyDecoder.quoted(start.headers().get(HttpHeaderNames.EXPECT, ""))
            + "\", only 100-continue is");
  }

  private FullHttpResponse tooLarge() {
    return refusal(
        HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
        RpcStatus.RESOURCE_EXHAUSTED,
        tooLargeMessage(maxContentLength()));
  }

  /** The message of a 413 for a body over {@code maxBytes}. */
  static String tooLargeMessage(long maxBytes) {
    return "the request body is larger than max_request_body_size (" + maxBytes + " bytes)";
  }

  private static FullHttpResponse refusal(HttpResponseStatus status, int code, String message) {
    byte[] body = RpcStatus.encode(code, message, 0);
    FullHttpResponse response =
        new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, OtlpHttpHandler.PROTOBUF);
    response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
    response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    return response;
  }
}
