package dev.sluice.receiver.otlp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.util.concurrent.ListenableFuture;
import com.google.protobuf.ByteString;
import com.google.rpc.RetryInfo;
import dev.sluice.component.Admission;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.grpc.OtlpGrpc;
import dev.sluice.grpc.ZstdCodec;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.testkit.MetricsText;
import dev.sluice.testkit.SequencedSpans;
import io.grpc.CallOptions;
import io.grpc.CompressorRegistry;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.ClientCalls;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.logs.v1.LogsServiceGrpc;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class GrpcReceiverTest {
  private final MetricRegistry metrics = new MetricRegistry();
  private final RecordingConsumer traces = new RecordingConsumer(1500);
  private OtlpReceiver receiver;
  private ManagedChannel channel;

  private void start(int maxRecvMsgSizeMib) throws Exception {
    GrpcServerConfig grpc =
        new GrpcServerConfig(
            "127.0.0.1:0",
            "tcp",
            null,
            maxRecvMsgSizeMib,
            0,
            GrpcServerConfig.Keepalive.DEFAULT,
            false);
    receiver = TestReceivers.start(metrics, grpc, null, traces);
    channel =
        NettyChannelBuilder.forAddress("127.0.0.1", receiver.grpcPort())
            .usePlaintext()
            .compressorRegistry(withZstd())
            .build();
  }

  private static CompressorRegistry withZstd() {
    CompressorRegistry registry = CompressorRegistry.getDefaultInstance();
    registry.register(ZstdCodec.INSTANCE);
    return registry;
  }

  @AfterEach
  void stop() throws Exception {
    if (channel != null) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    TestReceivers.shutdown(receiver);
  }

  @Test
  void acceptsARequestAndHandsItsBytesToThePipeline() throws Exception {
    start(4);
    ExportTraceServiceRequest request = SequencedSpans.request("svc", 0, 25);

    ExportTraceServiceResponse response = TraceServiceGrpc.newBlockingStub(channel).export(request);

    assertThat(response.hasPartialSuccess()).isFalse();
    assertThat(traces.requests).hasSize(1);
    assertThat(traces.requests.get(0).unitCount()).isEqualTo(25);
    assertThat(MetricsText.of(metrics))
        .contains("otelcol_receiver_accepted_spans_total{receiver=\"otlp\",transport=\"grpc\"} 25");
  }

  /**
   * Requests of megabytes span many socket reads and HTTP/2 frames, which the receiver composes
   * rather than copies; several in flight on one connection interleave their frames. Each must
   * arrive exactly as sent.
   */
  @Test
  void largeConcurrentRequestsArriveByteForByte() throws Exception {
    start(16);
    List<ExportTraceServiceRequest> sent = new ArrayList<>();
    List<ListenableFuture<ExportTraceServiceResponse>> answers = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      ExportTraceServiceRequest request =
          SequencedSpans.request("svc-" + i, i * 20_000, 20_000 + i);
      sent.add(request);
      answers.add(TraceServiceGrpc.newFutureStub(channel).export(request));
    }
    for (ListenableFuture<ExportTraceServiceResponse> answer : answers) {
      answer.get(30, TimeUnit.SECONDS);
    }

    assertThat(sent.get(0).getSerializedSize()).isGreaterThan(1 << 20);
    List<ExportTraceServiceRequest> received = new ArrayList<>();
    for (OtlpIndex request : traces.requests) {
      received.add(
          ExportTraceServiceRequest.parseFrom(OtlpMarshaler.toByteArray(Batch.of(request))));
    }
    assertThat(received).containsExactlyInAnyOrderElementsOf(sent);
  }

  @Test
  void acceptsGzipAndZstdCompressedRequests() throws Exception {
    start(4);
    ExportTraceServiceRequest request = SequencedSpans.request("svc", 0, 100);

    TraceServiceGrpc.newBlockingStub(channel).withCompression("gzip").export(request);
    TraceServiceGrpc.newBlockingStub(channel).withCompression("zstd").export(request);

    assertThat(traces.requests).hasSize(2);
    assertThat(traces.requests).allMatch(r -> r.unitCount() == 100);
  }

  @Test
  void answersInvalidArgumentWithTheValidatorsMessage() throws Exception {
    start(4);
    byte[] request = SequencedSpans.request("svc", 0, 3).toByteArray();
    byte[] truncated = Arrays.copyOf(request, request.length - 1);

    assertThatThrownBy(() -> sendRaw(truncated))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(e.getStatus().getDescription())
                  .startsWith("resource_spans[0]")
                  .contains("at offset");
            });
    assertThat(traces.requests).isEmpty();
  }

  @Test
  void answersUnavailableWithRetryInfoWhenThePipelineIsFull() throws Exception {
    start(4);
    traces.answer = Admission.FULL;

    assertThatThrownBy(
            () ->
                TraceServiceGrpc.newBlockingStub(channel)
                    .export(SequencedSpans.request("svc", 0, 5)))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
              com.google.rpc.Status status = StatusProto.fromThrowable(e);
              assertThat(status).isNotNull();
              assertThat(status.getDetailsList()).hasSize(1);
              try {
                RetryInfo retry = status.getDetails(0).unpack(RetryInfo.class);
                assertThat(retry.getRetryDelay().getSeconds()).isEqualTo(1);
                assertThat(retry.getRetryDelay().getNanos()).isEqualTo(500_000_000);
              } catch (com.google.protobuf.InvalidProtocolBufferException ex) {
                throw new AssertionError(ex);
              }
            });
    assertThat(MetricsText.of(metrics))
        .contains("otelcol_receiver_refused_spans_total{receiver=\"otlp\",transport=\"grpc\"} 5");
  }

  @Test
  void answersResourceExhaustedForAnOversizeRequest() throws Exception {
    start(1);
    ExportTraceServiceRequest big =
        ExportTraceServiceRequest.newBuilder()
            .addResourceSpans(
                ResourceSpans.newBuilder()
                    .setResource(
                        Resource.newBuilder()
                            .addAttributes(
                                KeyValue.newBuilder()
                                    .setKey("blob")
                                    .setValue(
                                        AnyValue.newBuilder()
                                            .setBytesValue(
                                                ByteString.copyFrom(new byte[(1 << 20) + 10]))))))
            .build();

    assertThatThrownBy(() -> TraceServiceGrpc.newBlockingStub(channel).export(big))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED));
  }

  @Test
  void boundsTheDecompressedSizeOfAZipBomb() throws Exception {
    start(1);
    // 8 MiB of zeros compresses to a few KiB: the limit applies to the decompressed size.
    ExportTraceServiceRequest bomb =
        ExportTraceServiceRequest.newBuilder()
            .addResourceSpans(
                ResourceSpans.newBuilder()
                    .setResource(
                        Resource.newBuilder()
                            .addAttributes(
                                KeyValue.newBuilder()
                                    .setKey("zeros")
                                    .setValue(
                                        AnyValue.newBuilder()
                                            .setBytesValue(
                                                ByteString.copyFrom(new byte[8 << 20]))))))
            .build();

    assertThatThrownBy(
            () -> TraceServiceGrpc.newBlockingStub(channel).withCompression("gzip").export(bomb))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED));
    assertThat(traces.requests).isEmpty();
  }

  @Test
  void answersUnimplementedForASignalWithoutAPipeline() throws Exception {
    start(4);

    assertThatThrownBy(
            () ->
                LogsServiceGrpc.newBlockingStub(channel)
                    .export(ExportLogsServiceRequest.getDefaultInstance()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED));
  }

  private byte[] sendRaw(byte[] body) {
    MethodDescriptor<byte[], byte[]> method =
        MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName("opentelemetry.proto.collector.trace.v1.TraceService/Export")
            .setRequestMarshaller(OtlpGrpc.Bytes.MARSHALLER)
            .setResponseMarshaller(OtlpGrpc.Bytes.MARSHALLER)
            .build();
    return ClientCalls.blockingUnaryCall(
        channel, method, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), body);
  }
}
