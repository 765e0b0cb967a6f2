package dev.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Every contender of the builder benchmark writes the bytes protobuf-java writes. */
class BuilderBenchmarkTest {
  @Test
  void everyContenderWritesTheSameRequest() {
    BuilderBenchmark benchmark = new BuilderBenchmark();
    benchmark.spans = 100;
    benchmark.setup();
    byte[] expected = benchmark.protobufJava();

    assertThat(benchmark.sluice()).isEqualTo(expected.length);
    assertThat(benchmark.sluiceOutput()).isEqualTo(expected);
    assertThat(benchmark.sluiceToByteArray()).isEqualTo(expected);
    assertThat(benchmark.sluiceBuild().unitCount()).isEqualTo(100);
    assertThat(benchmark.sluiceBuild().sourceLength()).isEqualTo(expected.length);
  }
}
