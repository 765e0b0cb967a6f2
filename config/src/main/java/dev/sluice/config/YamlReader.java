package dev.sluice.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import dev.sluice.config.ConfigNode.Entry;
import dev.sluice.config.ConfigNode.Mapping;
import dev.sluice.config.ConfigNode.Scalar;
import dev.sluice.config.ConfigNode.Scalar.Tag;
import dev.sluice.config.ConfigNode.Sequence;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * Reads one YAML document into {@link ConfigNode}s with their locations, over the streaming parser
 * of jackson-dataformat-yaml. Scalars are expanded with an {@link EnvExpander} (values only, not
 * keys). Anchors, aliases and merge keys ({@code <<: *defaults}) are resolved; duplicate keys are
 * errors (the first one is kept). Booleans are YAML 1.2's {@code true} and {@code false} only: a
 * {@code yes} or {@code on} is a string, as in the OpenTelemetry Collector.
 */
final class YamlReader {
  private static final YAMLFactory FACTORY =
      YAMLFactory.builder()
          .enable(YAMLParser.Feature.EMPTY_STRING_AS_NULL)
          .enable(YAMLParser.Feature.PARSE_BOOLEAN_LIKE_WORDS_AS_STRINGS)
          .build();

  private final String source;
  private final EnvExpander expander;
  private final Diagnostics diagnostics;
  private final Map<String, ConfigNode> anchors = new HashMap<>();
  private YAMLParser parser;

  YamlReader(String source, EnvExpander expander, Diagnostics diagnostics) {
    this.source = source;
    this.expander = expander;
    this.diagnostics = diagnostics;
  }

  /**
   * Reads {@code text}; an empty document is an empty mapping. Problems with values go to the
   * diagnostics; a document that is not valid YAML throws at once, since nothing after the error
   * can be read.
   */
  ConfigNode read(String text) throws ConfigException {
    try (YAMLParser p = FACTORY.createParser(text)) {
      parser = p;
      JsonToken token = p.nextToken();
      if (token == null) {
        return Mapping.empty(new Location(source, 1, 1));
      }
      ConfigNode root = readValue(token, "");
      JsonToken more = p.nextToken();
      if (more != null) {
        diagnostics.error(here(), "", "only one YAML document is allowed");
      }
      return root;
    } catch (JsonProcessingException e) {
      throw new ConfigException(List.of(syntaxProblem(e)));
    } catch (IOException e) {
      throw new IllegalStateException("reading from a string failed", e);
    }
  }

  private ConfigNode readValue(JsonToken token, String path) throws IOException {
    Location location = here();
    String anchor = parser.getObjectId();
    ConfigNode node;
    switch (token) {
      case START_OBJECT -> node = readMapping(location, path);
      case START_ARRAY -> node = readSequence(location, path);
      case VALUE_STRING -> {
        if (parser.isCurrentAlias()) {
          ConfigNode anchored = anchors.get(parser.getText());
          if (anchored == null) {
            diagnostics.error(location, path, "unknown anchor *" + parser.getText());
            return new Scalar("", Tag.NULL, null, location);
          }
          return anchored;
        }
        node = expand(parser.getText(), location, path);
      }
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> {
        String text = parser.getText();
        Number number;
        try {
          number = parser.getNumberValue();
        } catch (JsonProcessingException e) {
          number = null;
        }
        node =
            number == null
                ? new Scalar(text, Tag.STRING, null, location)
                : new Scalar(
                    text,
                    token == JsonToken.VALUE_NUMBER_INT ? Tag.INT : Tag.FLOAT,
                    number,
                    location);
      }
      case VALUE_TRUE, VALUE_FALSE -> node = new Scalar(parser.getText(), Tag.BOOL, null, location);
      case VALUE_NULL -> node = new Scalar("", Tag.NULL, null, location);
      default -> node = new Scalar(parser.getText(), Tag.STRING, null, location);
    }
    if (anchor != null) {
      anchors.put(anchor, node);
    }
    return node;
  }

  private ConfigNode expand(String text, Location location, String path) {
    EnvExpander.Expansion expansion = expander.expand(text);
    for (String warning : expansion.warnings()) {
      diagnostics.warn(location, path, warning);
    }
    for (String error : expansion.errors()) {
      diagnostics.error(location, path, error);
    }
    if (expansion.unsetReference()) {
      return new Scalar("", Tag.NULL, null, location);
    }
    return new Scalar(expansion.value(), Tag.STRING, null, location);
  }

  private Mapping readMapping(Location location, String path) throws IOException {
    Map<String, Entry> entries = new LinkedHashMap<>();
    List<Mapping> merged = new ArrayList<>();
    JsonToken token;
    while ((token = parser.nextToken()) != JsonToken.END_OBJECT) {
      String key = parser.currentName();
      Location keyLocation = here();
      String keyPath = Diagnostics.join(path, key);
      ConfigNode value = readValue(parser.nextToken(), keyPath);
      if (key.equals("<<")) {
        merge(value, keyLocation, path, merged);
        continue;
      }
      Entry first = entries.get(key);
      if (first != null) {
        diagnostics.error(
            keyLocation,
            keyPath,
            "duplicate key; it is first given at line " + first.keyLocation().line());
        continue;
      }
      entries.put(key, new Entry(key, keyLocation, value));
    }
    for (Mapping m : merged) {
      for (Entry e : m.entries()) {
        entries.putIfAbsent(e.key(), e);
      }
    }
    return new Mapping(new ArrayList<>(entries.values()), location);
  }

  /** Collects the mappings a merge key {@code <<} names: one mapping or a list of them. */
  private void merge(ConfigNode value, Location at, String path, List<Mapping> merged) {
    if (value instanceof Mapping m) {
      merged.add(m);
      return;
    }
    if (value instanceof Sequence s && s.items().stream().allMatch(i -> i instanceof Mapping)) {
      for (ConfigNode item : s.items()) {
        merged.add((Mapping) item);
      }
      return;
    }
    diagnostics.error(
        at, Diagnostics.join(path, "<<"), "a merge key takes a mapping or a list of mappings");
  }

  private Sequence readSequence(Location location, String path) throws IOException {
    List<ConfigNode> items = new ArrayList<>();
    JsonToken token;
    while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
      items.add(readValue(token, path + "[" + items.size() + "]"));
    }
    return new Sequence(items, location);
  }

  private Location here() {
    JsonLocation l = parser.currentTokenLocation();
    return new Location(source, l.getLineNr(), l.getColumnNr());
  }

  private ConfigProblem syntaxProblem(JsonProcessingException e) {
    if (e.getCause() instanceof MarkedYAMLException y && y.getProblemMark() != null) {
      Mark mark = y.getProblemMark();
      String message = y.getProblem();
      if (y.getContext() != null) {
        message = message + " (" + y.getContext() + ")";
      }
      return new ConfigProblem(
          new Location(source, mark.getLine() + 1, mark.getColumn() + 1),
          "",
          "invalid YAML: " + message);
    }
    JsonLocation l = e.getLocation();
    return new ConfigProblem(
        new Location(
            source,
            l == null ? 1 : Math.max(1, l.getLineNr()),
            l == null ? 1 : Math.max(1, l.getColumnNr())),
        "",
        "invalid YAML: " + e.getOriginalMessage());
  }
}
