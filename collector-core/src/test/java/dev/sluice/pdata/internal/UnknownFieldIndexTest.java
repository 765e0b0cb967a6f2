package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import org.junit.jupiter.api.Test;

/** Unknown length-delimited fields, top-level or inside groups, are skipped whole. */
class UnknownFieldIndexTest {
  @Test
  void unknownLengthDelimitedFieldsAreKeptAndRoundTrip() throws Exception {
    UnknownFieldSet unknown =
        UnknownFieldSet.newBuilder()
            .mergeField(
                552,
                UnknownFieldSet.Field.newBuilder()
                    // Ends with 0x25, the tag of a fixed32 field 4: skipping one byte short reads
                    // it.
                    .addLengthDelimited(ByteString.copyFrom(new byte[] {(byte) 0xbc, 0x18, 0x25}))
                    .build())
            .mergeField(
                1374,
                UnknownFieldSet.Field.newBuilder()
                    .addGroup(
                        UnknownFieldSet.newBuilder()
                            .mergeField(
                                13,
                                UnknownFieldSet.Field.newBuilder()
                                    .addLengthDelimited(ByteString.copyFromUtf8("payload"))
                                    .build())
                            .build())
                    .build())
            .build();
    ExportTraceServiceRequest request =
        ExportTraceServiceRequest.newBuilder()
            .addResourceSpans(
                ResourceSpans.newBuilder()
                    .addScopeSpans(
                        ScopeSpans.newBuilder()
                            .setUnknownFields(unknown)
                            .addSpans(Span.newBuilder().setName("s").setUnknownFields(unknown))))
            .build();
    byte[] bytes = request.toByteArray();

    OtlpIndex index = new OtlpIndexer().index(Signal.TRACES, bytes);

    assertThat(index.unitCount()).isEqualTo(1);
    assertThat(OtlpMarshaler.toByteArray(Batch.of(index))).isEqualTo(bytes);
  }
}
