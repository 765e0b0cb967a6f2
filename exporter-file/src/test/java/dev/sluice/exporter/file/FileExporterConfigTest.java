package dev.sluice.exporter.file;

import static dev.sluice.exporter.file.TestExporters.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.component.QueueConfig;
import dev.sluice.component.RetryConfig;
import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigProblem;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The {@code file} exporter's keys, bound and validated from YAML as the collector does it. */
class FileExporterConfigTest {
  @Test
  void takesTheCollectorsDefaults() throws ConfigException {
    FileExporterConfig config = config("path: ./out.json");

    assertThat(config.path()).isEqualTo("./out.json");
    assertThat(config.format()).isEqualTo(FileExporterConfig.Format.JSON);
    assertThat(config.compressed()).isFalse();
    assertThat(config.rotation()).isNull();
    assertThat(config.effectiveFlushInterval()).isEqualTo(Duration.ofSeconds(1));
    assertThat(config.append()).isFalse();
    assertThat(config.groupBy()).isNull();
    assertThat(config.sendingQueue()).isEqualTo(QueueConfig.DISABLED);
    assertThat(config.retryOnFailure()).isEqualTo(RetryConfig.DEFAULT);
  }

  @Test
  void anEmptyRotationSectionTurnsRotationOnWithItsDefaults() throws ConfigException {
    assertThat(config("path: a\nrotation:").rotation())
        .isEqualTo(new FileExporterConfig.Rotation(100, 0, 100, false));
    assertThat(config("path: a\nrotation:\n  max_megabytes: 10\n  localtime: true").rotation())
        .isEqualTo(new FileExporterConfig.Rotation(10, 0, 100, true));
    assertThat(config("path: a\nrotation:\n  max_megabytes: 1").rotation().maxBytes())
        .isEqualTo(1024 * 1024);
  }

  @Test
  void bindsEveryKey() throws ConfigException {
    FileExporterConfig config =
        config(
            String.join(
                "\n",
                "path: /var/log/otel.pb",
                "format: proto",
                "compression: zstd",
                "flush_interval: 250ms",
                "rotation:",
                "  max_megabytes: 5",
                "  max_days: 3",
                "  max_backups: 7",
                "group_by:",
                "  enabled: false",
                "  resource_attribute: service.name",
                "retry_on_failure:",
                "  enabled: false"));

    assertThat(config.format()).isEqualTo(FileExporterConfig.Format.PROTO);
    assertThat(config.compressed()).isTrue();
    assertThat(config.effectiveFlushInterval()).isEqualTo(Duration.ofMillis(250));
    assertThat(config.rotation()).isEqualTo(new FileExporterConfig.Rotation(5, 3, 7, false));
    assertThat(config.groupBy().resourceAttribute()).isEqualTo("service.name");
    assertThat(config.retryOnFailure().enabled()).isFalse();
  }

  @Test
  void aFlushIntervalOfZeroMeansTheDefaultAsInTheCollector() throws ConfigException {
    assertThat(config("path: a\nflush_interval: 0").effectiveFlushInterval())
        .isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void compressionNoneAndEmptyMeanUncompressed() throws ConfigException {
    assertThat(config("path: a\ncompression: none").compressed()).isFalse();
    assertThat(config("path: a\ncompression: ''").compressed()).isFalse();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          format: json                                   | path                     | is required
          path: a\\ncompression: gzip                    | compression              | must be zstd or none, was "gzip"
          path: a\\nformat: xml                          | format                   | xml
          path: a\\nflush_interval: -1s                  | flush_interval           | must not be negative
          path: a\\nappend: true\\ncompression: zstd     | append                   | cannot be true together with compression: zstd
          path: a\\nappend: true\\nrotation:             | append                   | cannot be true together with rotation
          path: a\\ngroup_by:\\n  enabled: true          | group_by                 | is not supported
          path: a\\nrotation:\\n  max_megabytes: 0       | rotation.max_megabytes   | must be at least 1, was 0
          path: a\\nrotation:\\n  max_days: -1           | rotation.max_days        | must not be negative
          path: a\\nrotation:\\n  max_backups: -2        | rotation.max_backups     | must not be negative
          path: a\\nencoding: otlp_json                  | encoding                 | encoding
          """)
  void refusesWithTheKeyAndWhatIsWrong(String yaml, String key, String message) {
    assertThatThrownBy(() -> config(yaml.replace("\\n", "\n")))
        .isInstanceOfSatisfying(
            ConfigException.class,
            e ->
                assertThat(e.problems())
                    .anySatisfy(
                        problem -> {
                          assertThat(problem.path()).isEqualTo(key);
                          assertThat(problem.message()).contains(message);
                        }));
  }

  @Test
  void reportsEveryProblemAtOnce() {
    assertThatThrownBy(() -> config("compression: lz4\nflush_interval: -2s"))
        .isInstanceOfSatisfying(
            ConfigException.class,
            e ->
                assertThat(e.problems())
                    .extracting(ConfigProblem::path)
                    .contains("path", "compression", "flush_interval"));
  }
}
