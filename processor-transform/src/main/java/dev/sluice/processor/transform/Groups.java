package dev.sluice.processor.transform;

import dev.sluice.component.ConfigProblems;
import dev.sluice.ottl.ErrorMode;
import dev.sluice.ottl.OttlCondition;
import dev.sluice.ottl.OttlContext;
import dev.sluice.ottl.OttlException;
import dev.sluice.ottl.OttlStatement;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads one signal's statement list into compiled groups, as the Collector does: a string is a
 * group of one statement whose context is inferred from its paths; a mapping is a group with its
 * {@code context} (inferred when left out), {@code conditions}, {@code statements} and {@code
 * error_mode}. Problems are reported at their place in the list.
 */
final class Groups {
  /** A signal's key and the contexts its statements may use, lowest level first. */
  record Signal(String key, List<OttlContext> contexts) {}

  static final Signal TRACES =
      new Signal(
          "trace_statements",
          List.of(
              OttlContext.SPANEVENT, OttlContext.SPAN, OttlContext.SCOPE, OttlContext.RESOURCE));
  static final Signal METRICS =
      new Signal(
          "metric_statements",
          List.of(
              OttlContext.DATAPOINT, OttlContext.METRIC, OttlContext.SCOPE, OttlContext.RESOURCE));
  static final Signal LOGS =
      new Signal(
          "log_statements", List.of(OttlContext.LOG, OttlContext.SCOPE, OttlContext.RESOURCE));

  private static final Set<String> GROUP_KEYS =
      Set.of("context", "conditions", "statements", "error_mode", "shared_cache");

  private Groups() {}

  /** Compiles the list of {@code signal}; problems go to {@code problems} under its key. */
  static List<StatementGroup> compile(
      Signal signal, List<Object> entries, ErrorMode errorMode, ConfigProblems problems) {
    List<StatementGroup> groups = new ArrayList<>();
    ConfigProblems under = problems.under(signal.key());
    for (int i = 0; i < entries.size(); i++) {
      Object entry = entries.get(i);
      ConfigProblems at = under.item(i);
      if (entry instanceof String statement) {
        StatementGroup group =
            group(signal, null, errorMode, List.of(), List.of(statement), false, at, true);
        if (group != null) {
          groups.add(group);
        }
      } else if (entry instanceof Map<?, ?> map) {
        StatementGroup group = mapped(signal, map, errorMode, at);
        if (group != null) {
          groups.add(group);
        }
      } else {
        at.add("", "expected an OTTL statement, or a mapping with context and statements");
      }
    }
    return groups;
  }

  private static StatementGroup mapped(
      Signal signal, Map<?, ?> map, ErrorMode defaultMode, ConfigProblems at) {
    boolean ok = true;
    for (Object key : map.keySet()) {
      if (!GROUP_KEYS.contains(key)) {
        at.add(String.valueOf(key), "unknown key; a group has " + String.join(", ", GROUP_KEYS));
        ok = false;
      }
    }
    OttlContext context = null;
    Object contextName = map.get("context");
    if (contextName != null) {
      context = contextNamed(signal, String.valueOf(contextName));
      if (context == null) {
        at.add(
            "context",
            "unknown context '"
                + contextName
                + "'; "
                + signal.key()
                + " take "
                + names(signal.contexts()));
        ok = false;
      }
    }
    ErrorMode mode = defaultMode;
    Object modeName = map.get("error_mode");
    if (modeName != null) {
      try {
        mode = ErrorMode.valueOf(String.valueOf(modeName).toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        at.add("error_mode", "must be one of propagate, ignore, silent");
        ok = false;
      }
    }
    boolean sharedCache = false;
    Object shared = map.get("shared_cache");
    if (shared instanceof Boolean b) {
      sharedCache = b;
    } else if (shared != null) {
      at.add("shared_cache", "must be true or false");
      ok = false;
    }
    List<String> conditions = strings(map.get("conditions"), "conditions", at);
    List<String> statements = strings(map.get("statements"), "statements", at);
    if (conditions == null || statements == null || !ok) {
      return null;
    }
    if (statements.isEmpty()) {
      at.add("statements", "a group needs at least one statement");
      return null;
    }
    return group(signal, context, mode, conditions, statements, sharedCache, at, false);
  }

  private static List<String> strings(Object value, String key, ConfigProblems at) {
    if (value == null) {
      return List.of();
    }
    if (!(value instanceof List<?> list)) {
      at.add(key, "expected a list of strings");
      return null;
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < list.size(); i++) {
      if (!(list.get(i) instanceof String s)) {
        at.under(key).item(i).add("", "expected a string");
        return null;
      }
      out.add(s);
    }
    return out;
  }

  /** Infers the context when none is given, then compiles each condition and statement in it. */
  private static StatementGroup group(
      Signal signal,
      OttlContext given,
      ErrorMode mode,
      List<String> conditions,
      List<String> statements,
      boolean sharedCache,
      ConfigProblems at,
      boolean flat) {
    OttlContext context = given;
    if (context == null) {
      context = infer(signal, conditions, statements, at, flat);
      if (context == null) {
        return null;
      }
    }
    List<OttlCondition> compiledConditions = new ArrayList<>();
    boolean ok = true;
    for (int i = 0; i < conditions.size(); i++) {
      try {
        compiledConditions.add(OttlCondition.parse(conditions.get(i), context));
      } catch (OttlException e) {
        at.under("conditions").item(i).add("", describe(e, "condition"));
        ok = false;
      }
    }
    List<OttlStatement> compiled = new ArrayList<>();
    for (int i = 0; i < statements.size(); i++) {
      try {
        compiled.add(OttlStatement.parse(statements.get(i), context));
      } catch (OttlException e) {
        (flat ? at : at.under("statements").item(i)).add("", describe(e, "statement"));
        ok = false;
      }
    }
    return ok ? new StatementGroup(context, mode, compiledConditions, compiled, sharedCache) : null;
  }

  /**
   * The Collector's inference: the lowest-level context that any path names (a log, data point,
   * metric, span event or span below scope, scope below resource); every path must name one of the
   * signal's contexts.
   */
  private static OttlContext infer(
      Signal signal,
      List<String> conditions,
      List<String> statements,
      ConfigProblems at,
      boolean flat) {
    Set<OttlContext> named = EnumSet.noneOf(OttlContext.class);
    boolean ok = true;
    for (int i = 0; i < conditions.size(); i++) {
      ok &= scan(signal, conditions.get(i), true, named, at.under("conditions").item(i));
    }
    for (int i = 0; i < statements.size(); i++) {
      ok &=
          scan(signal, statements.get(i), false, named, flat ? at : at.under("statements").item(i));
    }
    if (!ok) {
      return null;
    }
    for (OttlContext candidate : signal.contexts()) {
      if (named.contains(candidate)) {
        return candidate;
      }
    }
    at.add(
        "",
        "cannot infer the context: no path names one; start the paths with "
            + names(signal.contexts())
            + " (span.name, resource.attributes[\"k\"]), or give the group a context");
    return null;
  }

  private static boolean scan(
      Signal signal, String text, boolean condition, Set<OttlContext> named, ConfigProblems at) {
    try {
      Set<OttlContext> found =
          condition ? OttlCondition.contextsNamed(text) : OttlStatement.contextsNamed(text);
      for (OttlContext c : found) {
        if (!signal.contexts().contains(c)) {
          at.add(
              "",
              "'"
                  + c.pathName()
                  + "' paths are not available in "
                  + signal.key()
                  + ", which take "
                  + names(signal.contexts()));
          return false;
        }
      }
      named.addAll(found);
      return true;
    } catch (OttlException e) {
      at.add("", describe(e, condition ? "condition" : "statement"));
      return false;
    }
  }

  private static OttlContext contextNamed(Signal signal, String name) {
    for (OttlContext c : signal.contexts()) {
      if (c.pathName().equals(name.toLowerCase(Locale.ROOT))) {
        return c;
      }
    }
    return null;
  }

  private static String names(List<OttlContext> contexts) {
    List<String> out = new ArrayList<>();
    for (int i = contexts.size() - 1; i >= 0; i--) {
      out.add(contexts.get(i).pathName());
    }
    return String.join(", ", out);
  }

  /** An OTTL error as a configuration problem: where in the statement, then what. */
  static String describe(OttlException e, String what) {
    String where =
        e.line() == 1 ? "column " + e.column() : "line " + e.line() + ", column " + e.column();
    return "invalid OTTL " + what + " at " + where + " of the " + what + ": " + e.reason();
  }
}
