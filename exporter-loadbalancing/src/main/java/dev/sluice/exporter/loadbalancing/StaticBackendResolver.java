package dev.sluice.exporter.loadbalancing;

import java.util.List;
import java.util.TreeSet;
import java.util.function.Consumer;

/** {@code resolver.static}: the configured list, sorted, once. */
final class StaticBackendResolver implements BackendResolver {
  private final List<String> backends;

  StaticBackendResolver(List<String> hostnames) {
    this.backends = List.copyOf(new TreeSet<>(hostnames));
  }

  @Override
  public void start(Consumer<List<String>> listener) {
    listener.accept(backends);
  }

  @Override
  public void shutdown() {}
}
