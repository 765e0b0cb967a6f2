package dev.sluice.service;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.codec.OtlpIndex;
import java.util.ArrayList;
import java.util.List;

/**
 * The account of a request a connector built from a batch holding logged requests ({@link
 * dev.sluice.component.ConnectorOutput#consume(OtlpIndex, Batch)}): it keeps each of those logged
 * requests owed to the durable exporters behind the connector ({@link DurableRequest#pin}) until
 * the built request is released, delivered or dropped for good by every exporter it went to. One it
 * was abandoned by (an exporter stopped with it queued) leaves them owed, so that after the restart
 * they are replayed and the connector builds it again.
 *
 * <p>A request built from requests that were themselves built from logged ones (a connector behind
 * a connector) pins the same logged requests. Pins hold no bytes: the logged requests' memory is
 * released as soon as nothing else holds it.
 */
final class MadeFromLogged implements OtlpIndex.Releaser {
  /** One logged request kept owed, and the consumers it is kept owed to. */
  private record Pin(DurableRequest durable, int consumers) {}

  private final MemoryBudget budget;
  private final List<Pin> pins;

  private MadeFromLogged(MemoryBudget budget, List<Pin> pins) {
    this.budget = budget;
    this.pins = pins;
  }

  /**
   * Pins the logged requests of {@code madeFrom}, which the caller holds, for the log's consumers
   * {@code consumersBehind}; null when it holds none that those consumers still owe.
   */
  static MadeFromLogged pin(Batch madeFrom, int consumersBehind, MemoryBudget budget) {
    List<Pin> pins = new ArrayList<>();
    OtlpIndex previous = null;
    for (int i = 0; i < madeFrom.sliceCount(); i++) {
      OtlpIndex request = madeFrom.requestOf(i);
      if (request == previous) {
        continue;
      }
      previous = request;
      if (request.account() instanceof DurableRequest durable) {
        pinOnce(pins, durable, request, consumersBehind);
      } else if (request.account() instanceof MadeFromLogged made) {
        for (Pin pin : made.pins) {
          pinOnce(pins, pin.durable(), null, consumersBehind);
        }
      }
    }
    return pins.isEmpty() ? null : new MadeFromLogged(budget, pins);
  }

  /**
   * @param request the logged request, when the caller holds a batch of it; null when it is pinned
   *     through a request made from it (and so is pinned already, or released)
   */
  private static void pinOnce(
      List<Pin> pins, DurableRequest durable, OtlpIndex request, int consumers) {
    for (Pin pin : pins) {
      if (pin.durable() == durable) {
        return;
      }
    }
    int pinned = durable.pin(consumers, request);
    if (pinned != 0) {
      pins.add(new Pin(durable, pinned));
    }
  }

  /** The built request was not taken: the logged ones owe nothing more for it. */
  void unpinAll() {
    for (Pin pin : pins) {
      pin.durable().unpin(pin.consumers());
    }
  }

  @Override
  public void released(OtlpIndex built) {
    budget.released(built);
    if (!built.abandoned()) {
      unpinAll();
    }
  }

  @Override
  public void editBytesChanged(OtlpIndex built, long deltaBytes) {
    budget.editBytesChanged(built, deltaBytes);
  }
}
