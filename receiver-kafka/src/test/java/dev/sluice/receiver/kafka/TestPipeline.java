package dev.sluice.receiver.kafka;

import dev.sluice.component.Admission;
import dev.sluice.component.AnswerSink;
import dev.sluice.component.RequestConsumer;
import dev.sluice.pdata.codec.OtlpIndex;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A pipeline entry for tests: records the bytes of every request offered, and answers at once
 * (accepting, or refusing the requests a predicate picks) or holds the answers until the test gives
 * them.
 */
final class TestPipeline implements RequestConsumer {
  private final List<byte[]> offered = new ArrayList<>();
  private final List<byte[]> accepted = new ArrayList<>();
  private final Deque<Held> held = new ArrayDeque<>();
  private Predicate<byte[]> refuse = bytes -> false;
  private boolean holding;
  private Admission room = Admission.ACCEPTED;

  private record Held(byte[] bytes, AnswerSink answer) {}

  /**
   * Refuses (FULL) every request {@code refuse} picks, from now on, as a full pipeline does: {@link
   * #admission()} says there is no room.
   */
  synchronized TestPipeline refuseWhen(Predicate<byte[]> refuse) {
    this.refuse = refuse;
    this.room = Admission.FULL;
    return this;
  }

  /**
   * Refuses (FULL) every request {@code refuse} picks, from now on, while {@link #admission()} says
   * there is room: as pipelines refuse a request larger than the memory they can free.
   */
  synchronized TestPipeline refuseOnItsOwnWhen(Predicate<byte[]> refuse) {
    this.refuse = refuse;
    this.room = Admission.ACCEPTED;
    return this;
  }

  @Override
  public synchronized Admission admission() {
    return room;
  }

  /** Keeps the answers from now on, until {@link #answerHeld}. */
  synchronized TestPipeline hold() {
    holding = true;
    return this;
  }

  /** Accepts the {@code count} oldest held requests. */
  void answerHeld(int count) {
    List<Held> answering = new ArrayList<>();
    synchronized (this) {
      for (int i = 0; i < count && !held.isEmpty(); i++) {
        Held h = held.pollFirst();
        accepted.add(h.bytes());
        answering.add(h);
      }
      notifyAll();
    }
    // Outside the lock, on this thread: a late answer as a durable pipeline gives it.
    answering.forEach(h -> h.answer().answer(Admission.ACCEPTED));
  }

  /** Stops holding and accepts everything held. */
  void release() {
    int count;
    synchronized (this) {
      holding = false;
      count = held.size();
    }
    answerHeld(count);
  }

  @Override
  public Admission consume(OtlpIndex request) {
    throw new UnsupportedOperationException("receivers offer with an answer sink");
  }

  @Override
  public void consume(OtlpIndex request, AnswerSink answer) {
    byte[] bytes = copy(request);
    Admission admission;
    synchronized (this) {
      offered.add(bytes);
      notifyAll();
      if (refuse.test(bytes)) {
        admission = Admission.FULL;
      } else if (holding) {
        held.addLast(new Held(bytes, answer));
        return;
      } else {
        accepted.add(bytes);
        admission = Admission.ACCEPTED;
      }
    }
    answer.answer(admission);
  }

  private static byte[] copy(OtlpIndex request) {
    byte[][] out = new byte[1][];
    request.readSource(
        (b, offset, length) -> {
          out[0] = Arrays.copyOfRange(b, offset, offset + length);
          return length;
        });
    return out[0];
  }

  @Override
  public long retryDelayMillis() {
    return 20;
  }

  synchronized List<byte[]> offered() {
    return List.copyOf(offered);
  }

  synchronized List<byte[]> accepted() {
    return List.copyOf(accepted);
  }

  synchronized int heldCount() {
    return held.size();
  }

  /** Waits until at least {@code count} requests were offered; false on a timeout. */
  synchronized boolean awaitOffered(int count, long timeout, TimeUnit unit)
      throws InterruptedException {
    return await(() -> offered.size() >= count, timeout, unit);
  }

  /** Waits until at least {@code count} requests were accepted; false on a timeout. */
  synchronized boolean awaitAccepted(int count, long timeout, TimeUnit unit)
      throws InterruptedException {
    return await(() -> accepted.size() >= count, timeout, unit);
  }

  private boolean await(java.util.function.BooleanSupplier done, long timeout, TimeUnit unit)
      throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    while (!done.getAsBoolean()) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }
}
