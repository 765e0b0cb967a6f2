package dev.sluice.exporter.otlp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.core.otlp.Batch;
import dev.sluice.core.otlp.MarshalContext;
import dev.sluice.core.otlp.OtlpMarshaler;
import dev.sluice.core.testkit.SequencedSpans;
import dev.sluice.core.wire.ProtoWriter;
import io.grpc.Drainable;
import io.grpc.KnownLength;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The stream the gRPC exporter hands grpc-java: it marshals its batch when drained. */
class MarshaledRequestTest {
  private static Batch batch(String service, int spans) {
    Batch batch = Batch.of(SequencedSpans.indexed(service, 0, spans / 2));
    batch.add(SequencedSpans.indexed(service + "-2", spans / 2, spans - spans / 2));
    return batch;
  }

  @Test
  void drainsItsBatchIntoTheTargetThroughTheSendingThreadsSmallArray() throws Exception {
    Batch batch = batch("svc", 3000);
    byte[] expected = OtlpMarshaler.toByteArray(batch);
    MarshalContext context = new MarshalContext(new ProtoWriter(4096));
    int size = OtlpMarshaler.size(batch, context);

    InputStream stream = new MarshaledRequest(batch, context, size).stream();
    assertThat(stream).isInstanceOf(Drainable.class).isInstanceOf(KnownLength.class);
    assertThat(stream.available()).isEqualTo(expected.length);
    ByteArrayOutputStream target = new ByteArrayOutputStream();
    assertThat(((Drainable) stream).drainTo(target)).isEqualTo(expected.length);

    assertThat(target.toByteArray()).isEqualTo(expected);
    assertThat(stream.available()).isZero();
    assertThat(context.output().array()).hasSize(4096);
    assertThatThrownBy(() -> ((Drainable) stream).drainTo(new ByteArrayOutputStream()))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void drainedOnAnotherThreadItLeavesTheSendingThreadsContextAlone() throws Exception {
    Batch first = batch("first", 200);
    Batch second = batch("second", 300);
    MarshalContext context = new MarshalContext();
    InputStream stream =
        new MarshaledRequest(first, context, OtlpMarshaler.size(first, context)).stream();
    // The sending thread has moved on to its next batch before the first is drained.
    OtlpMarshaler.size(second, context);

    ByteArrayOutputStream late = new ByteArrayOutputStream();
    CompletableFuture.runAsync(
            () -> {
              try {
                ((Drainable) stream).drainTo(late);
              } catch (Exception e) {
                throw new RuntimeException(e);
              }
            })
        .get();
    assertThat(late.toByteArray()).isEqualTo(OtlpMarshaler.toByteArray(first));

    // The sending thread's plan for its next batch is intact.
    ByteArrayOutputStream next = new ByteArrayOutputStream();
    OtlpMarshaler.writeTo(second, context, next);
    assertThat(next.toByteArray()).isEqualTo(OtlpMarshaler.toByteArray(second));
  }

  @Test
  void aReaderThatDoesNotDrainReadsTheSameBytes() throws Exception {
    Batch batch = batch("svc", 100);
    MarshalContext context = new MarshalContext();
    InputStream stream =
        new MarshaledRequest(batch, context, OtlpMarshaler.size(batch, context)).stream();

    int firstByte = stream.read();
    byte[] rest = stream.readAllBytes();

    ByteArrayOutputStream read = new ByteArrayOutputStream();
    read.write(firstByte);
    read.write(rest);
    assertThat(read.toByteArray()).isEqualTo(OtlpMarshaler.toByteArray(batch));
    assertThat(stream.read()).isEqualTo(-1);
  }
}
