package dev.sluice.service;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchConsumer;
import dev.sluice.component.RequestConsumer;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.codec.OtlpIndex;
import java.util.List;

/**
 * Where one receiver's requests of one signal enter the pipelines that list the receiver. A request
 * is first admitted to the collector's {@link MemoryBudget} (refused at once when it is full), then
 * each pipeline gets a batch of its slices; the request's bytes are shared, not copied. A pipeline
 * that throws costs that request only: it is answered {@link Admission#FAILED} and counted ({@link
 * PipelineFailures}), and its hold goes as always.
 */
public final class PipelineEntry implements RequestConsumer {
  private final MemoryBudget budget;
  private final List<BatchConsumer> pipelines;
  private final long retryDelayMillis;
  private final PipelineFailures failures;
  private volatile boolean closed;

  /**
   * @param pipelines the first stage of each pipeline
   * @param retryDelayMillis the delay refused senders are asked to wait
   */
  public PipelineEntry(MemoryBudget budget, List<BatchConsumer> pipelines, long retryDelayMillis) {
    this(budget, pipelines, retryDelayMillis, new PipelineFailures());
  }

  /** {@link #PipelineEntry(MemoryBudget, List, long)}, counting failures in {@code failures}. */
  public PipelineEntry(
      MemoryBudget budget,
      List<BatchConsumer> pipelines,
      long retryDelayMillis,
      PipelineFailures failures) {
    this.budget = budget;
    this.pipelines = List.copyOf(pipelines);
    this.retryDelayMillis = retryDelayMillis;
    this.failures = failures;
  }

  @Override
  public Admission consume(OtlpIndex request) {
    if (closed) {
      return Admission.CLOSED;
    }
    if (!budget.tryAdmit(request)) {
      return Admission.FULL;
    }
    try {
      return offerToEach(pipelines, request, failures, null, null);
    } finally {
      request.releaseHold();
    }
  }

  /**
   * Hands a batch of {@code request}'s slices to each pipeline, and says what they answered
   * together: {@link Admission#ACCEPTED} when each took it, {@link Admission#FAILED} when one threw
   * (counted in {@code failures}), else the last refusal. A pipeline that refused or threw keeps
   * none of it, unless {@code onFull} is given: a batch a pipeline refused as full is then handed
   * to it, with that pipeline, and counts as taken. {@code onClosed}, when given, runs for each
   * pipeline that answered {@link Admission#CLOSED} (it is stopping).
   */
  static Admission offerToEach(
      List<BatchConsumer> pipelines,
      OtlpIndex request,
      PipelineFailures failures,
      java.util.function.BiConsumer<BatchConsumer, Batch> onFull,
      Runnable onClosed) {
    Admission result = Admission.ACCEPTED;
    for (BatchConsumer pipeline : pipelines) {
      Batch batch = Batch.of(request);
      Admission admission;
      try {
        admission = pipeline.consume(batch);
      } catch (RuntimeException | StackOverflowError e) {
        batch.clear();
        failures.failed("a pipeline failed on a request; it is answered as failed", e);
        result = Admission.FAILED;
        continue;
      }
      if (admission == Admission.FULL && onFull != null) {
        onFull.accept(pipeline, batch);
        continue;
      }
      if (admission != Admission.ACCEPTED) {
        batch.clear();
        if (admission == Admission.CLOSED && onClosed != null) {
          onClosed.run();
        }
        if (result != Admission.FAILED) {
          result = admission;
        }
      }
    }
    return result;
  }

  /**
   * CLOSED once closed; FULL while the budget has less than its reserve left (see {@link
   * MemoryBudget#hasRoom()}); ACCEPTED otherwise.
   */
  @Override
  public Admission admission() {
    if (closed) {
      return Admission.CLOSED;
    }
    return budget.hasRoom() ? Admission.ACCEPTED : Admission.FULL;
  }

  @Override
  public long retryDelayMillis() {
    return retryDelayMillis;
  }

  /** Refuses everything from now on, as the collector shuts down. */
  public void close() {
    closed = true;
  }
}
