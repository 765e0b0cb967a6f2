package dev.sluice.receiver.otlp;

import dev.sluice.component.Admission;
import dev.sluice.component.RequestConsumer;
import dev.sluice.component.telemetry.ReceiverTelemetry;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.RequestMetadata;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import java.util.Map;

/**
 * What both transports do with a request body: validate and index it, offer it to the pipelines,
 * count the outcome. Thread-safe; each thread indexes with its own indexer.
 */
final class RequestHandler {
  /** The outcome of one request, for the transport to turn into its own status. */
  enum Outcome {
    ACCEPTED,
    MALFORMED,
    FULL,
    CLOSED,
    NO_PIPELINE,
    /** A pipeline failed on the request (a processor threw): not worth sending again. */
    FAILED
  }

  /** An outcome with its details: the validator's message, or the retry delay to suggest. */
  record Result(Outcome outcome, String message, long retryDelayMillis) {}

  /**
   * The {@code Export*ServiceResponse} of an accepted request. Sluice admits or refuses a request
   * whole, so success is the empty response: no {@code partial_success}, which the OTLP
   * specification reads as everything accepted.
   */
  static final byte[] EMPTY_RESPONSE = new byte[0];

  private static final Result ACCEPTED = new Result(Outcome.ACCEPTED, "", 0);

  static final String FAILED_MESSAGE =
      "the collector failed to process this request (see its log); sending it again would fail"
          + " again";

  private final Map<Signal, RequestConsumer> consumers;
  private final ReceiverTelemetry telemetry;
  private final ThreadLocal<OtlpIndexer> indexers = ThreadLocal.withInitial(OtlpIndexer::new);

  RequestHandler(Map<Signal, RequestConsumer> consumers, ReceiverTelemetry telemetry) {
    this.consumers = Map.copyOf(consumers);
    this.telemetry = telemetry;
  }

  boolean accepts(Signal signal) {
    return signal != null && consumers.containsKey(signal);
  }

  /** What the signal's pipelines would answer now, judged before a request is read. */
  Admission admission(Signal signal) {
    RequestConsumer consumer = signal == null ? null : consumers.get(signal);
    return consumer == null ? Admission.ACCEPTED : consumer.admission();
  }

  /**
   * The delay to suggest to a refused sender of this signal; for null (a request to no signal's
   * path), the longest any of the pipelines asks for.
   */
  long retryDelayMillis(Signal signal) {
    RequestConsumer consumer = signal == null ? null : consumers.get(signal);
    if (consumer != null) {
      return consumer.retryDelayMillis();
    }
    long longest = 0;
    for (RequestConsumer any : consumers.values()) {
      longest = Math.max(longest, any.retryDelayMillis());
    }
    return longest;
  }

  /**
   * Handles a whole protobuf request body and tells {@code then} the result once: at once, or later
   * from another thread when a pipeline answers late (a durable one, once the request is in its
   * log). The pipelines own {@code body} from the call on; the caller must not change it. {@code
   * metadata} is what the request's sender said beside it, kept with the request.
   */
  void handle(
      Signal signal,
      byte[] body,
      RequestMetadata metadata,
      java.util.function.Consumer<Result> then) {
    RequestConsumer consumer = consumers.get(signal);
    if (consumer == null) {
      then.accept(
          new Result(
              Outcome.NO_PIPELINE,
              "this receiver is not in a "
                  + signal.name().toLowerCase(java.util.Locale.ROOT)
                  + " pipeline",
              0));
      return;
    }
    OtlpIndex request;
    try {
      request = indexers.get().index(signal, body);
    } catch (MalformedOtlpException e) {
      then.accept(new Result(Outcome.MALFORMED, e.getMessage(), 0));
      return;
    }
    request.metadata(metadata);
    long units = request.unitCount();
    consumer.consume(
        request,
        admission -> {
          telemetry.record(signal, admission, units);
          then.accept(resultOf(admission, consumer));
        });
  }

  private static Result resultOf(Admission admission, RequestConsumer consumer) {
    switch (admission) {
      case ACCEPTED:
        return ACCEPTED;
      case FULL:
        return new Result(Outcome.FULL, EdgeAdmission.FULL_MESSAGE, consumer.retryDelayMillis());
      case FAILED:
        return new Result(Outcome.FAILED, FAILED_MESSAGE, 0);
      default:
        return new Result(
            Outcome.CLOSED, EdgeAdmission.CLOSED_MESSAGE, consumer.retryDelayMillis());
    }
  }
}
