package dev.sluice.component;

/**
 * Start and stop. The collector starts exporters before processors and receivers, and stops in the
 * reverse order, so that nothing is sent to a component that is not running.
 */
public interface Lifecycle {
  /** Starts the component; a failure stops the collector from starting. */
  default void start() throws Exception {}

  /**
   * Starts the component with access to the running extensions (its authenticator, for one).
   * Components that need none keep {@link #start()}; the collector calls this one.
   */
  default void start(Host host) throws Exception {
    start();
  }

  /**
   * Stops the component, finishing what it holds (flushing, draining) until {@code deadlineNanos}
   * (a {@link System#nanoTime()} value); anything left then is dropped and counted.
   */
  default void shutdown(long deadlineNanos) throws InterruptedException {}
}
