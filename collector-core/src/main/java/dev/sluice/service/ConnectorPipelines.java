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
 */
final class ConnectorPipelines implements ConnectorOutput {
  private final Signal signal;
  private final Map<String, BatchConsumer> stages;
  private final List<BatchConsumer> stageList;
  private final MemoryBudget budget;
  private final PipelineFailures failures;

  /**
   * @param stages the first stage of each pipeline fed, by name, in the order of the configuration
   */
  ConnectorPipelines(
      Signal signal,
      Map<String, BatchConsumer> stages,
      MemoryBudget budget,
      PipelineFailures failures) {
    if (stages.isEmpty()) {
      throw new IllegalArgumentException("a connector feeds at least one pipeline");
    }
    this.signal = signal;
    this.stages = new LinkedHashMap<>(stages);
    this.stageList = List.copyOf(stages.values());
    this.budget = budget;
    this.failures = failures;
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

  /** One pipeline's answer; one that throws costs this batch only, answered as failed. */
  private Admission offer(BatchConsumer stage, Batch batch) {
    try {
      return stage.consume(batch);
    } catch (RuntimeException | StackOverflowError e) {
      failures.failed(
          "a pipeline fed by a connector failed on a batch; it is answered as failed", e);
      return Admission.FAILED;
    }
  }

  @Override
  public Admission consume(OtlpIndex request) {
    if (request.signal() != signal) {
      throw new IllegalArgumentException(
          "a connector feeding "
              + signal
              + " pipelines was handed a "
              + request.signal()
              + " request");
    }
    if (!budget.tryAdmit(request)) {
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
    return new ConnectorPipelines(signal, chosen, budget, failures);
  }
}
