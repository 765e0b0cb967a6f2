package dev.sluice.connector.routing;

import dev.sluice.component.ConfigProblems;
import dev.sluice.ottl.OttlCondition;
import dev.sluice.ottl.OttlException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A route's condition, compiled for its context: from a {@code condition}, or from a {@code
 * statement} {@code route() where <condition>} ({@code route()} alone matches everything), as the
 * Collector turns a condition into that statement. Immutable and shared.
 */
final class RouteCondition {
  private static final Pattern ROUTE_CALL = Pattern.compile("\\s*route\\s*\\(\\s*\\)\\s*");
  private static final Pattern EDITOR_CALL = Pattern.compile("\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*\\(");
  private static final String WHERE = "where";

  private final String text;
  private final OttlCondition condition;

  private RouteCondition(String text, OttlCondition condition) {
    this.text = text;
    this.condition = condition;
  }

  /** The text as configured, for messages. */
  String text() {
    return text;
  }

  /** The compiled condition; null when every item matches ({@code route()} without where). */
  OttlCondition condition() {
    return condition;
  }

  /** Compiles a {@code condition}; null after reporting why it does not compile. */
  static RouteCondition compileCondition(
      String text, RouteContext context, ConfigProblems problems) {
    try {
      return new RouteCondition(text, OttlCondition.parse(text, context.ottl()));
    } catch (OttlException e) {
      problems.add(
          "", "invalid OTTL condition at " + where(e.line(), e.column()) + ": " + e.reason());
      return null;
    }
  }

  /** Compiles a {@code statement}; null after reporting why it does not compile. */
  static RouteCondition compileStatement(
      String text, RouteContext context, ConfigProblems problems) {
    Matcher route = ROUTE_CALL.matcher(text);
    if (!route.lookingAt()) {
      Matcher editor = EDITOR_CALL.matcher(text);
      problems.add(
          "",
          "a routing statement is route() where <condition>, or route() alone"
              + (editor.lookingAt() && !editor.group(1).equals("route")
                  ? "; editors such as " + editor.group(1) + "() are not supported here"
                  : ""));
      return null;
    }
    int at = route.end();
    if (at == text.length()) {
      return new RouteCondition(text, null);
    }
    int afterWhere = at + WHERE.length();
    if (!text.startsWith(WHERE, at)
        || (afterWhere < text.length()
            && Character.isJavaIdentifierPart(text.charAt(afterWhere)))) {
      int[] position = position(text, at);
      problems.add(
          "",
          "invalid OTTL statement at "
              + where(position[0], position[1])
              + ": expected where and a condition after route()");
      return null;
    }
    try {
      return new RouteCondition(
          text, OttlCondition.parse(text.substring(afterWhere), context.ottl()));
    } catch (OttlException e) {
      // The condition's position is turned into one in the statement.
      int[] start = position(text, afterWhere);
      int line = start[0] + e.line() - 1;
      int column = e.line() == 1 ? start[1] + e.column() - 1 : e.column();
      problems.add("", "invalid OTTL statement at " + where(line, column) + ": " + e.reason());
      return null;
    }
  }

  /** Compiles what {@code route} holds, which its validation passed. */
  static RouteCondition of(RoutingConfig.Route route, RouteContext context) {
    ConfigProblems problems = new ConfigProblems();
    boolean fromCondition = route.condition() != null && !route.condition().isEmpty();
    RouteCondition compiled =
        fromCondition
            ? compileCondition(route.condition(), context, problems)
            : compileStatement(route.statement(), context, problems);
    if (compiled == null) {
      throw new IllegalArgumentException(
          "routing configuration not validated: " + problems.all().get(0).message());
    }
    return compiled;
  }

  /** The Collector's key for a route: a condition is the statement {@code route() where} it. */
  static String statementOf(RoutingConfig.Route route) {
    return route.condition() != null && !route.condition().isEmpty()
        ? "route() where " + route.condition()
        : route.statement();
  }

  private static String where(int line, int column) {
    return line == 1 ? "column " + column : "line " + line + ", column " + column;
  }

  /** Line and column (from 1) of character {@code index} of {@code text}. */
  private static int[] position(String text, int index) {
    int line = 1;
    int column = 1;
    for (int i = 0; i < index; i++) {
      if (text.charAt(i) == '\n') {
        line++;
        column = 1;
      } else {
        column++;
      }
    }
    return new int[] {line, column};
  }
}
