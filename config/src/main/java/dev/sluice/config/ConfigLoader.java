package dev.sluice.config;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * Loads an OpenTelemetry Collector configuration file: reads the YAML, expands environment
 * variables, binds every component's section to its factory's config record, and validates the
 * whole, reporting every problem at once.
 *
 * <p>A loader is immutable; {@code with...} methods return changed copies. By default it finds
 * factories with {@link java.util.ServiceLoader} and reads the process environment.
 */
public final class ConfigLoader {
  /**
   * The largest file read: enough for a document of the reader's largest size in any UTF-8 (four
   * bytes at most per character); a larger file is refused before it is read into memory.
   */
  static final int MAX_FILE_BYTES = 4 * YamlReader.MAX_DOCUMENT_CHARS;

  private final ComponentRegistry registry;
  private final EnvExpander expander;

  /** Installed factories, process environment. */
  public ConfigLoader() {
    this(null, EnvExpander.system());
  }

  private ConfigLoader(ComponentRegistry registry, EnvExpander expander) {
    this.registry = registry;
    this.expander = expander;
  }

  /** A loader that looks factories up in {@code registry}. */
  public ConfigLoader withRegistry(ComponentRegistry registry) {
    return new ConfigLoader(Objects.requireNonNull(registry), expander);
  }

  /** A loader that reads variables with {@code environment}, which answers null when unset. */
  public ConfigLoader withEnvironment(Function<String, String> environment) {
    return new ConfigLoader(registry, new EnvExpander(environment));
  }

  /** A loader that reads variables from {@code environment} only. */
  public ConfigLoader withEnvironment(Map<String, String> environment) {
    return new ConfigLoader(registry, EnvExpander.of(environment));
  }

  /**
   * Loads the UTF-8 file at {@code file}; problems name the file as given.
   *
   * @throws ConfigException with every problem, or with one saying the file cannot be read
   */
  public CollectorConfig load(Path file) throws ConfigException {
    String source = file.toString();
    String text;
    try {
      long size = Files.size(file);
      if (size > MAX_FILE_BYTES) {
        throw fileProblem(
            source, "the file is " + size + " bytes long, over the limit of " + MAX_FILE_BYTES);
      }
      byte[] bytes = Files.readAllBytes(file);
      text = StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes)).toString();
    } catch (NoSuchFileException e) {
      throw fileProblem(source, "no such file");
    } catch (CharacterCodingException e) {
      throw fileProblem(source, "not valid UTF-8");
    } catch (IOException e) {
      throw fileProblem(source, "cannot be read: " + e.getMessage());
    }
    return load(text, source);
  }

  /**
   * Loads {@code yamlText}; {@code sourceName} names it in problems.
   *
   * @throws ConfigException with every problem
   */
  public CollectorConfig load(String yamlText, String sourceName) throws ConfigException {
    Diagnostics diagnostics = new Diagnostics();
    ConfigNode root = new YamlReader(sourceName, expander, diagnostics).read(yamlText);
    ComponentRegistry r = registry != null ? registry : ComponentRegistry.installed();
    return new ConfigAssembler(r, diagnostics).assemble(root);
  }

  private static ConfigException fileProblem(String source, String message) {
    return new ConfigException(List.of(new ConfigProblem(new Location(source, 1, 1), "", message)));
  }
}
