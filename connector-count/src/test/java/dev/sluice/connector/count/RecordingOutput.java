package dev.sluice.connector.count;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.sluice.component.Admission;
import dev.sluice.component.ConnectorOutput;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * A metrics pipeline for a connector under test: answers each request it is handed with the answer
 * set last, and keeps those it accepted, parsed by protobuf-java, and counts those it refused.
 */
final class RecordingOutput implements ConnectorOutput {
  private final List<ExportMetricsServiceRequest> accepted = new ArrayList<>();
  private Admission answer = Admission.ACCEPTED;
  private int refused;
  private final List<Long> madeFromUnits = new ArrayList<>();

  /** Answers {@code answer} from now on. */
  RecordingOutput answer(Admission answer) {
    this.answer = answer;
    return this;
  }

  List<ExportMetricsServiceRequest> accepted() {
    return accepted;
  }

  int refused() {
    return refused;
  }

  /**
   * For each request handed on with {@link #consume(OtlpIndex, Batch)}, how many items the batch it
   * was made from held then.
   */
  List<Long> madeFromUnits() {
    return madeFromUnits;
  }

  /** The one request accepted so far. */
  ExportMetricsServiceRequest only() {
    if (accepted.size() != 1) {
      throw new AssertionError("expected one request, got " + accepted.size());
    }
    return accepted.get(0);
  }

  @Override
  public Signal signal() {
    return Signal.METRICS;
  }

  @Override
  public List<String> pipelines() {
    return List.of("metrics");
  }

  @Override
  public Admission consume(Batch batch) {
    throw new UnsupportedOperationException("the count connector hands on requests it built");
  }

  @Override
  public Admission consume(OtlpIndex request) {
    if (request.signal() != Signal.METRICS) {
      throw new AssertionError("a " + request.signal() + " request");
    }
    if (answer != Admission.ACCEPTED) {
      refused++;
      return answer;
    }
    byte[] bytes = new byte[request.sourceLength()];
    request.readSource(
        (source, offset, length) -> {
          System.arraycopy(source, offset, bytes, 0, length);
          return length;
        });
    try {
      accepted.add(ExportMetricsServiceRequest.parseFrom(bytes));
    } catch (InvalidProtocolBufferException e) {
      throw new AssertionError("the connector built a request protobuf-java cannot parse", e);
    }
    return Admission.ACCEPTED;
  }

  @Override
  public Admission consume(OtlpIndex request, Batch madeFrom) {
    madeFromUnits.add(madeFrom.unitCount());
    return consume(request);
  }

  @Override
  public ConnectorOutput to(Collection<String> pipelines) {
    return this;
  }
}
