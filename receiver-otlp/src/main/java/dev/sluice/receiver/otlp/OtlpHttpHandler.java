package dev.sluice.receiver.otlp;

import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.RequestMetadata;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.ByteArrays;
import dev.sluice.pdata.codec.OtlpJsonDecoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Answers OTLP/HTTP requests: {@code POST} of {@code application/x-protobuf} or {@code
 * application/json} to the signal paths, with the status codes of the OTLP specification. Every
 * error answer carries a {@code google.rpc.Status} in the request's content type.
 */
final class OtlpHttpHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
  static final String PROTOBUF = "application/x-protobuf";
  static final String JSON = "application/json";

  private static final ThreadLocal<OtlpJsonDecoder> JSON_DECODERS =
      ThreadLocal.withInitial(OtlpJsonDecoder::new);

  /** What every connection's handler shares: the paths, the limits, CORS, the request handler. */
  static final class Routes {
    final Map<String, Signal> paths = new HashMap<>();
    final RequestHandler handler;
    final long maxBodyBytes;
    final Cors cors;
    final boolean includeMetadata;

    /** Set when the server stops: answers close their connections. */
    volatile boolean draining;

    Routes(HttpServerConfig config, RequestHandler handler) {
      paths.put(config.tracesUrlPath(), Signal.TRACES);
      paths.put(config.metricsUrlPath(), Signal.METRICS);
      paths.put(config.logsUrlPath(), Signal.LOGS);
      this.handler = handler;
      this.maxBodyBytes = config.maxRequestBodySize();
      this.cors = config.cors() == null ? null : new Cors(config.cors());
      this.includeMetadata = config.includeMetadata();
    }
  }

  private final Routes routes;

  // Event-loop confined. While a request's answer is pending (a durable pipeline answers once the
  // request is in its log), requests pipelined behind it wait here, and reading stops, so that
  // answers go out in request order and a client cannot queue unbounded bodies.
  private final ArrayDeque<FullHttpRequest> waiting = new ArrayDeque<>();
  private boolean answering;

  OtlpHttpHandler(Routes routes) {
    this.routes = routes;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
    if (answering) {
      waiting.add(request.retain());
      ctx.channel().config().setAutoRead(false);
      return;
    }
    handle(ctx, request);
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    FullHttpRequest request;
    while ((request = waiting.poll()) != null) {
      request.release();
    }
  }

  private void handle(ChannelHandlerContext ctx, FullHttpRequest request) {
    if (request.decoderResult().isFailure()) {
      // Netty's codec hands on what it could not parse as a request to "/bad-request".
      send(ctx, malformed(request.decoderResult().cause()), false);
      return;
    }
    String origin = request.headers().get(HttpHeaderNames.ORIGIN);
    // The gate drops the body such a request declared, so its connection carries no other.
    boolean bodyUnread = request instanceof HttpEdgeGate.HeadOnlyRequest;
    boolean keepAlive = !bodyUnread && HttpUtil.isKeepAlive(request) && !routes.draining;
    String path = new QueryStringDecoder(request.uri()).path();
    Signal signal = routes.paths.get(path);
    String contentType = mediaType(request.headers().get(HttpHeaderNames.CONTENT_TYPE));
    boolean json = JSON.equals(contentType);
    Answer answer;
    if (signal == null) {
      answer =
          Answer.error(
              HttpResponseStatus.NOT_FOUND,
              RpcStatus.NOT_FOUND,
              "no OTLP endpoint at " + BodyDecoder.quoted(path),
              json);
    } else if (routes.cors != null && Cors.isPreflight(request)) {
      answer = routes.cors.preflight(request);
    } else if (!HttpMethod.POST.equals(request.method())) {
      answer =
          Answer.error(
              HttpResponseStatus.METHOD_NOT_ALLOWED,
              RpcStatus.UNIMPLEMENTED,
              "method " + BodyDecoder.quoted(request.method().name()) + " is not allowed, use POST",
              json);
      answer.headers.put(
          HttpHeaderNames.ALLOW.toString(), routes.cors == null ? "POST" : "POST, OPTIONS");
    } else if (!json && !PROTOBUF.equals(contentType)) {
      answer =
          Answer.error(
              HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE,
              RpcStatus.INVALID_ARGUMENT,
              "unsupported Content-Type \""
                  + BodyDecoder.quoted(request.headers().get(HttpHeaderNames.CONTENT_TYPE, ""))
                  + "\", use application/x-protobuf or application/json",
              false);
    } else {
      answering = true;
      export(signal, request, json, late -> finish(ctx, late, origin, keepAlive, false));
      return;
    }
    answering = true;
    finish(ctx, answer, origin, keepAlive, bodyUnread);
  }

  /**
   * Sends a request's answer, then handles the requests that waited behind it, in order. After the
   * answer to a request whose body was not read, the connection is closed lingering, so that the
   * client reads the answer rather than a reset while it still sends.
   */
  private void finish(
      ChannelHandlerContext ctx,
      Answer answer,
      String origin,
      boolean keepAlive,
      boolean bodyUnread) {
    if (!ctx.executor().inEventLoop()) {
      ctx.executor().execute(() -> finish(ctx, answer, origin, keepAlive, bodyUnread));
      return;
    }
    if (routes.cors != null && origin != null) {
      routes.cors.allow(origin, answer.headers);
    }
    if (bodyUnread) {
      HttpEdgeGate.lingerAndClose(ctx, ctx.writeAndFlush(response(answer, false)));
    } else {
      send(ctx, answer, keepAlive);
    }
    answering = false;
    while (!answering && !waiting.isEmpty()) {
      FullHttpRequest next = waiting.poll();
      try {
        handle(ctx, next);
      } finally {
        next.release();
      }
    }
    if (!answering && !ctx.channel().config().isAutoRead()) {
      ctx.channel().config().setAutoRead(true);
    }
  }

  /** The body's bytes in a new array, which is not zeroed before they are copied in. */
  private static byte[] bytesOf(ByteBuf content) {
    byte[] bytes = ByteArrays.forOverwrite(content.readableBytes());
    content.getBytes(content.readerIndex(), bytes);
    return bytes;
  }

  /** The answer to what the codec could not parse: its line, its headers, or its chunks. */
  private static Answer malformed(Throwable cause) {
    HttpResponseStatus status =
        cause instanceof TooLongHttpHeaderException
            ? HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE
            : cause instanceof TooLongHttpLineException
                ? HttpResponseStatus.REQUEST_URI_TOO_LONG
                : HttpResponseStatus.BAD_REQUEST;
    String reason = cause == null ? "" : BodyDecoder.quoted(cause.getMessage());
    return Answer.error(
        status, RpcStatus.INVALID_ARGUMENT, "malformed HTTP request: " + reason, false);
  }

  /** Decodes and hands on an export request; {@code then} gets its answer, now or later. */
  private void export(Signal signal, FullHttpRequest request, boolean json, Consumer<Answer> then) {
    String encoding = request.headers().get(HttpHeaderNames.CONTENT_ENCODING);
    if (!BodyDecoder.supports(encoding)) {
      then.accept(
          Answer.error(
              HttpResponseStatus.BAD_REQUEST,
              RpcStatus.INVALID_ARGUMENT,
              "unsupported Content-Encoding \""
                  + BodyDecoder.quoted(encoding)
                  + "\": use gzip, deflate, zstd or snappy",
              json));
      return;
    }
    if (!routes.handler.accepts(signal)) {
      // Before decompressing and decoding: a body that no pipeline takes is not worth reading.
      then.accept(noPipeline(signal, json));
      return;
    }
    byte[] body;
    try {
      body = BodyDecoder.decode(encoding, bytesOf(request.content()), routes.maxBodyBytes);
    } catch (BodyDecoder.TooLarge e) {
      then.accept(
          Answer.error(
              HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
              RpcStatus.RESOURCE_EXHAUSTED,
              e.getMessage(),
              json));
      return;
    } catch (BodyDecoder.Undecodable e) {
      then.accept(
          Answer.error(
              HttpResponseStatus.BAD_REQUEST, RpcStatus.INVALID_ARGUMENT, e.getMessage(), json));
      return;
    }
    if (json) {
      try {
        body = JSON_DECODERS.get().decode(signal, body);
      } catch (MalformedOtlpException e) {
        then.accept(
            Answer.error(
                HttpResponseStatus.BAD_REQUEST, RpcStatus.INVALID_ARGUMENT, e.getMessage(), true));
        return;
      }
    }
    RequestMetadata metadata =
        routes.includeMetadata ? headersOf(request.headers()) : RequestMetadata.NONE;
    routes.handler.handle(
        signal, body, metadata, result -> then.accept(answerOf(signal, result, json)));
  }

  /** A copy of the request's headers, kept with its data ({@code include_metadata}). */
  private static RequestMetadata headersOf(HttpHeaders headers) {
    Map<String, List<String>> copy = new HashMap<>();
    for (Map.Entry<String, String> header : headers) {
      copy.computeIfAbsent(header.getKey(), k -> new ArrayList<>()).add(header.getValue());
    }
    return RequestMetadata.of(copy);
  }

  private static Answer answerOf(Signal signal, RequestHandler.Result result, boolean json) {
    switch (result.outcome()) {
      case ACCEPTED:
        return json
            ? new Answer(HttpResponseStatus.OK, JSON, "{}".getBytes(StandardCharsets.UTF_8))
            : new Answer(HttpResponseStatus.OK, PROTOBUF, RequestHandler.EMPTY_RESPONSE);
      case MALFORMED:
        return Answer.error(
            HttpResponseStatus.BAD_REQUEST, RpcStatus.INVALID_ARGUMENT, result.message(), json);
      case NO_PIPELINE:
        return noPipeline(signal, json);
      case FAILED:
        // Not among the statuses OTLP/HTTP clients retry.
        return Answer.error(
            HttpResponseStatus.INTERNAL_SERVER_ERROR, RpcStatus.INTERNAL, result.message(), json);
      default:
        return Answer.unavailable(result.message(), result.retryDelayMillis(), json);
    }
  }

  private static Answer noPipeline(Signal signal, boolean json) {
    return Answer.error(
        HttpResponseStatus.NOT_FOUND,
        RpcStatus.NOT_FOUND,
        "this receiver is not in a " + signal.name().toLowerCase(Locale.ROOT) + " pipeline",
        json);
  }

  /** The media type of a Content-Type value, without parameters, in lower case. */
  static String mediaType(String contentType) {
    if (contentType == null) {
      return "";
    }
    int semicolon = contentType.indexOf(';');
    String type = semicolon < 0 ? contentType : contentType.substring(0, semicolon);
    return type.trim().toLowerCase(Locale.ROOT);
  }

  static void send(ChannelHandlerContext ctx, Answer answer, boolean keepAlive) {
    FullHttpResponse response = response(answer, keepAlive);
    if (keepAlive) {
      ctx.writeAndFlush(response);
    } else {
      ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
  }

  /** The response for an answer, saying whether the connection stays open. */
  static FullHttpResponse response(Answer answer, boolean keepAlive) {
    ByteBuf content = Unpooled.wrappedBuffer(answer.body);
    FullHttpResponse response =
        new DefaultFullHttpResponse(
            io.netty.handler.codec.http.HttpVersion.HTTP_1_1, answer.status, content);
    if (answer.contentType != null) {
      response.headers().set(HttpHeaderNames.CONTENT_TYPE, answer.contentType);
    }
    answer.headers.forEach(response.headers()::set);
    response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, answer.body.length);
    response
        .headers()
        .set(
            HttpHeaderNames.CONNECTION,
            keepAlive ? HttpHeaderValues.KEEP_ALIVE : HttpHeaderValues.CLOSE);
    return response;
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close();
  }

  /** A response to send: status, content type, body and extra headers. */
  static final class Answer {
    final HttpResponseStatus status;
    final String contentType;
    final byte[] body;
    final Map<String, String> headers = new HashMap<>();

    Answer(HttpResponseStatus status, String contentType, byte[] body) {
      this.status = status;
      this.contentType = contentType;
      this.body = body;
    }

    static Answer error(HttpResponseStatus status, int code, String message, boolean json) {
      return json
          ? new Answer(status, JSON, RpcStatus.json(code, message).getBytes(StandardCharsets.UTF_8))
          : new Answer(status, PROTOBUF, RpcStatus.encode(code, message, 0));
    }

    /** 503 with {@code Retry-After} in whole seconds, at least 1, rounded up. */
    static Answer unavailable(String message, long retryDelayMillis, boolean json) {
      Answer refused =
          error(HttpResponseStatus.SERVICE_UNAVAILABLE, RpcStatus.UNAVAILABLE, message, json);
      long seconds = Math.max(1, TimeUnit.MILLISECONDS.toSeconds(retryDelayMillis + 999));
      refused.headers.put(HttpHeaderNames.RETRY_AFTER.toString(), Long.toString(seconds));
      return refused;
    }
  }
}
