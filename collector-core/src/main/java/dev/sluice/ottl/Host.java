package dev.sluice.ottl;

/**
 * The message a statement writes into: the item, its metric's header, one of its span's events, its
 * block's headers, or the cache.
 */
enum Host {
  /** The span, log record or data point visited. */
  ITEM,
  /** The metric visited (its fields other than data points). */
  METRIC,
  /** The span event visited: re-encoded inside its span, whose other bytes are copied. */
  SPANEVENT,
  RESOURCE,
  SCOPE,
  /** The statements' per-item {@code cache} map. */
  CACHE
}
