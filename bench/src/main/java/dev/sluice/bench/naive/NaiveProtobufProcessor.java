package dev.sluice.bench.naive;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.MessageLite;
import dev.sluice.component.Admission;
import dev.sluice.component.BatchConsumer;
import dev.sluice.component.Processor;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.MarshalContext;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The naive way, for comparison: every batch is decoded into protobuf-java's object tree and
 * encoded again, as collectors that hold data as objects do between their receiver and their
 * exporter. The re-encoded request is indexed and passed on in place of the batch.
 *
 * <p>Costs on top of Sluice's own path: marshaling the batch to bytes (a copy: a batch fresh from a
 * receiver is one whole request), {@code parseFrom}, {@code toByteArray}, and indexing the new
 * bytes. The first and last are Sluice's cheap operations; the middle two are what the naive design
 * pays at its receiver and its exporter.
 *
 * <p>Memory accounting: the original request stays held (its slices are kept aside) until the last
 * slice of the re-encoded one is cleared, so the collector's memory bound still counts what the
 * pipeline holds, if at the original's size.
 */
public final class NaiveProtobufProcessor implements Processor {
  private final Signal signal;
  private final BatchConsumer next;
  private final ThreadLocal<MarshalContext> contexts = ThreadLocal.withInitial(MarshalContext::new);
  private final ThreadLocal<OtlpIndexer> indexers = ThreadLocal.withInitial(OtlpIndexer::new);

  public NaiveProtobufProcessor(Signal signal, BatchConsumer next) {
    this.signal = signal;
    this.next = next;
  }

  @Override
  public Admission consume(Batch batch) {
    OtlpIndex reencoded;
    try {
      reencoded = indexers.get().index(signal, roundTrip(signal, batch, contexts.get()));
    } catch (MalformedOtlpException e) {
      throw new IllegalStateException("protobuf-java wrote a request Sluice rejects", e);
    }
    Batch kept = new Batch(signal);
    kept.addAll(batch);
    reencoded.hold(request -> kept.clear());
    Batch out = Batch.of(reencoded);
    reencoded.releaseHold();
    Admission admission = next.consume(out);
    if (admission != Admission.ACCEPTED) {
      // The batch goes back to the caller unchanged; then dropping `out` releases nothing more.
      batch.addAll(kept);
      out.clear();
    }
    return admission;
  }

  /** The batch marshaled, parsed by protobuf-java and serialized again. */
  static byte[] roundTrip(Signal signal, Batch batch, MarshalContext context) {
    int size = OtlpMarshaler.marshal(batch, context);
    CodedInputStream input = CodedInputStream.newInstance(context.outputArray(), 0, size);
    try {
      MessageLite message =
          switch (signal) {
            case TRACES -> ExportTraceServiceRequest.parseFrom(input);
            case METRICS -> ExportMetricsServiceRequest.parseFrom(input);
            case LOGS -> ExportLogsServiceRequest.parseFrom(input);
          };
      return message.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException("protobuf-java cannot parse a request Sluice accepted", e);
    }
  }
}
