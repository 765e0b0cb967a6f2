package dev.sluice.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
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
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * Reads one YAML document into {@link ConfigNode}s with their locations, over the streaming parser
 * of jackson-dataformat-yaml. Scalars are expanded with an {@link EnvExpander} (values only, not
 * keys). Anchors, aliases and merge keys ({@code <<: *defaults}) are resolved; duplicate keys are
 * errors (the first one is kept). Booleans are YAML 1.2's {@code true} and {@code false} only: a
 * {@code yes} or {@code on} is a string, as in the OpenTelemetry Collector.
 *
 * <p>What a document may make the loader do is bounded by its size, whatever it holds: at most
 * {@link #MAX_DOCUMENT_CHARS} characters, mappings and sequences nested at most {@link
 * #MAX_NESTING_DEPTH} deep, and aliases that stand for at most {@link #ALIAS_NODES_PER_NODE} nodes
 * (beyond the alias itself) per node written in the document plus {@link #ALIAS_NODES_FIXED} (an
 * alias is shared, not copied, but whatever walks the tree walks it once per alias: a "billion
 * laughs" document of a few lines would otherwise stand for billions of nodes). Passing a bound
 * stops the read with a {@link ConfigException} at the place where it happened. Key paths are built
 * only for the problems reported, so that deep or long keys do not cost a path per node.
 */
final class YamlReader {
  /** The longest document: far above any collector configuration. */
  static final int MAX_DOCUMENT_CHARS = 1 << 20;

  /** The deepest nesting of mappings and sequences (a collector configuration needs about 8). */
  static final int MAX_NESTING_DEPTH = 64;

  /** Nodes that aliases may stand for, per node written in the document ... */
  static final int ALIAS_NODES_PER_NODE = 10;

  /** ... and beyond that. */
  static final int ALIAS_NODES_FIXED = 1000;

  private static final YAMLFactory FACTORY =
      YAMLFactory.builder()
          .enable(YAMLParser.Feature.EMPTY_STRING_AS_NULL)
          .enable(YAMLParser.Feature.PARSE_BOOLEAN_LIKE_WORDS_AS_STRINGS)
          .loaderOptions(loaderOptions())
          .streamReadConstraints(
              // Backstops behind the reader's own checks, which come first and say where.
              StreamReadConstraints.builder()
                  .maxNestingDepth(MAX_NESTING_DEPTH + 1)
                  .maxDocumentLength(MAX_DOCUMENT_CHARS + 1L)
                  .build())
          .build();

  /**
   * snakeyaml's own limits: only the code point limit applies to the event parser that jackson uses
   * (the alias and nesting limits are the composer's, which is not used); it is set above the
   * reader's document limit so that the reader's clearer message comes first.
   */
  private static LoaderOptions loaderOptions() {
    LoaderOptions options = new LoaderOptions();
    options.setCodePointLimit(MAX_DOCUMENT_CHARS + 1);
    options.setNestingDepthLimit(MAX_NESTING_DEPTH + 1);
    return options;
  }

  private final String source;
  private final EnvExpander expander;
  private final Diagnostics diagnostics;
  private final Map<String, Anchored> anchors = new HashMap<>();
  private YAMLParser parser;
  private int depth;

  /** Nodes read from the document, and nodes that aliases stand for (counted per use). */
  private long documentNodes;

  private long aliasNodes;

  /** An anchored node and how many nodes it stands for, aliases inside it included. */
  private record Anchored(ConfigNode node, long nodes) {}

  /** Thrown inside the reader when a bound is passed; read() turns it into a ConfigException. */
  private static final class Bound extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final transient ConfigProblem problem;

    Bound(ConfigProblem problem) {
      super(problem.message(), null, false, false);
      this.problem = problem;
    }
  }

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
    if (text.length() > MAX_DOCUMENT_CHARS) {
      throw new ConfigException(
          List.of(
              new ConfigProblem(
                  new Location(source, 1, 1),
                  "",
                  "the document is "
                      + text.length()
                      + " characters long, over the limit of "
                      + MAX_DOCUMENT_CHARS)));
    }
    try (YAMLParser p = FACTORY.createParser(text)) {
      parser = p;
      JsonToken token = p.nextToken();
      if (token == null) {
        return Mapping.empty(new Location(source, 1, 1));
      }
      ConfigNode root = readValue(token, KeyPath.ROOT);
      JsonToken more = p.nextToken();
      if (more != null) {
        diagnostics.error(here(), "", "only one YAML document is allowed");
      }
      return root;
    } catch (Bound e) {
      throw new ConfigException(List.of(e.problem));
    } catch (JsonProcessingException e) {
      throw new ConfigException(List.of(syntaxProblem(e)));
    } catch (IOException e) {
      throw new IllegalStateException("reading from a string failed", e);
    }
  }

  private ConfigNode readValue(JsonToken token, KeyPath path) throws IOException {
    Location location = here();
    String anchor = parser.getObjectId();
    long nodesBefore = documentNodes + aliasNodes;
    documentNodes++;
    ConfigNode node;
    switch (token) {
      case START_OBJECT -> node = readMapping(location, path);
      case START_ARRAY -> node = readSequence(location, path);
      case VALUE_STRING -> {
        if (parser.isCurrentAlias()) {
          Anchored anchored = anchors.get(parser.getText());
          if (anchored == null) {
            diagnostics.error(
                location, path.toString(), "unknown anchor *" + ConfigNode.cut(parser.getText()));
            return new Scalar("", Tag.NULL, null, location);
          }
          countAlias(anchored, location, path);
          return anchored.node();
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
      anchors.put(anchor, new Anchored(node, documentNodes + aliasNodes - nodesBefore));
    }
    return node;
  }

  /** Counts what an alias adds beyond the one node written for it; fails past the bound. */
  private void countAlias(Anchored anchored, Location location, KeyPath path) {
    aliasNodes += anchored.nodes() - 1;
    long allowed = ALIAS_NODES_PER_NODE * documentNodes + ALIAS_NODES_FIXED;
    if (aliasNodes > allowed) {
      throw new Bound(
          new ConfigProblem(
              location,
              path.toString(),
              "aliases stand for more than "
                  + allowed
                  + " nodes ("
                  + ALIAS_NODES_PER_NODE
                  + " per node of the document plus "
                  + ALIAS_NODES_FIXED
                  + "): the document expands too much"));
    }
  }

  private void enter(Location location, KeyPath path) {
    if (++depth > MAX_NESTING_DEPTH) {
      throw new Bound(
          new ConfigProblem(
              location,
              path.toString(),
              "mappings and sequences nest more than " + MAX_NESTING_DEPTH + " deep"));
    }
  }

  private ConfigNode expand(String text, Location location, KeyPath keyPath) {
    EnvExpander.Expansion expansion = expander.expand(text);
    String path =
        expansion.warnings().isEmpty() && expansion.errors().isEmpty() ? "" : keyPath.toString();
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

  private Mapping readMapping(Location location, KeyPath path) throws IOException {
    enter(location, path);
    Map<String, Entry> entries = new LinkedHashMap<>();
    List<Mapping> merged = new ArrayList<>();
    JsonToken token;
    while ((token = parser.nextToken()) != JsonToken.END_OBJECT) {
      String key = parser.currentName();
      Location keyLocation = here();
      KeyPath keyPath = path.key(key);
      ConfigNode value = readValue(parser.nextToken(), keyPath);
      if (key.equals("<<")) {
        merge(value, keyLocation, path, merged);
        continue;
      }
      Entry first = entries.get(key);
      if (first != null) {
        diagnostics.error(
            keyLocation,
            keyPath.toString(),
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
    depth--;
    return new Mapping(new ArrayList<>(entries.values()), location);
  }

  /** Collects the mappings a merge key {@code <<} names: one mapping or a list of them. */
  private void merge(ConfigNode value, Location at, KeyPath path, List<Mapping> merged) {
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
        at, path.key("<<").toString(), "a merge key takes a mapping or a list of mappings");
  }

  private Sequence readSequence(Location location, KeyPath path) throws IOException {
    enter(location, path);
    List<ConfigNode> items = new ArrayList<>();
    JsonToken token;
    while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
      items.add(readValue(token, path.index(items.size())));
    }
    depth--;
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
