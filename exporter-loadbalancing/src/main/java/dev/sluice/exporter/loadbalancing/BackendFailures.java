package dev.sluice.exporter.loadbalancing;

import dev.sluice.component.ExportResult;

/**
 * Whose fault a failed send to a backend is. Only a refusal of the request itself as malformed
 * (gRPC {@code INVALID_ARGUMENT}, HTTP 400) is the data's: every backend of the pool runs the same
 * validation, so another would refuse it too, and it is counted as rejected. Every other failure is
 * the backend's, whatever the OTLP rules say about retrying it against the same destination: a
 * backend that wants credentials the tier does not send ({@code UNAUTHENTICATED}, {@code
 * PERMISSION_DENIED}), runs another version ({@code UNIMPLEMENTED}), sits behind a proxy that fails
 * during a rollout (HTTP 500 arrives as {@code UNKNOWN}, 404 as {@code UNIMPLEMENTED}) or is full
 * ({@code RESOURCE_EXHAUSTED} without a retry delay) says nothing about the data, which goes to the
 * next backend on the ring.
 *
 * <p>The backends' exporter (the {@code otlp} exporter) marks those answers {@link
 * ExportResult#malformed()}; {@code LoadBalancingRefusalsTest} holds that to a real server's {@code
 * INVALID_ARGUMENT}.
 */
final class BackendFailures {
  private BackendFailures() {}

  /** Whether a failure says the data is malformed, so that no backend would take it. */
  static boolean isTheDatasFault(ExportResult result) {
    return result.outcome() == ExportResult.Outcome.PERMANENT && result.malformed();
  }
}
