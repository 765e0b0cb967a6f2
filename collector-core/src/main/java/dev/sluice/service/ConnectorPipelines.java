package dev.sluice.service;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchConsumer;
import dev.sluice.component.ConnectorOutput;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A connector's {@link ConnectorOutput}: the first stages of the pipelines it feeds. A batch handed
 * on goes to each pipeline as a {@link Batch#copy() copy} of its own (the batch itself when there
 * is one pipeline), so that each pipeline's processors edit their own; the batch handed in is let
 * go of only when every pipeline took it. A request the connector built enters as a receiver's
 * does: admitted to the memory budget, then a batch of it for each pipeline ({@link
 * PipelineEntry#offerToEach}).
 *
 * <p>A batch of logged requests (each was answered OK once it was on disk, and is carried here by
 * connectors that pass requests on) that a pipeline refuses as full is not refused upstream: it is
 * parked ({@link Parking}) and offered to that pipeline again until it takes it, as the receivers'
 * entry does with logged requests. So a pipeline that took its part is never offered it again
 * because another was full, and a logged request reaches each durable exporter once, crashes aside.
 *
 * <p>A request the connector built from a batch holding logged requests ({@link #consume(OtlpIndex,
 * Batch)}) keeps them owed to the durable exporters behind the connector until it is delivered
 * ({@link MadeFromLogged}).
 */
final class ConnectorPipelines implements ConnectorOutput {
  /** Where batches of logged requests that a full pipeline refused wait to be offered again. */
  interface Parking {
    /**
     * Takes {@code batch} to offer to {@code stage} again until it is taken; false if it cannot.
     */
    boolean park(BatchConsumer stage, Batch batch);
  }

  private final Signal signal;
  private final Map<String, BatchConsumer> stages;
  private final List<BatchConsumer> stageList;
  private final MemoryBudget budget;
  private final PipelineFailures failures;
  private final Parking parking;
  private final int consumersBehind;

  /**
   * @param stages the first stage of each pipeline fed, by name, in the order of the configuration
   */
  ConnectorPipelines(
      Signal signal,
      Map<String, BatchConsumer> stages,
      MemoryBudget budget,
      PipelineFailures failures) {
    this(signal, stages, budget, failures, (stage, batch) -> false, 0);
  }

  /**
   * @param stages the first stage of each pipeline fed, by name, in the order of the configuration
   * @param parking where batches of logged requests a full pipeline refused wait
   * @param consumersBehind the log's consumers (a bit per index) behind the connector, which logged
   *     requests stay owed to until what the connector made from them is delivered
   */
  ConnectorPipelines(
      Signal signal,
      Map<String, BatchConsumer> stages,
      MemoryBudget budget,
      PipelineFailures failures,
      Parking parking,
      int consumersBehind) {
    if (stages.isEmpty()) {
      throw new IllegalArgumentException("a connector feeds at least one pipeline");
    }
    this.signal = signal;
    this.stages = new LinkedHashMap<>(stages);
    this.stageList = List.copyOf(stages.values());
    this.budget = budget;
    this.failures = failures;
    this.parking = parking;
    this.consumersBehind = consumersBehind;
  }

  @Override
  public Signal signal() {
    return signal;
  }

  @Override
  public List<String> pipelines() {
    return List.copyOf(stages.keySet());
  }

  @Override
  public Admission consume(Batch batch) {
    if (batch.signal() != signal) {
      throw new IllegalArgumentException(
          "a connector feeding " + signal + " pipelines was handed a " + batch.signal() + " batch");
    }
    if (stageList.size() == 1) {
      return offer(stageList.get(0), batch);
    }
    Admission result = Admission.ACCEPTED;
    for (BatchConsumer stage : stageList) {
      Batch copy = batch.copy();
      Admission admission = offer(stage, copy);
      if (admission != Admission.ACCEPTED) {
        copy.clear();
        if (result != Admission.FAILED) {
          result = admission;
        }
      }
    }
    if (result == Admission.ACCEPTED) {
      batch.clear(); // every pipeline holds its own copy
    }
    return result;
  }

  /**
   * One pipeline's answer; one that throws costs this batch only, answered as failed. A batch of
   * logged requests refused as full is parked, and taken.
   */
  private Admission offer(BatchConsumer stage, Batch batch) {
    Admission admission;
    try {
      admission = stage.consume(batch);
    } catch (RuntimeException | StackOverflowError e) {
      failures.failed(
          "a pipeline fed by a connector failed on a batch; it is answered as failed", e);
      return Admission.FAILED;
    }
    if (admission == Admission.FULL && allLogged(batch) && parking.park(stage, batch)) {
      return Admission.ACCEPTED;
    }
    return admission;
  }

  /** Whether every request of {@code batch} is in the write-ahead log. */
  private static boolean allLogged(Batch batch) {
    int slices = batch.sliceCount();
    for (int i = 0; i < slices; i++) {
      if (DurableRequest.of(batch.requestOf(i)) == null) {
        return false;
      }
    }
    return slices > 0;
  }

  @Override
  public Admission consume(OtlpIndex request) {
    return admitAndOffer(request, null);
  }

  @Override
  public Admission consume(OtlpIndex request, Batch madeFrom) {
    if (consumersBehind == 0) {
      return admitAndOffer(request, null);
    }
    MadeFromLogged made = new MadeFromLogged(budget, consumersBehind);
    made.add(madeFrom);
    return admitAndOffer(request, made);
  }

  @Override
  public Sources sources() {
    return consumersBehind == 0 ? NO_SOURCES : new MadeFromLogged(budget, consumersBehind);
  }

  @Override
  public Admission consume(OtlpIndex request, Sources madeFrom) {
    if (!(madeFrom instanceof MadeFromLogged sources)) {
      return admitAndOffer(request, null);
    }
    MadeFromLogged made = new MadeFromLogged(budget, consumersBehind);
    made.addAll(sources);
    return admitAndOffer(request, made);
  }

  /**
   * Admits a built request to the memory budget (its account {@code made}, when it keeps logged
   * requests owed) and offers it to each pipeline.
   */
  private Admission admitAndOffer(OtlpIndex request, MadeFromLogged made) {
    if (request.signal() != signal) {
      throw new IllegalArgumentException(
          "a connector feeding "
              + signal
              + " pipelines was handed a "
              + request.signal()
              + " request");
    }
    if (made != null && made.isEmpty()) {
      made = null;
    }
    if (!(made == null ? budget.tryAdmit(request) : budget.tryAdmit(request, made))) {
      if (made != null) {
        made.release();
      }
      return Admission.FULL;
    }
    try {
      return PipelineEntry.offerToEach(stageList, request, failures, null, null);
    } finally {
      request.releaseHold();
    }
  }

  @Override
  public ConnectorOutput to(Collection<String> pipelines) {
    Map<String, BatchConsumer> chosen = new LinkedHashMap<>();
    List<String> unknown = new ArrayList<>();
    for (String name : pipelines) {
      BatchConsumer stage = stages.get(name);
      if (stage == null) {
        unknown.add(name);
      } else {
        chosen.put(name, stage);
      }
    }
    if (!unknown.isEmpty() || chosen.isEmpty()) {
      throw new IllegalArgumentException(
          "not pipelines this connector feeds: "
              + (unknown.isEmpty() ? "none named" : String.join(", ", unknown))
              + " (it feeds "
              + String.join(", ", stages.keySet())
              + ")");
    }
    return new ConnectorPipelines(signal, chosen, budget, failures, parking, consumersBehind);
  }
}
