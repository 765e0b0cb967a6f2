package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.CollectorConfig;
import dev.sluice.config.ConfigLoader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every example in config/examples loads with this build's components and wires up. */
class ExampleConfigsTest {
  static Stream<Path> examples() throws IOException {
    try (Stream<Path> files = Files.list(Path.of("..", "config", "examples"))) {
      return files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList().stream();
    }
  }

  @Test
  void thereAreExamples() throws IOException {
    assertThat(examples()).hasSizeGreaterThanOrEqualTo(4);
  }

  @ParameterizedTest
  @MethodSource("examples")
  void loadsAndBuilds(Path example) throws Exception {
    CollectorConfig config = new ConfigLoader().load(example);

    assertThat(config.pipelines()).isNotEmpty();
    assertThat(config.warnings()).as(config.warnings().toString()).isEmpty();
    Collector collector = new Collector(config, Collector.Options.defaults());
    assertThat(collector.state()).isEqualTo(Collector.State.STARTING);
  }

  @Test
  void theEmbeddedDefaultConfigLoads() throws Exception {
    CollectorConfig config = Main.load(null);

    assertThat(config.pipelines()).hasSize(3);
    assertThat(config.used(dev.sluice.component.ComponentKind.EXPORTER))
        .extracting(c -> c.id().type())
        .isEqualTo(List.of("debug"));
  }
}
