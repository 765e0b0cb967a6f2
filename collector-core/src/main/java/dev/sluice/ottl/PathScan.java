package dev.sluice.ottl;

import java.util.Set;

/** Collects the contexts that paths name by their first segment, for context inference. */
final class PathScan {
  private PathScan() {}

  static void scan(Ast.Node node, String text, Set<OttlContext> named) throws OttlException {
    if (node instanceof Ast.Path path) {
      if (Paths.isCache(path) || Paths.isConverterName(path)) {
        return;
      }
      OttlContext context = named(path.segments().get(0).name());
      if (context == null) {
        throw OttlException.at(
            text,
            path.at(),
            "'"
                + OttlException.shown(path.describe())
                + "' names no context: without a context key, each path starts with one"
                + " (resource, scope, span, spanevent, metric, datapoint, log), such as span.name");
      }
      named.add(context);
    } else if (node instanceof Ast.Call call) {
      for (Ast.Node argument : call.arguments()) {
        scan(argument, text, named);
      }
    } else if (node instanceof Ast.ListLiteral list) {
      for (Ast.Node element : list.elements()) {
        scan(element, text, named);
      }
    } else if (node instanceof Ast.Comparison comparison) {
      scan(comparison.left(), text, named);
      scan(comparison.right(), text, named);
    } else if (node instanceof Ast.And and) {
      for (Ast.Node term : and.terms()) {
        scan(term, text, named);
      }
    } else if (node instanceof Ast.Or or) {
      for (Ast.Node term : or.terms()) {
        scan(term, text, named);
      }
    } else if (node instanceof Ast.Not not) {
      scan(not.operand(), text, named);
    }
  }

  private static OttlContext named(String first) {
    return switch (first) {
      case "resource" -> OttlContext.RESOURCE;
      case "scope", "instrumentation_scope" -> OttlContext.SCOPE;
      case "span" -> OttlContext.SPAN;
      case "spanevent" -> OttlContext.SPANEVENT;
      case "metric" -> OttlContext.METRIC;
      case "datapoint" -> OttlContext.DATAPOINT;
      case "log" -> OttlContext.LOG;
      default -> null;
    };
  }
}
