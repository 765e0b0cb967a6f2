package dev.sluice.component;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import java.util.Collection;
import java.util.List;

/**
 * The pipelines a connector hands data to: those that list it among their receivers, of one signal.
 * Each gets its own batch of what is handed on; the answer is {@link Admission#ACCEPTED} only when
 * every one took it, else the refusal (a pipeline that took it keeps it, as when a receiver feeds
 * several pipelines).
 */
public interface ConnectorOutput {
  /** The signal of the pipelines. */
  Signal signal();

  /** The pipelines' names ({@code metrics/red}), in the order of the configuration. */
  List<String> pipelines();

  /**
   * Hands {@code batch} to every pipeline. On {@link Admission#ACCEPTED} the output owns it;
   * otherwise it is unchanged and still the caller's.
   */
  Admission consume(Batch batch);

  /**
   * Hands a request the connector built (with the data model's builders) to every pipeline, after
   * admitting it to the collector's memory budget as a receiver's request is admitted: {@link
   * Admission#FULL} when the budget has no room. It may be offered again after a refusal (a
   * pipeline that took it then gets it twice, as with a sender's retry).
   */
  Admission consume(OtlpIndex request);

  /**
   * {@link #consume(OtlpIndex)} for a request the connector built from {@code madeFrom}, a batch it
   * was handed and still holds (it lets go of it only after this call). Requests of {@code
   * madeFrom} that are logged in the write-ahead log stay owed there to the durable exporters
   * behind the connector until {@code request} is delivered or dropped for good, and are made again
   * after a restart if it was not; their bytes need not stay in memory meanwhile. The default
   * forgets where {@code request} came from, which only an output that no logged request reaches
   * may do.
   */
  default Admission consume(OtlpIndex request, Batch madeFrom) {
    return consume(request);
  }

  /**
   * The output to {@code pipelines} only, for a connector that routes.
   *
   * @throws IllegalArgumentException when a name is not one of {@link #pipelines()}
   */
  ConnectorOutput to(Collection<String> pipelines);
}
