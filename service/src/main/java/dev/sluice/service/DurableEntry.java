package dev.sluice.service;

import dev.sluice.component.Admission;
import dev.sluice.component.AnswerSink;
import dev.sluice.component.BatchConsumer;
import dev.sluice.component.RequestConsumer;
import dev.sluice.pdata.otlp.Batch;
import dev.sluice.pdata.otlp.OtlpIndex;
import dev.sluice.wal.AppendCallback;
import dev.sluice.wal.WriteAheadLog;
import java.util.List;

/**
 * Where one receiver's requests of one signal enter pipelines of which at least one is durable: a
 * request is admitted to the memory budget, appended to the write-ahead log, handed to the
 * pipelines, and answered only once the log has it on disk (and the pipelines took it). Each
 * durable exporter tells the log when it has released every slice of it ({@link DurableRequest}).
 *
 * <p>The request's hold is kept until the log has written its bytes and the pipelines have their
 * batches, so the bytes cannot be released (and reused) under the writer. A refusal by the
 * pipelines is answered at once; the record is then done as soon as it is written. A failed write
 * is answered as retryable; the pipelines may still deliver the request, so a client retry can
 * duplicate it (delivery is at least once).
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

  /** The log requests go to; set once it is open and replayed, before the receivers start. */
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
    Logged logged = new Logged(request, answer, tracked);
    if (!budget.tryAdmit(request, tracked)) {
      answer.answer(Admission.FULL);
      return;
    }
    long sequence =
        request.readSource(
            (bytes, offset, length) ->
                current.log().append(bytes, offset, length, routing, signalCode, logged));
    if (sequence < 0) {
      request.releaseHold();
      answer.answer(sequence == WriteAheadLog.FULL ? Admission.FULL : Admission.CLOSED);
      return;
    }
    tracked.logged(sequence);
    Admission result = Admission.ACCEPTED;
    for (BatchConsumer pipeline : pipelines) {
      Batch batch = Batch.of(request);
      Admission admission = pipeline.consume(batch);
      if (admission != Admission.ACCEPTED) {
        batch.clear();
        result = admission;
      }
    }
    logged.pipelinesAnswered(result);
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
   * One logged request: answers it once both the pipelines and the log have spoken, and lets go of
   * the hold once the log has written it.
   */
  private static final class Logged implements AppendCallback {
    private final OtlpIndex request;
    private final AnswerSink answer;
    private final DurableRequest tracked;
    private Admission pipelines;
    private boolean written;
    private boolean writeFailed;
    private boolean answered;
    // The pipelines' answer and the log's write, each of which lets go of half of the hold.
    private int outstanding = 2;

    Logged(OtlpIndex request, AnswerSink answer, DurableRequest tracked) {
      this.request = request;
      this.answer = answer;
      this.tracked = tracked;
    }

    void pipelinesAnswered(Admission result) {
      Admission now = null;
      synchronized (this) {
        pipelines = result;
        if (result != Admission.ACCEPTED && !answered) {
          answered = true;
          now = result;
        } else if (written && !answered) {
          answered = true;
          now = writeFailed ? Admission.FULL : Admission.ACCEPTED;
        }
      }
      if (now != null) {
        answer.answer(now);
      }
      settled();
    }

    @Override
    public void committed(long sequence) {
      tracked.sequence(sequence);
      logWrote(false);
    }

    @Override
    public void failed(String reason, boolean retryable) {
      logWrote(true);
    }

    private void logWrote(boolean failed) {
      Admission now = null;
      synchronized (this) {
        written = true;
        writeFailed = failed;
        if (pipelines != null && !answered) {
          answered = true;
          now = failed ? Admission.FULL : Admission.ACCEPTED;
        }
      }
      if (now != null) {
        answer.answer(now);
      }
      settled();
    }

    /**
     * The hold goes once the pipelines have their batches and the log has written the bytes,
     * whichever is last: before both, the request must stay whole.
     */
    private void settled() {
      boolean last;
      synchronized (this) {
        last = --outstanding == 0;
      }
      if (last) {
        request.releaseHold();
        // Exporters that let go of every slice before the hold went are done only now.
        tracked.settle(tracked.owedConsumers(), request);
      }
    }
  }
}
