package dev.sluice.ottl;

import java.util.Locale;

/**
 * What a statement is evaluated over, as OTTL's contexts: the paths without a prefix read this
 * item, and the prefixed ones its resource, scope and (for span events and data points) the span or
 * metric around it.
 */
public enum OttlContext {
  RESOURCE,
  SCOPE,
  SPAN,
  SPANEVENT,
  METRIC,
  DATAPOINT,
  LOG;

  /** The name used as a path prefix ({@code span.name}) and in messages. */
  public String pathName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
