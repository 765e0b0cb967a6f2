package dev.sluice.service;

import dev.sluice.component.ConnectorOutput;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.codec.OtlpIndex;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Logged requests kept owed to the durable exporters behind a connector ({@link
 * DurableRequest#pin}) for data the connector made from them. It is two things:
 *
 * <ul>
 *   <li>the account of a request a connector built ({@link
 *       dev.sluice.component.ConnectorOutput#consume(OtlpIndex, Batch)}): the logged requests stay
 *       owed until the built request is released, delivered or dropped for good by every exporter
 *       it went to. One it was abandoned by (an exporter stopped with it queued) leaves them owed,
 *       so that after the restart they are replayed and the connector makes the data again;
 *   <li>the {@link ConnectorOutput.Sources} of a connector that folds many batches into one
 *       request, which keeps them owed while they are only in its state.
 * </ul>
 *
 * <p>A request made from requests that were themselves made from logged ones (a connector behind a
 * connector) pins the same logged requests. Pins hold no bytes: the logged requests' memory is
 * released as soon as nothing else holds it. Thread-safe.
 */
final class MadeFromLogged implements OtlpIndex.Releaser, ConnectorOutput.Sources {
  private final MemoryBudget budget;
  private final int consumersBehind;
  // Guarded by this: each logged request pinned, with the consumers it is pinned for.
  private final Map<DurableRequest, Integer> pins = new IdentityHashMap<>();

  /**
   * @param consumersBehind the log's consumers (a bit per index) to keep the requests owed to
   */
  MadeFromLogged(MemoryBudget budget, int consumersBehind) {
    this.budget = budget;
    this.consumersBehind = consumersBehind;
  }

  /** Pins the logged requests of {@code madeFrom}, which the caller holds. */
  @Override
  public synchronized void add(Batch madeFrom) {
    OtlpIndex previous = null;
    for (int i = 0; i < madeFrom.sliceCount(); i++) {
      OtlpIndex request = madeFrom.requestOf(i);
      if (request == previous) {
        continue;
      }
      previous = request;
      if (request.account() instanceof DurableRequest durable) {
        pinOnce(durable, request);
      } else if (request.account() instanceof MadeFromLogged made) {
        addAll(made);
      }
    }
  }

  @Override
  public void addAll(ConnectorOutput.Sources other) {
    if (other instanceof MadeFromLogged made) {
      addAll(made);
    } else if (other != ConnectorOutput.NO_SOURCES) {
      throw new IllegalArgumentException("sources of another output: " + other);
    }
  }

  /** Pins again what {@code made} pins (which keeps them pinned meanwhile). */
  synchronized void addAll(MadeFromLogged made) {
    for (DurableRequest durable : made.pinned()) {
      pinOnce(durable, null);
    }
  }

  private synchronized DurableRequest[] pinned() {
    return pins.keySet().toArray(new DurableRequest[0]);
  }

  synchronized boolean isEmpty() {
    return pins.isEmpty();
  }

  /**
   * @param request the logged request, when the caller holds a batch of it; null when it is pinned
   *     through a request made from it (and so is pinned already, or released)
   */
  private void pinOnce(DurableRequest durable, OtlpIndex request) {
    if (pins.containsKey(durable)) {
      return;
    }
    int pinned = durable.pin(consumersBehind, request);
    if (pinned != 0) {
      pins.put(durable, pinned);
    }
  }

  /** The logged requests owe nothing more for what was made from them. */
  @Override
  public void release() {
    Map<DurableRequest, Integer> released;
    synchronized (this) {
      released = new IdentityHashMap<>(pins);
      pins.clear();
    }
    released.forEach(DurableRequest::unpin);
  }

  @Override
  public void released(OtlpIndex built) {
    budget.released(built);
    if (!built.abandoned()) {
      release();
    }
  }

  @Override
  public void editBytesChanged(OtlpIndex built, long deltaBytes) {
    budget.editBytesChanged(built, deltaBytes);
  }
}
