package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.sun.management.ThreadMXBean;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.ItemVisitor;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.edit.AttributeActions;
import dev.sluice.pdata.edit.AttributeValue;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Applying attribute actions allocates nothing per item once the rule's buffers have grown: hash,
 * extract, pattern delete, from_attribute and string-to-int conversion included. Measured in bytes
 * allocated on the calling thread around warm rewrites, not in time.
 */
class AttributeActionsAllocationTest {
  private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();
  private static final int SPANS = 1000;
  private static final int WARM_UP_ROUNDS = 200;
  private static final int ROUNDS = 3;

  @BeforeAll
  static void allocationIsMeasurable() {
    assertThat(THREADS.isThreadAllocatedMemorySupported()).isTrue();
    THREADS.setThreadAllocatedMemoryEnabled(true);
  }

  private static KeyValue kv(String key, String value) {
    return KeyValue.newBuilder()
        .setKey(key)
        .setValue(AnyValue.newBuilder().setStringValue(value))
        .build();
  }

  private static byte[] request() {
    ScopeSpans.Builder scope = ScopeSpans.newBuilder();
    for (int i = 0; i < SPANS; i++) {
      scope.addSpans(
          Span.newBuilder()
              .setTraceId(ByteString.copyFrom(new byte[16]))
              .setSpanId(ByteString.copyFrom(new byte[8]))
              .setName("GET /api/users")
              .addAllAttributes(
                  List.of(
                      kv("http.method", "GET"),
                      kv("http.target", "/api/v1/users/" + i),
                      kv("user", "user-é-" + i),
                      kv("retries", Integer.toString(i % 7)),
                      kv("debug.a", "x"),
                      kv("debug.b", "y"))));
    }
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(ResourceSpans.newBuilder().addScopeSpans(scope))
        .build()
        .toByteArray();
  }

  @Test
  void rewritingAThousandSpansWithEveryKindOfActionAllocatesNothing() throws Exception {
    AttributeActions actions =
        AttributeActions.builder()
            .upsert("env", AttributeValue.string("prod"))
            .insertFrom("method.copy", "http.method")
            .hash("user", null)
            .extract(
                "http.target",
                Pattern.compile("^/api/(v\\d+)/(\\w+)/(\\d+)"),
                List.of("version", "resource", "id"))
            .convert("retries", AttributeActions.Conversion.INT)
            .delete(null, Pattern.compile("^debug\\."))
            .build();
    AttributeActionsRule rule = new AttributeActionsRule(actions);
    MessageRewriter rewriter = new MessageRewriter();
    ProtoWriter out = new ProtoWriter();
    OtlpIndex index = new OtlpIndexer().index(Signal.TRACES, request());
    Batch batch = Batch.of(index);
    long[] changed = {0};
    ItemVisitor visitor =
        item -> {
          if (rule.rewrite(
              item.array(),
              item.offset(),
              item.length(),
              OtlpFields.Span.ATTRIBUTES,
              rewriter,
              out)) {
            changed[0]++;
          }
        };
    for (int i = 0; i < WARM_UP_ROUNDS; i++) {
      batch.visit(visitor);
    }
    long least = Long.MAX_VALUE;
    for (int round = 0; round < ROUNDS; round++) {
      long before = THREADS.getCurrentThreadAllocatedBytes();
      batch.visit(visitor);
      least = Math.min(least, THREADS.getCurrentThreadAllocatedBytes() - before);
    }
    batch.clear();

    assertThat(changed[0]).isEqualTo((long) SPANS * (WARM_UP_ROUNDS + ROUNDS));
    assertThat(actions.unconvertedCount()).isZero();
    assertThat(least).as("bytes allocated rewriting %d spans", SPANS).isLessThan(1024);
  }
}
