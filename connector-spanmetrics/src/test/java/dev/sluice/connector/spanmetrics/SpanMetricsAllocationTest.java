package dev.sluice.connector.spanmetrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.Admission;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.testkit.AllocationBound;
import dev.sluice.testkit.ServerSpans;
import org.junit.jupiter.api.Test;

/** Counting spans into series that exist allocates nothing per span. */
class SpanMetricsAllocationTest {
  private static final int SPANS = 1000;

  /** What a call may allocate whatever its size: the visit's bookkeeping, not per span. */
  private static final long FIXED_BYTES = 4 * 1024;

  @Test
  void countingSpansIntoExistingSeriesAllocatesNothingPerSpan() throws Exception {
    Harness h =
        new Harness(
            String.join(
                "\n",
                "dimensions:",
                "  - name: http.request.method",
                "  - name: http.response.status_code",
                "  - name: url.scheme",
                "    default: http",
                "events: {enabled: true, dimensions: [{name: exception.type}]}",
                "exemplars: {enabled: true}"));
    OtlpIndex index =
        new OtlpIndexer().index(Signal.TRACES, ServerSpans.request(SPANS, 7).toByteArray());
    for (int i = 0; i < 3; i++) { // makes the series, and warms the code up
      Batch batch = Batch.of(index);
      assertThat(h.connector.consume(batch)).isEqualTo(Admission.ACCEPTED);
    }

    Batch batch = Batch.of(index);
    Admission[] answer = new Admission[1];
    AllocationBound.Outcome outcome =
        AllocationBound.measure(() -> answer[0] = h.connector.consume(batch));

    assertThat(outcome.thrown()).isNull();
    assertThat(answer[0]).isEqualTo(Admission.ACCEPTED);
    assertThat(outcome.allocatedBytes())
        .as("bytes allocated counting %d spans", SPANS)
        .isLessThan(FIXED_BYTES);
  }
}
