package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.ConfigNode.Mapping;
import dev.sluice.config.ConfigNode.Scalar;
import dev.sluice.config.ConfigNode.Scalar.Tag;
import dev.sluice.config.ConfigNode.Sequence;
import java.util.Map;
import org.junit.jupiter.api.Test;

class YamlReaderTest {
  private final Diagnostics diagnostics = new Diagnostics();

  private Mapping read(String yaml) throws ConfigException {
    return (Mapping)
        new YamlReader("c.yaml", EnvExpander.of(Map.of("PORT", "4317")), diagnostics).read(yaml);
  }

  private static ConfigNode at(Mapping m, String key) {
    return m.entry(key).orElseThrow().value();
  }

  @Test
  void keepsLinesAndColumnsOfKeysAndValues() throws ConfigException {
    Mapping root = read("exporters:\n  otlp:\n    timeout: 5s\n");
    Mapping otlp = (Mapping) at((Mapping) at(root, "exporters"), "otlp");
    ConfigNode.Entry timeout = otlp.entry("timeout").orElseThrow();
    assertThat(timeout.keyLocation()).isEqualTo(new Location("c.yaml", 3, 5));
    assertThat(timeout.value().location()).isEqualTo(new Location("c.yaml", 3, 14));
    assertThat(((Scalar) timeout.value()).text()).isEqualTo("5s");
  }

  @Test
  void tagsScalarsAsYaml12Does() throws ConfigException {
    Mapping root =
        read("a: 5\nb: 1.5\nc: true\nd: yes\ne:\nf: ''\ng: \"7\"\nh: 0x1F\ni: null\nj: off\n");
    assertThat(((Scalar) at(root, "a")).tag()).isEqualTo(Tag.INT);
    assertThat(((Scalar) at(root, "b")).tag()).isEqualTo(Tag.FLOAT);
    assertThat(((Scalar) at(root, "c")).tag()).isEqualTo(Tag.BOOL);
    assertThat(((Scalar) at(root, "d")).tag()).isEqualTo(Tag.STRING);
    assertThat(((Scalar) at(root, "e")).tag()).isEqualTo(Tag.NULL);
    assertThat(((Scalar) at(root, "f")).tag()).isEqualTo(Tag.STRING);
    assertThat(((Scalar) at(root, "g")).tag()).isEqualTo(Tag.STRING);
    assertThat(((Scalar) at(root, "h")).number().intValue()).isEqualTo(31);
    assertThat(((Scalar) at(root, "i")).tag()).isEqualTo(Tag.NULL);
    assertThat(((Scalar) at(root, "j")).text()).isEqualTo("off");
  }

  @Test
  void expandsValuesButNotKeys() throws ConfigException {
    Mapping root = read("${PORT}: ${PORT}\nlist: [\"${env:PORT}\", $$x]\n");
    assertThat(((Scalar) at(root, "${PORT}")).text()).isEqualTo("4317");
    Sequence list = (Sequence) at(root, "list");
    assertThat(list.items()).extracting(n -> ((Scalar) n).text()).containsExactly("4317", "$x");
  }

  @Test
  void aLoneUnsetReferenceBecomesNullWithALocatedWarning() throws ConfigException {
    Mapping root = read("a:\n  b: ${env:NOPE}\n");
    assertThat(((Scalar) at((Mapping) at(root, "a"), "b")).isNull()).isTrue();
    assertThat(diagnostics.warnings())
        .extracting(ConfigProblem::toString)
        .containsExactly(
            "c.yaml:2:6: a.b: environment variable NOPE is not set: ${env:NOPE} leaves the value"
                + " out, so the default applies");
  }

  @Test
  void resolvesAnchorsAliasesAndMergeKeys() throws ConfigException {
    Mapping root =
        read(
            """
            base: &base
              endpoint: a:1
              timeout: 5s
            copy: *base
            merged:
              <<: *base
              timeout: 9s
            """);
    assertThat(at(root, "copy")).isSameAs(at(root, "base"));
    Mapping merged = (Mapping) at(root, "merged");
    assertThat(merged.keys()).containsExactly("timeout", "endpoint");
    assertThat(((Scalar) at(merged, "timeout")).text()).isEqualTo("9s");
    assertThat(diagnostics.errorCount()).isZero();
  }

  @Test
  void reportsDuplicateKeysAndKeepsTheFirst() throws ConfigException {
    Mapping root = read("receivers:\n  otlp: {}\n  otlp: 5\n");
    assertThat(at((Mapping) at(root, "receivers"), "otlp")).isInstanceOf(Mapping.class);
    assertThat(diagnostics.errors())
        .extracting(ConfigProblem::toString)
        .containsExactly("c.yaml:3:3: receivers.otlp: duplicate key; it is first given at line 2");
  }

  @Test
  void anEmptyDocumentIsAnEmptyMapping() throws ConfigException {
    assertThat(read("# nothing\n").isEmpty()).isTrue();
  }

  @Test
  void invalidYamlThrowsWithItsLocation() {
    assertThatThrownBy(() -> read("a: b\n  c: d\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("c.yaml:2:4: invalid YAML: mapping values are not allowed here");
  }

  @Test
  void reportsASecondDocument() throws ConfigException {
    read("a: 1\n---\nb: 2\n");
    assertThat(diagnostics.errors())
        .extracting(ConfigProblem::message)
        .containsExactly("only one YAML document is allowed");
  }
}
