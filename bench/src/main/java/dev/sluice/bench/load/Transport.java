package dev.sluice.bench.load;

import dev.sluice.pdata.Signal;

/** Sends encoded OTLP requests; thread-safe. */
public interface Transport extends AutoCloseable {
  /**
   * Sends {@code body} as an export request of {@code signal}, without waiting. {@code done} is
   * called exactly once, on some thread, with {@code null} for success or a short error code (a
   * gRPC status code name, {@code HTTP 503}, an exception class name).
   */
  void send(Signal signal, byte[] body, Done done);

  /** Completion of one request. */
  @FunctionalInterface
  interface Done {
    void completed(String error);
  }

  @Override
  void close();
}
