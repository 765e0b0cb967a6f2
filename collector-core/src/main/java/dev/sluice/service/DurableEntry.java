package dev.sluice.service;

import dev.sluice.component.Admission;
import dev.sluice.component.AnswerSink;
import dev.sluice.component.BatchConsumer;
import dev.sluice.component.RequestConsumer;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.wal.AppendCallback;
import dev.sluice.wal.WriteAheadLog;
import java.util.List;

/**
 * Where one receiver's requests of one signal enter pipelines of which at least one is durable: a
 * request is admitted to the memory budget, appended to the write-ahead log, and once the log has
 * it on disk handed to the pipelines and answered. Each durable exporter tells the log when it has
 * released every slice of it ({@link DurableRequest}).
 *
 * <p>Nothing reaches the pipelines before it is on disk, so an answer of failure means the request
 * will not be delivered: a failed write (a full disk) is answered as retryable, and the client's
 * retry is the only copy. The hand-over runs on the log's hand-off threads, not the writer's, so
 * the processors' work stays parallel. Whatever happens in the pipelines, the request is answered
 * and its hold let go: a refusal is answered at once (the record is then done as soon as nothing
 * holds it), and a pipeline that throws costs that request only ({@link Admission#FAILED}, counted
 * by {@link PipelineFailures}).
 */
public final class DurableEntry implements RequestConsumer {
  private final MemoryBudget budget;
  private final List<BatchConsumer> pipelines;
  private final long retryDelayMillis;
  private final int routing;
  private final int signalCode;
  private volatile DurableLog log;
  private volatile boolean closed;

  /**
   * @param pipelines the first stage of each pipeline the receiver's signal feeds
   * @param routing the durable ones among them, as the log's routing bits
   * @param signalCode the signal, as the log records it
   */
  public DurableEntry(
      MemoryBudget budget,
      List<BatchConsumer> pipelines,
      int routing,
      int signalCode,
      long retryDelayMillis) {
    this.budget = budget;
    this.pipelines = List.copyOf(pipelines);
    this.routing = routing;
    this.signalCode = signalCode;
    this.retryDelayMillis = retryDelayMillis;
  }

  /** The log requests go to; set once it is open, before the receivers start. */
  public void attach(DurableLog log) {
    this.log = log;
  }

  @Override
  public Admission consume(OtlpIndex request) {
    throw new UnsupportedOperationException("a durable pipeline answers through an AnswerSink");
  }

  @Override
  public void consume(OtlpIndex request, AnswerSink answer) {
    DurableLog current = log;
    if (closed || current == null) {
      answer.answer(Admission.CLOSED);
      return;
    }
    DurableRequest tracked = current.request(routing, request.sourceLength());
    if (!budget.tryAdmit(request, tracked)) {
      answer.answer(Admission.FULL);
      return;
    }
    Logged logged = new Logged(current, request, answer, tracked);
    current.appended();
    int layout = current.currentLayout();
    long sequence =
        request.readSource(
            (bytes, offset, length) ->
                current.log().append(bytes, offset, length, layout, routing, signalCode, logged));
    if (sequence < 0) {
      current.landed();
      request.releaseHold();
      answer.answer(sequence == WriteAheadLog.FULL ? Admission.FULL : Admission.CLOSED);
    }
  }

  @Override
  public Admission admission() {
    if (closed || log == null) {
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

  /**
   * Hands a request that is on disk to every pipeline and answers it. The hold goes in every case;
   * a pipeline that took nothing of the request leaves its durable exporters done with it once
   * nothing else holds it. A pipeline that is stopping leaves the request owed, for the next start.
   */
  private void handOver(
      DurableLog current, OtlpIndex request, AnswerSink answer, DurableRequest tracked) {
    Admission result;
    try {
      // On disk, the request is the collector's: a pipeline that is full gets it again later
      // (ParkedBatches), one that is stopping leaves it owed for the next start.
      Admission offered =
          PipelineEntry.offerToEach(
              pipelines, request, current.failures(), current::park, request::abandon);
      result = offered == Admission.FAILED ? Admission.FAILED : Admission.ACCEPTED;
    } finally {
      request.releaseHold();
      tracked.settle(tracked.owedConsumers(), request);
      current.landed();
    }
    answerQuietly(answer, result);
  }

  /**
   * Answers a request whose fate is settled; a receiver that stopped meanwhile (its event loop
   * refuses the task) has no client left to tell, and costs nothing here.
   */
  private static void answerQuietly(AnswerSink answer, Admission result) {
    try {
      answer.answer(result);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // The receiver has stopped: its client is gone.
    }
  }

  /** One logged request, waiting for the log's write. */
  private final class Logged implements AppendCallback {
    private final DurableLog current;
    private final OtlpIndex request;
    private final AnswerSink answer;
    private final DurableRequest tracked;

    Logged(DurableLog current, OtlpIndex request, AnswerSink answer, DurableRequest tracked) {
      this.current = current;
      this.request = request;
      this.answer = answer;
      this.tracked = tracked;
    }

    @Override
    public void committed(long sequence) {
      // Owed by its exporters from now on, not before: a failed write owes nothing.
      tracked.logged(sequence);
      if (!current.handOff(() -> handOver(current, request, answer, tracked))) {
        // The collector is stopping: on disk, so answered OK, and delivered after the restart.
        request.abandon();
        request.releaseHold();
        current.landed();
        answerQuietly(answer, Admission.ACCEPTED);
      }
    }

    @Override
    public void failed(String reason, boolean retryable) {
      // Never handed to the pipelines: refused, and the client's retry is the only copy.
      request.releaseHold();
      current.landed();
      answerQuietly(answer, retryable ? Admission.FULL : Admission.CLOSED);
    }
  }
}
