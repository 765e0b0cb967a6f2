package dev.sluice.processor.probabilisticsampler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ConfigProblems;
import dev.sluice.component.ConfigProblems.Problem;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProbabilisticSamplerConfigTest {
  private static List<Problem> problems(ProbabilisticSamplerConfig config) {
    ConfigProblems problems = new ConfigProblems();
    config.validate(problems);
    return problems.all();
  }

  private static ProbabilisticSamplerConfig with(
      float percent, long seed, String mode, int precision, String source) {
    return new ProbabilisticSamplerConfig(percent, seed, mode, true, precision, source, "", "");
  }

  @Test
  void defaultsAreTheCollectorsAndValid() {
    ProbabilisticSamplerConfig config = ProbabilisticSamplerConfig.DEFAULT;
    assertThat(config.samplingPercentage()).isZero();
    assertThat(config.failClosed()).isTrue();
    assertThat(config.samplingPrecision()).isEqualTo(4);
    assertThat(config.attributeSource()).isEqualTo("traceID");
    assertThat(config.effectiveMode()).isEqualTo(ProbabilisticSamplerConfig.Mode.HASH_SEED);
    assertThat(problems(config)).isEmpty();
    assertThat(problems(with(250, 0xFFFF_FFFFL, "equalizing", 14, "record"))).isEmpty();
  }

  @Test
  void reportsEveryInvalidKeyWithItsName() {
    assertThat(problems(with(-1, -1, "fast", 0, "span")))
        .extracting(Problem::path)
        .containsExactly(
            "sampling_percentage", "hash_seed", "mode", "sampling_precision", "attribute_source");
    assertThat(problems(with(Float.NaN, 1L << 32, "", 15, "traceID")))
        .extracting(Problem::path)
        .containsExactly("sampling_percentage", "hash_seed", "sampling_precision");
  }

  @Test
  void refusesAPercentageTooSmallToExpressButTakesZero() {
    assertThat(problems(with(1e-15f, 0, "", 4, "traceID")))
        .extracting(Problem::message)
        .singleElement()
        .asString()
        .contains("too small");
    assertThat(problems(with(1e-13f, 0, "", 4, "traceID"))).isEmpty();
    assertThat(problems(with(0, 0, "", 4, "traceID"))).isEmpty();
  }
}
