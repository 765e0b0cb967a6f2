package dev.sluice.core.otlp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.wire.ProtoWriter;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link OtlpMarshaler#writeTo}: a batch written to a stream without an array of its size, the same
 * bytes as {@link OtlpMarshaler#marshal}. Random split and merged batches are streamed in {@link
 * SplitMergePropertyTest}.
 */
class StreamingMarshalTest {
  private final OtlpIndexer indexer = new OtlpIndexer();

  /** Records each write it is given, and what it was given. */
  private static final class RecordingStream extends OutputStream {
    final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    final List<Integer> writes = new ArrayList<>();
    int failAtWrite = -1;

    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      if (writes.size() == failAtWrite) {
        throw new IOException("stream closed");
      }
      writes.add(len);
      bytes.write(b, off, len);
    }
  }

  private Batch twoRequests(int spansEach) throws Exception {
    Batch batch =
        Batch.of(
            indexer.index(
                Signal.TRACES, OtlpTestData.realisticTraces(2, spansEach / 2).toByteArray()));
    batch.add(
        indexer.index(Signal.TRACES, OtlpTestData.realisticTraces(1, spansEach).toByteArray()));
    return batch;
  }

  @Test
  void aLargeBatchStreamsThroughAnArrayThatDoesNotGrow() throws Exception {
    Batch batch = twoRequests(2000);
    byte[] expected = OtlpMarshaler.toByteArray(batch);
    assertThat(expected.length).isGreaterThan(1 << 20);

    MarshalContext context = new MarshalContext(new ProtoWriter(1024));
    RecordingStream target = new RecordingStream();
    int size = OtlpMarshaler.size(batch, context);
    assertThat(OtlpMarshaler.writeTo(batch, context, target)).isEqualTo(size);

    assertThat(target.bytes.toByteArray()).isEqualTo(expected);
    assertThat(context.output().array()).hasSize(1024);
    // The spans went to the stream in runs far longer than the array, straight from the requests.
    assertThat(target.writes.stream().mapToInt(Integer::intValue).max().getAsInt())
        .isGreaterThan(100 * 1024);
    assertThat(target.writes.size()).isLessThan(100);
  }

  @Test
  void writingAnotherBatchThanTheOneSizedSizesItAgain() throws Exception {
    Batch sized = twoRequests(10);
    Batch other = twoRequests(40);
    MarshalContext context = new MarshalContext();
    OtlpMarshaler.size(sized, context);

    ByteArrayOutputStream target = new ByteArrayOutputStream();
    int size = OtlpMarshaler.writeTo(other, context, target);

    byte[] expected = OtlpMarshaler.toByteArray(other);
    assertThat(size).isEqualTo(expected.length);
    assertThat(target.toByteArray()).isEqualTo(expected);
  }

  @Test
  void aFailingStreamSurfacesItsErrorAndLeavesTheContextUsable() throws Exception {
    Batch batch = twoRequests(200);
    MarshalContext context = new MarshalContext(new ProtoWriter(256));
    RecordingStream failing = new RecordingStream();
    failing.failAtWrite = 2;
    OtlpMarshaler.size(batch, context);

    assertThatThrownBy(() -> OtlpMarshaler.writeTo(batch, context, failing))
        .isInstanceOf(IOException.class)
        .hasMessage("stream closed");

    // Nothing of the failed write is left behind: the next batch comes out whole, as a stream and
    // into the array.
    Batch next = twoRequests(20);
    byte[] expected = OtlpMarshaler.toByteArray(next);
    ByteArrayOutputStream target = new ByteArrayOutputStream();
    OtlpMarshaler.writeTo(next, context, target);
    assertThat(target.toByteArray()).isEqualTo(expected);
    int size = OtlpMarshaler.marshal(next, context);
    assertThat(context.output().toByteArray()).hasSize(size).isEqualTo(expected);
  }

  @Test
  void aSizedBatchIsNotKeptByTheContextAfterRelease() throws Exception {
    Batch batch = twoRequests(10);
    MarshalContext context = new MarshalContext();
    OtlpMarshaler.size(batch, context);
    assertThat(context.planned).isSameAs(batch);
    context.release();
    assertThat(context.planned).isNull();

    OtlpMarshaler.size(batch, context);
    OtlpMarshaler.writeTo(batch, context, OutputStream.nullOutputStream());
    assertThat(context.planned).isNull();
  }

  @Test
  void aRequestStreamedWholeIsTheRequestsOwnBytes() throws Exception {
    ExportTraceServiceRequest request = OtlpTestData.realisticTraces(3, 100);
    Batch batch = Batch.of(indexer.index(Signal.TRACES, request.toByteArray()));
    ByteArrayOutputStream target = new ByteArrayOutputStream();
    OtlpMarshaler.writeTo(batch, new MarshalContext(new ProtoWriter(16)), target);
    assertThat(ExportTraceServiceRequest.parseFrom(target.toByteArray())).isEqualTo(request);
  }
}
