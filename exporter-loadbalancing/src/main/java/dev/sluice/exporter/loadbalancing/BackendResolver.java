package dev.sluice.exporter.loadbalancing;

import java.util.List;
import java.util.function.Consumer;

/**
 * Where the backends come from. A resolver tells its listener the whole list, sorted and without
 * duplicates, once at start and again whenever it changes.
 */
interface BackendResolver {
  /** Starts resolving; the first list reaches {@code listener} before this returns, if any. */
  void start(Consumer<List<String>> listener) throws Exception;

  /** Stops resolving; the listener hears no more. */
  void shutdown();
}
