package dev.sluice.processor.tailsampling;

import dev.sluice.pdata.build.TracesBuilder;
import dev.sluice.pdata.codec.OtlpIndex;

/** Test traces of named spans, each span with the events named after it ({@code "a>e1,e2"}). */
final class Spans {
  private static final byte[] TRACE_ID = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

  private Spans() {}

  /**
   * One request of one resource ({@code service.name: checkout}) and one scope, with a span per
   * name; a name may list its events after a {@code >}: {@code "GET /a>retry,done"}.
   */
  static OtlpIndex request(String... spans) {
    TracesBuilder builder = new TracesBuilder();
    builder.resource().attributes().put("service.name", "checkout");
    builder.scope().name("test");
    for (int i = 0; i < spans.length; i++) {
      String[] parts = spans[i].split(">", -1);
      TracesBuilder.SpanWriter span =
          builder
              .span()
              .traceId(TRACE_ID)
              .spanId(new byte[] {0, 0, 0, 0, 0, 0, 0, (byte) (i + 1)})
              .name(parts[0]);
      span.attributes().put("index", i);
      if (parts.length > 1) {
        for (String event : parts[1].split(",")) {
          span.event().name(event);
        }
      }
    }
    return builder.build();
  }

  /** A trace of one request with {@code spans}, decided at {@code nowNanos}. */
  static TraceData trace(long nowNanos, String... spans) {
    return Held.trace(nowNanos, request(spans));
  }
}
