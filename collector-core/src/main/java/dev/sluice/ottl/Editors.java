package dev.sluice.ottl;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The editors this build has, and the checks of their arguments when a statement is compiled: how
 * many, that the first is a path this context can write, and that each other is of the type the
 * editor takes (literals where the Collector needs them at start: patterns, limits, key lists).
 */
final class Editors {
  /** Makes an editor from its call, compiling its arguments with {@code compiler}. */
  interface Factory {
    Editor make(Ast.Call call, Compiler compiler, OttlContext context, String text)
        throws OttlException;
  }

  static final Map<String, Factory> ALL = all();

  private Editors() {}

  static String names() {
    return String.join(", ", ALL.keySet());
  }

  private static Map<String, Factory> all() {
    Map<String, Factory> m = new LinkedHashMap<>();
    m.put("set", Editors::set);
    m.put(
        "delete_key",
        (call, compiler, context, text) -> {
          arity(call, 2, text);
          Target target = mapTarget(call, context, text);
          Expr key = compiler.compile(call.arguments().get(1));
          requireType(call, 1, key, OttlType.STRING, text);
          return new MapEditors.DeleteKey(target, key);
        });
    m.put(
        "delete_matching_keys",
        (call, compiler, context, text) -> {
          arity(call, 2, text);
          return new MapEditors.MatchingKeys(
              mapTarget(call, context, text), pattern(call, 1, text), false);
        });
    m.put(
        "keep_keys",
        (call, compiler, context, text) -> {
          arity(call, 2, text);
          return new MapEditors.KeepKeys(mapTarget(call, context, text), strings(call, 1, text));
        });
    m.put(
        "keep_matching_keys",
        (call, compiler, context, text) -> {
          arity(call, 2, text);
          return new MapEditors.MatchingKeys(
              mapTarget(call, context, text), pattern(call, 1, text), true);
        });
    m.put(
        "truncate_all",
        (call, compiler, context, text) -> {
          arity(call, 2, text);
          Target target = mapTarget(call, context, text);
          long limit = integer(call, 1, text);
          if (limit < 0) {
            throw OttlException.at(
                text, call.arguments().get(1).at(), "the limit of truncate_all cannot be negative");
          }
          return new MapEditors.TruncateAll(target, limit);
        });
    m.put(
        "limit",
        (call, compiler, context, text) -> {
          arity(call, 3, text);
          Target target = mapTarget(call, context, text);
          long limit = integer(call, 1, text);
          if (limit < 0) {
            throw OttlException.at(
                text, call.arguments().get(1).at(), "the limit of limit cannot be negative");
          }
          List<String> priority = strings(call, 2, text);
          if (priority.size() > limit) {
            throw OttlException.at(
                text,
                call.arguments().get(2).at(),
                "more priority keys (" + priority.size() + ") than the limit (" + limit + ")");
          }
          return new MapEditors.Limit(target, limit, priority);
        });
    m.put(
        "replace_pattern",
        (call, compiler, context, text) -> {
          arity(call, 3, 5, text);
          Target target =
              Targets.resolve(context, call.arguments().get(0), text, call.name(), false);
          return new StringEditors.ReplacePattern(
              target, pattern(call, 1, text), replacement(call, 2, 3, text));
        });
    m.put(
        "replace_all_patterns",
        (call, compiler, context, text) -> {
          arity(call, 4, 6, text);
          Target target = mapTarget(call, context, text);
          String mode = string(call, 1, text);
          if (!mode.equals("key") && !mode.equals("value")) {
            throw OttlException.at(
                text,
                call.arguments().get(1).at(),
                "the mode of replace_all_patterns is \"key\" or \"value\", found \""
                    + OttlException.shown(mode)
                    + "\"");
          }
          return new MapEditors.ReplaceAllPatterns(
              target, mode.equals("key"), pattern(call, 2, text), replacement(call, 3, 4, text));
        });
    m.put(
        "replace_match",
        (call, compiler, context, text) -> {
          arity(call, 3, 5, text);
          Target target =
              Targets.resolve(context, call.arguments().get(0), text, call.name(), false);
          return new StringEditors.ReplaceMatch(
              target,
              StringEditors.glob(string(call, 1, text)),
              string(call, 2, text),
              function(call, 3, text, null));
        });
    m.put(
        "merge_maps",
        (call, compiler, context, text) -> {
          arity(call, 3, text);
          Target target = mapTarget(call, context, text);
          Expr source = compiler.compile(call.arguments().get(1));
          if (source.type != OttlType.MAP && source.type != OttlType.ANY) {
            throw OttlException.at(
                text,
                call.arguments().get(1).at(),
                "merge_maps takes a map to merge, found a " + source.type.label);
          }
          String strategy = string(call, 2, text);
          MapEditors.MergeMaps.Strategy chosen;
          switch (strategy) {
            case "insert" -> chosen = MapEditors.MergeMaps.Strategy.INSERT;
            case "update" -> chosen = MapEditors.MergeMaps.Strategy.UPDATE;
            case "upsert" -> chosen = MapEditors.MergeMaps.Strategy.UPSERT;
            default ->
                throw OttlException.at(
                    text,
                    call.arguments().get(2).at(),
                    "the strategy of merge_maps is \"insert\", \"update\" or \"upsert\", found \""
                        + OttlException.shown(strategy)
                        + "\"");
          }
          return new MapEditors.MergeMaps(target, source, chosen);
        });
    return Collections.unmodifiableMap(m);
  }

  private static Editor set(Ast.Call call, Compiler compiler, OttlContext context, String text)
      throws OttlException {
    arity(call, 2, text);
    Target target = Targets.resolve(context, call.arguments().get(0), text, "set", false);
    Expr value = compiler.compile(call.arguments().get(1));
    OttlType wanted = target.type;
    OttlType given = value.type;
    boolean fits =
        given == OttlType.ANY || given == OttlType.NIL || wanted == OttlType.ANY || wanted == given;
    if (!fits) {
      throw OttlException.at(
          text,
          call.arguments().get(1).at(),
          "set("
              + OttlException.shown(target.path)
              + ", ...) takes a "
              + wanted.label
              + ", found a "
              + given.label);
    }
    return new Editor.Set(target, value);
  }

  private static Target mapTarget(Ast.Call call, OttlContext context, String text)
      throws OttlException {
    return Targets.resolve(context, call.arguments().get(0), text, call.name(), true);
  }

  static void arity(Ast.Call call, int count, String text) throws OttlException {
    int given = call.arguments().size();
    if (given != count) {
      throw OttlException.at(
          text,
          call.at(),
          call.name()
              + " takes "
              + count
              + (count == 1 ? " argument" : " arguments")
              + ", found "
              + given);
    }
  }

  /** Between {@code least} and {@code most} arguments. */
  static void arity(Ast.Call call, int least, int most, String text) throws OttlException {
    int given = call.arguments().size();
    if (given < least || given > most) {
      throw OttlException.at(
          text,
          call.at(),
          call.name()
              + " takes "
              + least
              + " to "
              + most
              + " arguments (the last two, a function and a format, optional), found "
              + given);
    }
  }

  /**
   * The optional {@code function} (at {@code index}) and {@code replacementFormat} (after it) of a
   * replace editor, with {@code template} the replacement in Java's syntax.
   */
  private static Replacement function(Ast.Call call, int index, String text, String template)
      throws OttlException {
    List<Ast.Node> arguments = call.arguments();
    if (arguments.size() <= index) {
      return new Replacement(template, null, null, null);
    }
    Ast.Node node = arguments.get(index);
    String name = null;
    if (node instanceof Ast.EnumSymbol symbol) {
      name = symbol.name();
    } else if (node instanceof Ast.Path path && Paths.isConverterName(path)) {
      name = path.segments().get(0).name();
    }
    if (name == null) {
      throw OttlException.at(
          text,
          node.at(),
          "the function of "
              + call.name()
              + " is a converter's name, such as SHA256; this build takes "
              + String.join(", ", Replacement.FUNCTIONS));
    }
    if (name.equals("FNV")) {
      throw OttlException.at(
          text,
          node.at(),
          "FNV returns an int, and the function of "
              + call.name()
              + " must return a string (the Collector fails every such call); this build takes "
              + String.join(", ", Replacement.FUNCTIONS));
    }
    if (!Replacement.FUNCTIONS.contains(name)) {
      throw OttlException.at(
          text,
          node.at(),
          "'"
              + OttlException.shown(name)
              + "' cannot be the function of "
              + call.name()
              + ", which takes a converter of one string that returns a string: "
              + String.join(", ", Replacement.FUNCTIONS));
    }
    Replacement.Input input = new Replacement.Input();
    Expr converter =
        Converters.ALL
            .get(name)
            .make(
                new Ast.Call(name, List.of(new Ast.Literal("", node.at())), List.of(), node.at()),
                List.of(input),
                text);
    String format = null;
    if (arguments.size() > index + 1) {
      format = string(call, index + 1, text);
      int verb = format.indexOf(Replacement.FORMAT_VERB);
      boolean single =
          verb >= 0
              && format.indexOf('%', verb + Replacement.FORMAT_VERB.length()) < 0
              && format.lastIndexOf('%', verb - 1) < 0;
      if (!single) {
        throw OttlException.at(
            text,
            arguments.get(index + 1).at(),
            "the format of "
                + call.name()
                + " holds one %s, where the function's result goes, and no other %");
      }
    }
    return new Replacement(template, converter, input, format);
  }

  private static void requireType(
      Ast.Call call, int index, Expr argument, OttlType type, String text) throws OttlException {
    if (argument.type != type && argument.type != OttlType.ANY) {
      throw OttlException.at(
          text,
          call.arguments().get(index).at(),
          "argument "
              + (index + 1)
              + " of "
              + call.name()
              + " must be a "
              + type.label
              + ", found a "
              + argument.type.label);
    }
  }

  private static String string(Ast.Call call, int index, String text) throws OttlException {
    Ast.Node node = call.arguments().get(index);
    if (node instanceof Ast.Literal literal && literal.value() instanceof String s) {
      return s;
    }
    throw OttlException.at(
        text,
        node.at(),
        "argument " + (index + 1) + " of " + call.name() + " must be a string literal");
  }

  private static long integer(Ast.Call call, int index, String text) throws OttlException {
    Ast.Node node = call.arguments().get(index);
    if (node instanceof Ast.Literal literal && literal.value() instanceof Long l) {
      return l;
    }
    throw OttlException.at(
        text,
        node.at(),
        "argument " + (index + 1) + " of " + call.name() + " must be an int literal");
  }

  private static List<String> strings(Ast.Call call, int index, String text) throws OttlException {
    Ast.Node node = call.arguments().get(index);
    if (!(node instanceof Ast.ListLiteral list)) {
      throw OttlException.at(
          text,
          node.at(),
          "argument "
              + (index + 1)
              + " of "
              + call.name()
              + " must be a list of string literals, such as [\"a\", \"b\"]");
    }
    List<String> out = new ArrayList<>();
    for (Ast.Node element : list.elements()) {
      if (!(element instanceof Ast.Literal literal && literal.value() instanceof String s)) {
        throw OttlException.at(
            text, element.at(), "the list of " + call.name() + " holds string literals only");
      }
      out.add(s);
    }
    return out;
  }

  private static Pattern pattern(Ast.Call call, int index, String text) throws OttlException {
    String regex = string(call, index, text);
    try {
      return Pattern.compile(regex);
    } catch (PatternSyntaxException e) {
      throw OttlException.at(
          text,
          call.arguments().get(index).at(),
          "invalid regular expression: " + e.getDescription().toLowerCase(Locale.ROOT));
    }
  }

  /** The replacement at {@code index}, and the optional function and format from {@code next}. */
  private static Replacement replacement(Ast.Call call, int index, int next, String text)
      throws OttlException {
    String template = StringEditors.replacement(string(call, index, text));
    return function(call, next, text, template);
  }
}
