package dev.sluice.pdata.codec;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.Duration;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsPartialSuccess;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.ExportTracePartialSuccess;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ExportResponsesTest {
  @Test
  void writesThePartialSuccessProtobufJavaWrites() throws IOException {
    byte[] ours = ExportResponses.partialSuccessResponse(3, "bad spans");

    ExportTraceServiceResponse reference =
        ExportTraceServiceResponse.newBuilder()
            .setPartialSuccess(
                ExportTracePartialSuccess.newBuilder()
                    .setRejectedSpans(3)
                    .setErrorMessage("bad spans"))
            .build();
    assertThat(ours).isEqualTo(reference.toByteArray());
    assertThat(ExportTraceServiceResponse.parseFrom(ours)).isEqualTo(reference);
  }

  @Test
  void fullSuccessIsTheEmptyResponse() {
    assertThat(ExportResponses.partialSuccessResponse(0, "")).isEmpty();
  }

  @Test
  void readsThePartialSuccessOfAnySignalsResponse() {
    byte[] logs =
        ExportLogsServiceResponse.newBuilder()
            .setPartialSuccess(
                ExportLogsPartialSuccess.newBuilder()
                    .setRejectedLogRecords(7)
                    .setErrorMessage("too old"))
            .build()
            .toByteArray();

    assertThat(ExportResponses.partialSuccess(logs))
        .isEqualTo(new ExportResponses.Partial(7, "too old"));
  }

  @Test
  void aResponseWithoutRejectionsOrMessageIsFullSuccess() {
    byte[] empty =
        ExportTraceServiceResponse.newBuilder()
            .setPartialSuccess(ExportTracePartialSuccess.getDefaultInstance())
            .build()
            .toByteArray();

    assertThat(ExportResponses.partialSuccess(empty)).isNull();
    assertThat(ExportResponses.partialSuccess(new byte[0])).isNull();
    assertThat(ExportResponses.partialSuccess(null)).isNull();
  }

  @Test
  void anUnreadableResponseIsFullSuccess() {
    byte[] whole = ExportResponses.partialSuccessResponse(3, "bad spans");

    assertThat(ExportResponses.partialSuccess(Arrays.copyOf(whole, whole.length - 2))).isNull();
  }

  @Test
  void writesTheStatusAndRetryInfoProtobufJavaWrites() throws IOException {
    byte[] ours = ExportResponses.status(8, "over the limit", 1_500);

    assertThat(ours).isEqualTo(referenceStatus(8, "over the limit", 1, 500_000_000));
    assertThat(ExportResponses.statusMessage(ours)).isEqualTo("over the limit");
    assertThat(ExportResponses.retryDelayNanos(ours)).isEqualTo(1_500_000_000L);
  }

  @Test
  void aStatusWithoutRetryInfoHasNoDelay() throws IOException {
    byte[] ours = ExportResponses.status(3, "malformed", 0);

    assertThat(ours).isEqualTo(referenceStatus(3, "malformed", -1, 0));
    assertThat(ExportResponses.retryDelayNanos(ours)).isEqualTo(-1);
    assertThat(ExportResponses.retryDelayNanos(null)).isEqualTo(-1);
    assertThat(ExportResponses.statusMessage(new byte[0])).isEmpty();
  }

  @Test
  void aRetryDelayTooLongToCountInNanosecondsIsTheLongestDelayNotAWrappedOne() throws IOException {
    long seconds = 1L << 62; // times 10^9 wraps a long around

    assertThat(ExportResponses.retryDelayNanos(referenceStatus(14, "later", seconds, 0)))
        .isEqualTo(Long.MAX_VALUE);
    assertThat(ExportResponses.retryDelayNanos(referenceStatus(14, "later", 9_300_000_000L, 5)))
        .isEqualTo(Long.MAX_VALUE);
    assertThat(ExportResponses.retryDelayNanos(referenceStatus(14, "later", 0, 250)))
        .isEqualTo(250);
  }

  /** google.rpc.Status written field by field, RetryInfo packed in an Any as grpc-java does. */
  private static byte[] referenceStatus(int code, String message, long seconds, int nanos)
      throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    out.writeInt32(1, code);
    out.writeString(2, message);
    if (seconds >= 0) {
      ByteArrayOutputStream retryInfo = new ByteArrayOutputStream();
      CodedOutputStream info = CodedOutputStream.newInstance(retryInfo);
      info.writeMessage(1, Duration.newBuilder().setSeconds(seconds).setNanos(nanos).build());
      info.flush();
      Any any =
          Any.newBuilder()
              .setTypeUrl(ExportResponses.RETRY_INFO_TYPE)
              .setValue(ByteString.copyFrom(retryInfo.toByteArray()))
              .build();
      out.writeMessage(3, any);
    }
    out.flush();
    return bytes.toByteArray();
  }
}
