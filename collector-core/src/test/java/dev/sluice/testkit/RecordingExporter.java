package dev.sluice.testkit;

import dev.sluice.component.ExportResult;
import dev.sluice.component.Exporter;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.codec.MarshalContext;
import dev.sluice.pdata.codec.OtlpMarshaler;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * An exporter for tests: records what it is asked to send (marshaled bytes and unit counts),
 * answers with scripted results, and can be held shut to stall a pipeline.
 */
public final class RecordingExporter implements Exporter {
  /** One call of {@link #export}. */
  public record Attempt(byte[] request, long units, long atNanos, ExportResult result) {}

  private final List<Attempt> attempts = new ArrayList<>();
  private final Deque<ExportResult> script = new ArrayDeque<>();
  private volatile CountDownLatch gate = new CountDownLatch(0);
  private Function<Batch, ExportResult> answer = batch -> ExportResult.SUCCESS;

  /** Answers the next calls with these results, in order, then with the default answer. */
  public synchronized RecordingExporter thenAnswer(ExportResult... results) {
    script.addAll(List.of(results));
    return this;
  }

  /** The answer once the script is used up. */
  public synchronized RecordingExporter answerWith(Function<Batch, ExportResult> answer) {
    this.answer = answer;
    return this;
  }

  /** Makes every send wait until {@link #open()}. */
  public RecordingExporter close() {
    gate = new CountDownLatch(1);
    return this;
  }

  public RecordingExporter open() {
    gate.countDown();
    return this;
  }

  @Override
  public ExportResult export(Batch batch, long deadlineNanos) throws InterruptedException {
    gate.await();
    MarshalContext context = new MarshalContext();
    OtlpMarshaler.marshal(batch, context);
    byte[] bytes = context.toByteArray();
    synchronized (this) {
      ExportResult result = script.isEmpty() ? answer.apply(batch) : script.pollFirst();
      attempts.add(new Attempt(bytes, batch.unitCount(), System.nanoTime(), result));
      notifyAll();
      return result;
    }
  }

  public synchronized List<Attempt> attempts() {
    return List.copyOf(attempts);
  }

  /** The requests of successful attempts, in order. */
  public synchronized List<Attempt> delivered() {
    return attempts.stream()
        .filter(a -> a.result().outcome() == ExportResult.Outcome.SUCCESS)
        .toList();
  }

  /** Units delivered by successful attempts. */
  public synchronized long deliveredUnits() {
    return delivered().stream().mapToLong(Attempt::units).sum();
  }

  /** Waits until at least {@code units} units were delivered; false if the timeout passed. */
  public synchronized boolean awaitDeliveredUnits(long units, long timeout, TimeUnit unit)
      throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    while (deliveredUnits() < units) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }

  /** Waits until at least {@code count} attempts were made; false if the timeout passed. */
  public synchronized boolean awaitAttempts(int count, long timeout, TimeUnit unit)
      throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    while (attempts.size() < count) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }
}
