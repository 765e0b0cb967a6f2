package dev.sluice.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The code that docs/writing-a-component.md shows is the code these tests run. */
class ExamplesInDocsTest {
  private static final Path DOC = Path.of("..", "docs", "writing-a-component.md");
  private static final Path SOURCES = Path.of("src", "test", "java", "dev", "sluice", "examples");
  private static final Path RESOURCE_PROCESSOR =
      Path.of("..", "processor-resource", "src", "main", "java", "dev", "sluice", "processor");

  @ParameterizedTest
  @CsvSource({
    "SpanRenameConfig.java, public record SpanRenameConfig(",
    "SpanRenameProcessor.java, final class SpanRenameProcessor ",
  })
  void theDocShowsTheExampleFromItsDeclarationToItsEnd(String file, String declaration)
      throws IOException {
    String source = Files.readString(SOURCES.resolve(file));
    String shown = source.substring(source.indexOf(declaration)).strip();

    assertThat(Files.readString(DOC)).contains(shown);
  }

  @Test
  void theDocShowsTheResourceProcessorAsItIs() throws IOException {
    String source =
        Files.readString(RESOURCE_PROCESSOR.resolve(Path.of("resource", "ResourceProcessor.java")));
    String shown = source.substring(source.indexOf("final class ResourceProcessor ")).strip();

    assertThat(Files.readString(DOC)).contains(shown);
  }
}
