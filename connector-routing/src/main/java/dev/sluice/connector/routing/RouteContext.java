package dev.sluice.connector.routing;

import dev.sluice.ottl.OttlContext;
import dev.sluice.pdata.Signal;
import java.util.Locale;

/**
 * What a route's condition is evaluated for, and so what moves as one: a resource block with all it
 * holds, or each span, metric (with its data points), data point or log record on its own.
 */
enum RouteContext {
  RESOURCE(OttlContext.RESOURCE, null),
  SPAN(OttlContext.SPAN, Signal.TRACES),
  METRIC(OttlContext.METRIC, Signal.METRICS),
  DATAPOINT(OttlContext.DATAPOINT, Signal.METRICS),
  LOG(OttlContext.LOG, Signal.LOGS),
  REQUEST(null, null);

  private final OttlContext ottl;
  private final Signal signal;

  RouteContext(OttlContext ottl, Signal signal) {
    this.ottl = ottl;
    this.signal = signal;
  }

  /** The context as the configuration names it ({@code ""} is {@code resource}); null if none. */
  static RouteContext parse(String text) {
    if (text == null || text.isEmpty()) {
      return RESOURCE;
    }
    for (RouteContext context : values()) {
      if (context.name().equalsIgnoreCase(text.trim())) {
        return context;
      }
    }
    return null;
  }

  /** The OTTL context its conditions are compiled for; null for {@code request}. */
  OttlContext ottl() {
    return ottl;
  }

  /** Whether data of {@code signal} has items of this context. */
  boolean appliesTo(Signal data) {
    return signal == null || signal == data;
  }

  String configName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
