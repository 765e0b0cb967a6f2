package dev.sluice.processor.tailsampling;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.view.SpanView;

/** Test traces: requests made with a {@code TracesBuilder}, held as the processor holds them. */
final class Held {
  private Held() {}

  /**
   * A trace holding every span of {@code requests} (the spans should share one trace ID), decided
   * at {@code nowNanos}. Clear {@code trace.spans()} when done, to release the requests.
   */
  static TraceData trace(long nowNanos, OtlpIndex... requests) {
    Batch all = new Batch(dev.sluice.pdata.Signal.TRACES);
    for (OtlpIndex request : requests) {
      all.add(request);
    }
    long[] id = new long[2];
    long[] bytes = new long[1];
    all.visit(
        item -> {
          SpanView span = item.span();
          id[0] = span.traceIdHigh();
          id[1] = span.traceIdLow();
          bytes[0] += span.encodedLength();
        });
    TraceData trace = new TraceData(id[0], id[1], 0, 0);
    trace.spans.addAll(all);
    trace.spanCount = trace.spans.unitCount();
    trace.bytes = bytes[0];
    trace.nowNanos = nowNanos;
    return trace;
  }
}
