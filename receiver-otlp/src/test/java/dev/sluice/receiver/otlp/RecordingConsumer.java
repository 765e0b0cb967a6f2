package dev.sluice.receiver.otlp;

import dev.sluice.component.Admission;
import dev.sluice.component.RequestConsumer;
import dev.sluice.pdata.codec.OtlpIndex;
import java.util.ArrayList;
import java.util.List;

/** A pipeline stand-in for receiver tests: records requests, answers with a settable admission. */
final class RecordingConsumer implements RequestConsumer {
  final List<OtlpIndex> requests = new ArrayList<>();
  volatile Admission answer = Admission.ACCEPTED;

  /** What {@link #admission()} says at a request's headers. */
  volatile Admission atHeaders = Admission.ACCEPTED;

  private final long retryDelayMillis;

  RecordingConsumer(long retryDelayMillis) {
    this.retryDelayMillis = retryDelayMillis;
  }

  @Override
  public synchronized Admission consume(OtlpIndex request) {
    if (answer == Admission.ACCEPTED) {
      requests.add(request);
    }
    return answer;
  }

  @Override
  public Admission admission() {
    return atHeaders;
  }

  @Override
  public long retryDelayMillis() {
    return retryDelayMillis;
  }
}
