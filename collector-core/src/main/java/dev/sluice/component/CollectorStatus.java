package dev.sluice.component;

/** The collector's state as extensions (the health check) report it. */
public interface CollectorStatus {
  enum State {
    STARTING,
    RUNNING,
    STOPPING,
    STOPPED
  }

  State state();
}
