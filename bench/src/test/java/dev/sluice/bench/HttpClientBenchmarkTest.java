package dev.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every HTTP client contender delivers the whole body, twice on one connection, and gets 200 (the
 * exporter: success).
 */
class HttpClientBenchmarkTest {
  @ParameterizedTest
  @CsvSource({
    "jdk, gzip",
    "okhttp, gzip",
    "okhttpNagle, none",
    "netty, gzip",
    "netty, none",
    "exporter, gzip",
    "exporter, none"
  })
  void contendersPostTheRequestAndGet200(String client, String encoding) throws Exception {
    HttpClientBenchmark benchmark = new HttpClientBenchmark();
    benchmark.client = client;
    benchmark.encoding = encoding;
    benchmark.serverInProcess = true;
    benchmark.setup();
    try {
      byte[] request = SpanShapes.requestBytes(SpanShapes.DEFAULT_SEED, 1000);
      if ("gzip".equals(encoding)) {
        assertThat(new GZIPInputStream(new ByteArrayInputStream(benchmark.body)).readAllBytes())
            .isEqualTo(request);
        assertThat(benchmark.body.length).isLessThan(request.length / 2);
      } else {
        assertThat(benchmark.body).isEqualTo(request);
      }

      assertThat(benchmark.post()).isEqualTo(200);
      assertThat(benchmark.post()).isEqualTo(200);
      if ("exporter".equals(client) && "gzip".equals(encoding)) {
        // The exporter compresses the batch it marshals itself (the server checks each body
        // against its Content-Length).
        assertThat(benchmark.serverBodyBytes()).isBetween(2L * 1000, 2L * request.length / 2);
      } else {
        assertThat(benchmark.serverBodyBytes()).isEqualTo(2L * benchmark.body.length);
      }
    } finally {
      benchmark.tearDown();
    }
  }
}
