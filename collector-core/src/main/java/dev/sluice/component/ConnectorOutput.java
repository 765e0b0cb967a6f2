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
   * What a connector that folds many batches into the data it makes (aggregates, flushes on a
   * timer) has made its next request from so far: the logged requests among them stay owed in the
   * write-ahead log while they are only in the connector's state. Used under the connector's own
   * lock; each method is called while the caller holds what it names.
   */
  interface Sources {
    /** Adds the requests of {@code batch}, which the caller still holds (let go of after this). */
    void add(Batch batch);

    /**
     * Adds what {@code other} (of the same output) holds owed, which it keeps owed meanwhile: the
     * caller may release {@code other} after this. For a connector that keeps several {@code
     * Sources} (by age, say) and hands some of them on together.
     */
    void addAll(Sources other);

    /**
     * Lets go of them: the data made from them was handed on ({@link #consume(OtlpIndex, Sources)}
     * took it, and keeps them owed until it is delivered) or dropped for good. Not called when it
     * is lost only because the collector stops: then they stay owed, and are replayed at the next
     * start. Empty afterwards, ready for the next request.
     */
    void release();
  }

  /** A new, empty {@link Sources} for this output. */
  default Sources sources() {
    return NO_SOURCES;
  }

  /**
   * {@link #consume(OtlpIndex)} for a request the connector built from {@code madeFrom}: the logged
   * requests among them stay owed to the durable exporters behind the connector until {@code
   * request} is delivered or dropped for good, whatever is done with {@code madeFrom} afterwards.
   */
  default Admission consume(OtlpIndex request, Sources madeFrom) {
    return consume(request);
  }

  /** Sources that keep nothing owed, for an output that no logged request reaches. */
  Sources NO_SOURCES =
      new Sources() {
        @Override
        public void add(Batch batch) {}

        @Override
        public void addAll(Sources other) {}

        @Override
        public void release() {}
      };

  /**
   * The output to {@code pipelines} only, for a connector that routes.
   *
   * @throws IllegalArgumentException when a name is not one of {@link #pipelines()}
   */
  ConnectorOutput to(Collection<String> pipelines);
}
