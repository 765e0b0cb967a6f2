package dev.sluice.pdata.build;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.pdata.build.DataPointWriter.ExemplarWriter;
import dev.sluice.pdata.build.MetricsBuilder.MetricWriter;
import dev.sluice.pdata.build.TracesBuilder.SpanWriter;
import dev.sluice.pdata.internal.OtlpEnums.AggregationTemporality;
import dev.sluice.pdata.internal.OtlpEnums.SeverityNumber;
import dev.sluice.pdata.internal.OtlpEnums.SpanKind;
import dev.sluice.pdata.internal.OtlpEnums.StatusCode;
import dev.sluice.testkit.AllocationBound;
import dev.sluice.testkit.AllocationBound.Outcome;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Once a builder's scratch buffers have grown, building a request of the same shape again allocates
 * nothing but the output: nothing at all with {@code writeTo} into the caller's array, the array
 * with {@code toByteArray()}, the array and the index's tables with {@code build()}. Measured in
 * bytes allocated on the calling thread ({@link AllocationBound#measure}), not in time.
 */
class BuilderAllocationTest {
  private static final int WARM_UP = 200;
  private static final int MEASURED = 100;
  private static final int ROUNDS = 3;

  private static final byte[] TRACE_ID = new byte[16];
  private static final byte[] SPAN_ID = {1, 2, 3, 4, 5, 6, 7, 8};
  private static final double[] BOUNDS = {5, 10, 25, 50, 100};
  private static final long[] COUNTS = {1, 2, 3, 4, 5, 6};
  private static final List<String> ID_KEYS = List.of("k8s.pod.uid");
  private static final StringBuilder MUTABLE = new StringBuilder("from a StringBuilder: é, 中, 😀");

  @Test
  void tracesOfTheSameShapeAllocateNothingButTheOutput() throws Exception {
    assertOnlyTheOutputAllocates(new TracesBuilder(), BuilderAllocationTest::traces);
  }

  @Test
  void logsOfTheSameShapeAllocateNothingButTheOutput() throws Exception {
    assertOnlyTheOutputAllocates(new LogsBuilder(), BuilderAllocationTest::logs);
  }

  @Test
  void metricsOfTheSameShapeAllocateNothingButTheOutput() throws Exception {
    assertOnlyTheOutputAllocates(new MetricsBuilder(), BuilderAllocationTest::metrics);
  }

  private static <B extends RequestBuilder> void assertOnlyTheOutputAllocates(
      B builder, Consumer<B> content) throws Exception {
    content.accept(builder);
    byte[] output = new byte[builder.encodedSize()];
    for (int i = 0; i < WARM_UP; i++) {
      builder.reset();
      content.accept(builder);
      builder.writeTo(output, 0);
      builder.toByteArray();
      builder.build();
    }
    int size = output.length;
    assertThat(size).isGreaterThan(10_000);

    // The least of a few rounds: a round may also pay for the JIT's one-off work.
    long written = Long.MAX_VALUE;
    for (int round = 0; round < ROUNDS; round++) {
      Outcome outcome =
          AllocationBound.measure(
              () -> {
                for (int i = 0; i < MEASURED; i++) {
                  builder.reset();
                  content.accept(builder);
                  builder.writeTo(output, 0);
                }
              });
      assertThat(outcome.thrown()).isNull();
      written = Math.min(written, outcome.allocatedBytes());
    }
    assertThat(written).as(MEASURED + " requests written").isZero();

    Outcome copied =
        AllocationBound.measure(
            () -> {
              for (int i = 0; i < MEASURED; i++) {
                builder.reset();
                content.accept(builder);
                builder.toByteArray();
              }
            });
    // The array and its object header.
    assertThat(copied.allocatedBytes())
        .as("toByteArray")
        .isLessThanOrEqualTo(MEASURED * (size + 32L));

    Outcome indexed =
        AllocationBound.measure(
            () -> {
              for (int i = 0; i < MEASURED; i++) {
                builder.reset();
                content.accept(builder);
                builder.build();
              }
            });
    // The array, and the index: a few exact-size tables of a few ints per item or data point.
    assertThat(indexed.allocatedBytes() / MEASURED).as("build").isLessThan(size + size / 4 + 2048);
  }

  private static void traces(TracesBuilder traces) {
    traces
        .resource()
        .schemaUrl("https://opentelemetry.io/schemas/1.37.0")
        .attributes()
        .put("service.name", "checkout")
        .put("host.name", MUTABLE);
    for (int s = 0; s < 2; s++) {
      traces.scope().name("io.opentelemetry.tomcat-10.0").version("2.20.0-alpha");
      for (int i = 0; i < 50; i++) {
        SpanWriter span =
            traces
                .span()
                .traceId(TRACE_ID)
                .spanId(SPAN_ID)
                .parentSpanId(SPAN_ID)
                .name("GET /api/v1/users/{id}")
                .kind(SpanKind.SERVER)
                .startTimeUnixNano(1_767_225_600_000_000_000L + i)
                .endTimeUnixNano(1_767_225_600_000_000_000L + 2 * i)
                .status(StatusCode.ERROR, "")
                .flags(0x301);
        span.attributes()
            .put("http.request.method", "GET")
            .put("http.response.status_code", 200 + i)
            .put("http.route", "/api/v1/users/{id}")
            .put("user_agent.original", "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Firefox/128.0")
            .put("ratio", 0.5)
            .put("sampled", true)
            .put("raw", SPAN_ID)
            .putArray("tags")
            .add("a")
            .add(i)
            .addKvList()
            .put("nested", MUTABLE)
            .end()
            .end();
        span.event().name("exception").timeUnixNano(i).attributes().put("exception.type", "E");
        span.link().traceId(TRACE_ID).spanId(SPAN_ID).attributes().put("link", i);
      }
    }
  }

  private static void logs(LogsBuilder logs) {
    logs.resource().entityRef("", "k8s.pod", ID_KEYS, ID_KEYS).attributes().put("k", "v");
    logs.scope().name("dev.sluice.syslog");
    for (int i = 0; i < 100; i++) {
      logs.logRecord()
          .timeUnixNano(i)
          .observedTimeUnixNano(i + 1)
          .severityNumber(SeverityNumber.WARN)
          .severityText("WARN")
          .traceId(TRACE_ID)
          .spanId(SPAN_ID)
          .body("a log line of some length, as syslog would carry it: " + "disk 91% full")
          .attributes()
          .put("i", i)
          .put("text", MUTABLE);
      logs.logRecord()
          .kvListBody()
          .put("message", "structured")
          .putArray("list")
          .add(1.5)
          .end()
          .end();
    }
  }

  private static void metrics(MetricsBuilder metrics) {
    metrics.resource().attributes().put("service.name", "checkout");
    metrics.scope().name("dev.sluice.spanmetrics");
    for (int m = 0; m < 10; m++) {
      MetricWriter calls =
          metrics
              .metric()
              .name("calls")
              .unit("{call}")
              .sum(AggregationTemporality.CUMULATIVE, true);
      for (int i = 0; i < 10; i++) {
        calls.numberPoint().timeUnixNano(i).intValue(i).attributes().put("span.name", "GET");
      }
      MetricWriter duration =
          metrics.metric().name("duration").unit("ms").histogram(AggregationTemporality.DELTA);
      for (int i = 0; i < 5; i++) {
        ExemplarWriter exemplar =
            duration
                .histogramPoint()
                .count(21)
                .sum(i)
                .min(0)
                .max(100)
                .buckets(BOUNDS, COUNTS)
                .exemplar()
                .doubleValue(5)
                .spanId(SPAN_ID);
        exemplar.filteredAttributes().put("k", "v");
      }
      metrics
          .metric()
          .name("size")
          .exponentialHistogram(AggregationTemporality.DELTA)
          .exponentialHistogramPoint()
          .scale(3)
          .positive(-2, COUNTS)
          .negative(1, COUNTS)
          .zeroThreshold(1e-9);
      metrics.metric().name("latency").summary().summaryPoint().count(3).sum(4).quantile(0.5, 1);
    }
  }
}
