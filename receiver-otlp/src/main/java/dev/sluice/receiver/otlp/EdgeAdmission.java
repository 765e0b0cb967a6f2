package dev.sluice.receiver.otlp;

import dev.sluice.component.Admission;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Signal;

/**
 * Decides at a request's headers, before its body is read, whether to refuse it: when the pipelines
 * have no room ({@link dev.sluice.component.RequestConsumer#admission()}) or this transport's
 * {@link InFlightBytes} are at their bound. A request refused here costs neither the reading nor
 * the decompressing nor the validating of its body, which is what an overloaded collector cannot
 * afford; the answer is the same retryable refusal as after indexing (gRPC UNAVAILABLE with
 * RetryInfo, HTTP 503 with Retry-After, with the pipelines' retry delay). The check after indexing
 * stays: the budget can fill while a body is being read. Thread-safe and allocation-free when the
 * request is let through.
 */
final class EdgeAdmission {
  /** Why a request was refused at its headers, with the answer's message and retry delay. */
  record Refusal(String message, long retryDelayMillis) {}

  static final String FULL_MESSAGE = "the collector is full, retry later";
  static final String CLOSED_MESSAGE = "the collector is shutting down, retry later";
  static final String IN_FLIGHT_MESSAGE =
      "the receiver holds max_in_flight_bytes_mib of requests being received, retry later";

  private final RequestHandler handler;
  private final InFlightBytes inFlight;
  private final MetricRegistry.Counter refusedFull;
  private final MetricRegistry.Counter refusedClosed;
  private final MetricRegistry.Counter refusedInFlight;

  EdgeAdmission(
      RequestHandler handler,
      InFlightBytes inFlight,
      ComponentSettings settings,
      String transport) {
    this.handler = handler;
    this.inFlight = inFlight;
    MetricRegistry metrics = settings.metrics();
    String receiver = settings.id().toString();
    this.refusedFull = refusedCounter(metrics, receiver, transport, "pipelines_full");
    this.refusedClosed = refusedCounter(metrics, receiver, transport, "shutting_down");
    this.refusedInFlight = refusedCounter(metrics, receiver, transport, "in_flight_bytes");
    metrics.gauge(
        "sluice_receiver_in_flight_bytes",
        "Bytes of request bodies being received, not yet handed to the pipelines",
        inFlight::bytes,
        "receiver",
        receiver,
        "transport",
        transport);
    metrics.gauge(
        "sluice_receiver_in_flight_peak_bytes",
        "The highest sluice_receiver_in_flight_bytes since the start",
        inFlight::peakBytes,
        "receiver",
        receiver,
        "transport",
        transport);
    metrics.gauge(
        "sluice_receiver_in_flight_limit_bytes",
        "The bound on bytes of request bodies being received (max_in_flight_bytes_mib)",
        inFlight::maxBytes,
        "receiver",
        receiver,
        "transport",
        transport);
  }

  private static MetricRegistry.Counter refusedCounter(
      MetricRegistry metrics, String receiver, String transport, String reason) {
    return metrics.counter(
        "sluice_receiver_refused_unread_requests",
        "Requests refused before their bodies were read whole: at their headers, or when they took"
            + " the bytes in flight past their bound",
        "receiver",
        receiver,
        "transport",
        transport,
        "reason",
        reason);
  }

  InFlightBytes inFlight() {
    return inFlight;
  }

  /**
   * The refusal for a request of this signal whose headers have arrived, or null to read it. A
   * signal no pipeline takes is let through, to get its own answer.
   */
  Refusal atHeaders(Signal signal) {
    if (!handler.accepts(signal)) {
      return null;
    }
    Admission admission = handler.admission(signal);
    if (admission == Admission.CLOSED) {
      refusedClosed.increment();
      return new Refusal(CLOSED_MESSAGE, handler.retryDelayMillis(signal));
    }
    if (admission == Admission.FULL) {
      refusedFull.increment();
      return new Refusal(FULL_MESSAGE, handler.retryDelayMillis(signal));
    }
    if (inFlight.full()) {
      refusedInFlight.increment();
      return new Refusal(IN_FLIGHT_MESSAGE, handler.retryDelayMillis(signal));
    }
    return null;
  }

  /** The refusal for a body that took the in-flight bytes past their bound while being read. */
  Refusal overshot(Signal signal) {
    refusedInFlight.increment();
    return new Refusal(IN_FLIGHT_MESSAGE, handler.retryDelayMillis(signal));
  }
}
