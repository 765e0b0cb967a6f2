package dev.sluice.exporter.otlp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.ConfigBinder;
import dev.sluice.config.ConfigException;
import java.util.zip.Deflater;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code compression_params} of both OTLP exporters, bound from YAML as the collector binds it. */
class CompressionParamsTest {
  private static OtlpExporterConfig grpc(String yaml) throws ConfigException {
    return new ConfigBinder()
        .bind(
            "endpoint: collector.example.com:4317\n" + yaml,
            "otlp.yaml",
            OtlpExporterConfig.class,
            OtlpExporterConfig.DEFAULT);
  }

  private static OtlpHttpExporterConfig http(String yaml) throws ConfigException {
    return new ConfigBinder()
        .bind(
            "endpoint: http://collector.example.com:4318\n" + yaml,
            "otlphttp.yaml",
            OtlpHttpExporterConfig.class,
            OtlpHttpExporterConfig.DEFAULT);
  }

  private static String withLevel(String compression, int level) {
    return "compression: " + compression + "\ncompression_params:\n  level: " + level + "\n";
  }

  @Test
  void bindsTheLevelForTheGrpcExporter() throws ConfigException {
    OtlpExporterConfig config = grpc(withLevel("gzip", 1));

    assertThat(config.compressionParams()).isEqualTo(new CompressionParams(1));
    assertThat(config.compressionParams().levelFor("gzip")).isEqualTo(1);
  }

  @Test
  void bindsTheLevelForTheHttpExporter() throws ConfigException {
    OtlpHttpExporterConfig config = http(withLevel("zstd", 3));

    assertThat(config.compressionParams()).isEqualTo(new CompressionParams(3));
    assertThat(config.compressionParams().levelFor("zstd")).isEqualTo(3);
  }

  @Test
  void aLevelLeftOutOrZeroIsTheCompressionsDefault() throws ConfigException {
    assertThat(grpc("compression: gzip\n").compressionParams())
        .isEqualTo(CompressionParams.DEFAULT);
    assertThat(grpc("compression_params:\n").compressionParams())
        .isEqualTo(CompressionParams.DEFAULT);
    assertThat(http(withLevel("zstd", 0)).compressionParams()).isEqualTo(CompressionParams.DEFAULT);

    assertThat(CompressionParams.DEFAULT.levelFor("gzip")).isEqualTo(Deflater.DEFAULT_COMPRESSION);
    assertThat(CompressionParams.DEFAULT.levelFor("deflate"))
        .isEqualTo(Deflater.DEFAULT_COMPRESSION);
    assertThat(CompressionParams.DEFAULT.levelFor("zstd")).isEqualTo(1);
  }

  @ParameterizedTest
  @CsvSource({"gzip, -1", "gzip, 9", "zstd, 1", "zstd, 22"})
  void acceptsTheEndsOfEachRange(String compression, int level) throws ConfigException {
    assertThat(grpc(withLevel(compression, level)).compressionParams().levelFor(compression))
        .isEqualTo(level);
    assertThat(http(withLevel(compression, level)).compressionParams().levelFor(compression))
        .isEqualTo(level);
  }

  @ParameterizedTest
  @ValueSource(ints = {-1, 1, 9})
  void theHttpExporterTakesDeflateLevels(int level) throws ConfigException {
    assertThat(http(withLevel("deflate", level)).compressionParams().levelFor("deflate"))
        .isEqualTo(level);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "gzip | 10 | must be between 1 and 9 (or -1 for the default) for gzip, was 10",
        "gzip | -2 | must be between 1 and 9 (or -1 for the default) for gzip, was -2",
        "zstd | 23 | must be between 1 and 22 for zstd, was 23",
        "zstd | -1 | must be between 1 and 22 for zstd, was -1",
        "none | 1 | must be left out without compression, was 1"
      })
  void rejectsALevelTheGrpcExportersCompressionDoesNotHave(
      String compression, int level, String message) {
    assertThatThrownBy(() -> grpc(withLevel(compression, level)))
        .isInstanceOf(ConfigException.class)
        .hasMessage("otlp.yaml:4:3: compression_params.level: " + message);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "deflate | 10 | must be between 1 and 9 (or -1 for the default) for deflate, was 10",
        "gzip | 0x10 | must be between 1 and 9 (or -1 for the default) for gzip, was 16",
        "zstd | 100 | must be between 1 and 22 for zstd, was 100",
        "none | -1 | must be left out without compression, was -1"
      })
  void rejectsALevelTheHttpExportersCompressionDoesNotHave(
      String compression, String level, String message) {
    String yaml = "compression: " + compression + "\ncompression_params:\n  level: " + level + "\n";

    assertThatThrownBy(() -> http(yaml))
        .isInstanceOf(ConfigException.class)
        .hasMessage("otlphttp.yaml:4:3: compression_params.level: " + message);
  }

  @Test
  void anUnknownCompressionIsReportedAloneWhateverItsLevel() {
    assertThatThrownBy(() -> grpc(withLevel("brotli", 99)))
        .isInstanceOf(ConfigException.class)
        .hasMessage("otlp.yaml:2:1: compression: must be gzip, zstd or none, was \"brotli\"");
  }
}
