package dev.sluice.receiver.otlp;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

/**
 * Gathers a request body up to {@code max_request_body_size} bytes. A larger body is refused with
 * 413 (as the OTLP specification asks; the OpenTelemetry Collector answers 400 there) and the
 * connection is closed, since the rest of the body is not read.
 */
final class BoundedBodyAggregator extends HttpObjectAggregator {
  BoundedBodyAggregator(long maxBytes) {
    super((int) Math.min(Integer.MAX_VALUE, maxBytes));
  }

  @Override
  protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
    byte[] body =
        RpcStatus.encode(
            RpcStatus.RESOURCE_EXHAUSTED,
            "the request body is larger than max_request_body_size ("
                + maxContentLength()
                + " bytes)",
            0);
    FullHttpResponse response =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1,
            HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
            Unpooled.wrappedBuffer(body));
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, OtlpHttpHandler.PROTOBUF);
    response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
    response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
  }
}
