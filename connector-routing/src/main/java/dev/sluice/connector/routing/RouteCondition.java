package dev.sluice.connector.routing;

import dev.sluice.component.ConfigProblems;
import dev.sluice.ottl.OttlCondition;
import dev.sluice.ottl.OttlException;
import dev.sluice.pdata.RequestMetadata;
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

  // request["<name>"] == "<value>" or != "<value>": the request context's one form, as the
  // Collector's connector reads it (no escapes: the value is what stands between the quotes).
  private static final Pattern REQUEST_FORM =
      Pattern.compile("\\s*request\\s*\\[\\s*\"([^\"]*)\"\\s*]\\s*(==|!=)\\s*\"([^\"]*)\"\\s*");
  static final String REQUEST_GRAMMAR =
      "a request condition is request[\"<name>\"] == \"<value>\" or request[\"<name>\"] !="
          + " \"<value>\"";

  private final String text;
  private final OttlCondition condition;

  // A request condition: the metadata key, the value, and whether a value must equal it (==) or
  // differ from it (!=); null key for an OTTL condition.
  private final String requestKey;
  private final String requestValue;
  private final boolean requestEquals;

  private RouteCondition(String text, OttlCondition condition) {
    this(text, condition, null, null, true);
  }

  private RouteCondition(
      String text,
      OttlCondition condition,
      String requestKey,
      String requestValue,
      boolean requestEquals) {
    this.text = text;
    this.condition = condition;
    this.requestKey = requestKey;
    this.requestValue = requestValue;
    this.requestEquals = requestEquals;
  }

  /**
   * Whether a request with {@code metadata} matches this request condition: some value of the key
   * equals the value ({@code ==}) or differs from it ({@code !=}); a request without the key
   * matches neither.
   */
  boolean matches(RequestMetadata metadata) {
    for (String value : metadata.values(requestKey)) {
      if (value.equals(requestValue) == requestEquals) {
        return true;
      }
    }
    return false;
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
    if (context == RouteContext.REQUEST) {
      Matcher form = REQUEST_FORM.matcher(text);
      if (!form.matches()) {
        problems.add("", "invalid request condition: " + REQUEST_GRAMMAR);
        return null;
      }
      if (form.group(1).isEmpty()) {
        problems.add("", "invalid request condition: the metadata key is empty");
        return null;
      }
      return new RouteCondition(
          text, null, form.group(1), form.group(3), form.group(2).equals("=="));
    }
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
    if (context == RouteContext.REQUEST) {
      problems.add(
          "", "the request context takes a condition, not a statement: " + REQUEST_GRAMMAR);
      return null;
    }
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
