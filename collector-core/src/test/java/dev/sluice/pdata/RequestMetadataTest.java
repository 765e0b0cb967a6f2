package dev.sluice.pdata;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The metadata a request came with: lookups in any case, and the memory it is counted for. */
class RequestMetadataTest {
  @Test
  void keysMatchInAnyCaseAndValuesKeepTheirOrder() {
    RequestMetadata metadata =
        RequestMetadata.of(Map.of("X-Tenant", List.of("acme"), "x-tenant", List.of("globex")));

    assertThat(metadata.values("X-TENANT")).containsExactlyInAnyOrder("acme", "globex");
    assertThat(metadata.first("other")).isNull();
    assertThat(RequestMetadata.NONE.values("x-tenant")).isEmpty();
    assertThat(RequestMetadata.of(Map.of())).isSameAs(RequestMetadata.NONE);
  }

  @Test
  void aRequestIsCountedWithTheMetadataKeptWithIt() throws Exception {
    byte[] body =
        ExportTraceServiceRequest.newBuilder()
            .addResourceSpans(
                ResourceSpans.newBuilder()
                    .addScopeSpans(
                        ScopeSpans.newBuilder().addSpans(Span.newBuilder().setName("s"))))
            .build()
            .toByteArray();
    OtlpIndex request = new OtlpIndexer().index(Signal.TRACES, body);
    long bare = request.retainedBytes();
    String large = "x".repeat(8000);

    request.metadata(RequestMetadata.of(Map.of("x-large", List.of(large, large))));

    // A tiny request with large headers holds more than its bytes: all of it is counted.
    assertThat(request.retainedBytes() - bare).isGreaterThanOrEqualTo(2L * 2 * large.length());
    assertThat(request.metadata().first("X-Large")).isEqualTo(large);
  }
}
