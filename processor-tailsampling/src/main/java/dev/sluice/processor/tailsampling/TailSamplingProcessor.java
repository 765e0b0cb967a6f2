package dev.sluice.processor.tailsampling;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchConsumer;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Processor;
import dev.sluice.component.RepeatingTimer;
import dev.sluice.component.Scheduler;
import dev.sluice.component.telemetry.RateLimitedLog;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.PartKey;
import dev.sluice.pdata.Signal;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;

/**
 * The {@code tail_sampling} processor: holds the spans of each trace, as slices of the requests
 * they came in, until the trace is due ({@code decision_wait} after its first span, or {@code
 * decision_wait_after_root_received} after its root span), then decides by its policies and hands
 * the sampled traces on as batches; the others' slices are let go of.
 *
 * <p>Bounds: at most {@code num_traces} traces are held (waiting, or remembered as decided for
 * their late spans), and at most {@code max_bytes} bytes of spans wait. When either is passed, the
 * oldest trace is decided early with the spans it has (counted in {@code
 * sluice_processor_tail_sampling_traces_decided_early}), never dropped undecided; a decided trace
 * that is remembered is forgotten first. Late spans follow the decision while the trace is
 * remembered (in the table, or in {@code decision_cache}); a late span of a trace forgotten starts
 * a new trace.
 *
 * <p>Nothing is answered OK and then lost: when the next stage refuses a batch of sampled traces,
 * it is kept and offered again before anything newer, as the batch processor does; meanwhile what
 * is held counts in the collector's memory bound, which refuses new requests at the receivers.
 *
 * <p>Every call runs under one lock; decisions are made on the service's {@link Scheduler}, once a
 * second.
 */
public final class TailSamplingProcessor implements Processor {
  private static final long BLOCKED_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
  private static final long TICK_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final TailSamplingConfig config;
  private final BatchConsumer next;
  private final Scheduler scheduler;
  private final ReentrantLock lock = new ReentrantLock();
  private final List<Policies.Named> policies;
  private final long decisionWaitNanos;
  private final long waitAfterRootNanos;
  private final long maxBytes;
  private final TailSamplingTelemetry telemetry;
  private final RateLimitedLog dropLog;
  private final RepeatingTimer ticks;

  // Guarded by lock.
  private final TraceTable table;
  private final TraceList arrivals = TraceList.arrivals();
  private final TraceList waiting = TraceList.due();
  private final TraceList waitingForRoot = TraceList.due();
  private final DecisionCache sampledCache;
  private final DecisionCache notSampledCache;
  private final BatchTraces incoming;
  private final PartKey partOfSpan;
  private final Batch discard = new Batch(Signal.TRACES);
  private TraceData[] touched = new TraceData[64];
  private Batch outgoing = new Batch(Signal.TRACES);
  private long heldBytes;
  private Scheduler.Timer retry;
  private boolean stopped;

  TailSamplingProcessor(ComponentSettings settings, TailSamplingConfig config, BatchConsumer next) {
    this(settings, config, next, Policies.compile(config.policies()));
  }

  /** With policies compiled elsewhere (tests give their own evaluators). */
  TailSamplingProcessor(
      ComponentSettings settings,
      TailSamplingConfig config,
      BatchConsumer next,
      List<Policies.Named> policies) {
    this.config = config;
    this.next = next;
    this.scheduler = settings.scheduler();
    this.policies = policies;
    this.decisionWaitNanos = config.decisionWait().toNanos();
    this.waitAfterRootNanos = config.decisionWaitAfterRootReceived().toNanos();
    this.incoming = new BatchTraces();
    this.partOfSpan = incoming::part;
    this.maxBytes = config.maxBytes() > 0 ? config.maxBytes() : settings.pipelineMemoryBytes() / 2;
    this.table =
        new TraceTable((int) Math.min(config.numTraces(), Math.max(1024, 2 * expected(config))));
    this.sampledCache = new DecisionCache(config.decisionCache().sampledCacheSize());
    this.notSampledCache = new DecisionCache(config.decisionCache().nonSampledCacheSize());
    this.telemetry = new TailSamplingTelemetry(settings, policies);
    this.dropLog = new RateLimitedLog(settings.logger(), Level.WARNING, 10_000);
    this.ticks = new RepeatingTimer(scheduler, TICK_NANOS, lock, this::tick);
  }

  private static long expected(TailSamplingConfig config) {
    return config.expectedNewTracesPerSec() * config.decisionWait().toSeconds();
  }

  @Override
  public void start() {
    ticks.start();
  }

  @Override
  public Admission consume(Batch batch) {
    lock.lock();
    try {
      if (stopped) {
        return Admission.CLOSED;
      }
      long now = scheduler.nanoTime();
      telemetry.incoming(batch.unitCount());
      incoming.read(batch);
      int traces = incoming.count;
      if (touched.length <= traces) {
        touched = new TraceData[Math.max(traces + 1, 2 * touched.length)];
      }
      // Part 0 takes the blocks without spans; part i the spans of the batch's trace i.
      Batch[] parts = new Batch[traces + 1];
      parts[0] = discard;
      for (int i = 1; i <= traces; i++) {
        parts[i] = route(i, now);
      }
      batch.partitionInto(parts, partOfSpan);
      batch.clear();
      discard.clear();
      afterAdding(traces, now);
      handOn();
      publishHeld();
      return Admission.ACCEPTED;
    } finally {
      lock.unlock();
    }
  }

  /** Where the spans of the batch's trace {@code i} go: its held spans, the way out, or away. */
  private Batch route(int i, long now) {
    long high = incoming.highs[i];
    long low = incoming.lows[i];
    long spans = incoming.spans[i];
    touched[i] = null;
    TraceData trace = table.get(high, low);
    if (trace == null) {
      if (sampledCache.contains(high, low)) {
        telemetry.releasedFromCache(true, spans);
        return outgoing;
      }
      if (notSampledCache.contains(high, low)) {
        telemetry.releasedFromCache(false, spans);
        return discard;
      }
      trace = new TraceData(high, low, now, now + decisionWaitNanos);
      trace.inTable = true;
      table.add(trace);
      arrivals.append(trace);
      waiting.append(trace);
      trace.dueList = waiting;
      telemetry.newTrace();
    }
    if (trace.state != TraceData.WAITING) {
      telemetry.lateSpans(spans, now - trace.decidedNanos);
      return trace.state == TraceData.SAMPLED ? outgoing : discard;
    }
    trace.spanCount += spans;
    trace.bytes += incoming.bytes[i];
    heldBytes += incoming.bytes[i];
    if (incoming.roots[i] && !trace.rootSeen) {
      trace.rootSeen = true;
      long due = now + waitAfterRootNanos;
      if (waitAfterRootNanos > 0 && due < trace.dueNanos) {
        trace.dueList.remove(trace);
        trace.dueNanos = due;
        waitingForRoot.append(trace);
        trace.dueList = waitingForRoot;
      }
    }
    touched[i] = trace;
    return trace.spans;
  }

  /** Once the batch's spans are held: the size limit of a trace, then the processor's bounds. */
  private void afterAdding(int traces, long now) {
    long maxTrace = config.maximumTraceSizeBytes();
    if (maxTrace > 0) {
      for (int i = 1; i <= traces; i++) {
        TraceData trace = touched[i];
        if (trace != null && trace.state == TraceData.WAITING && trace.bytes > maxTrace) {
          telemetry.tooLarge();
          release(trace, false, now);
        }
      }
    }
    Arrays.fill(touched, 0, traces + 1, null);
    while (table.size() > config.numTraces()) {
      TraceData oldest = arrivals.oldest();
      if (oldest.state == TraceData.WAITING) {
        telemetry.decidedEarly("num_traces");
        decide(oldest, now);
      }
      if (oldest.inTable) {
        forget(oldest);
      }
    }
    while (heldBytes > maxBytes && waiting.size() + waitingForRoot.size() > 0) {
      TraceData oldest = oldestWaiting();
      telemetry.decidedEarly("max_bytes");
      decide(oldest, now);
    }
  }

  private TraceData oldestWaiting() {
    TraceData a = waiting.oldest();
    TraceData b = waitingForRoot.oldest();
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    return a.arrivedNanos <= b.arrivedNanos ? a : b;
  }

  /** Decides every trace that is due. */
  private void tick() {
    long started = scheduler.nanoTime();
    long now = started;
    decideDue(waiting, now);
    decideDue(waitingForRoot, now);
    handOn();
    publishHeld();
    telemetry.tick(scheduler.nanoTime() - started);
  }

  private void decideDue(TraceList list, long now) {
    for (TraceData trace = list.oldest();
        trace != null && trace.dueNanos - now <= 0;
        trace = list.oldest()) {
      decide(trace, now);
    }
  }

  /** Decides a waiting trace by the policies, with the spans it has now. */
  private void decide(TraceData trace, long now) {
    trace.nowNanos = now;
    Decision decision = evaluate(trace);
    telemetry.decided(decision, trace);
    release(trace, decision == Decision.SAMPLED, now);
  }

  /**
   * The Collector's decision over the policies: the {@code drop} policies first, any of them
   * dropping decides; then the others in order (stopping at the first that samples with {@code
   * sample_on_first_match}); an inverted non-match beats a sample, which beats an inverted match,
   * which counts only when no policy answered not sampled.
   */
  private Decision evaluate(TraceData trace) {
    boolean invertNotSampled = false;
    boolean sampled = false;
    boolean invertSampled = false;
    boolean notSampled = false;
    for (int i = 0; i < policies.size(); i++) {
      Policies.Named policy = policies.get(i);
      long started = scheduler.nanoTime();
      Decision decision;
      try {
        decision = policy.evaluator().evaluate(trace);
      } catch (RuntimeException e) {
        dropLog.log("Policy " + policy.name() + " failed on a trace: " + e);
        decision = Decision.ERROR;
      }
      telemetry.policy(i, decision, trace, scheduler.nanoTime() - started);
      if (decision == Decision.DROPPED) {
        return Decision.DROPPED;
      }
      if (policy.drop()) {
        continue; // a drop policy that does not drop takes no part in the decision
      }
      switch (decision) {
        case SAMPLED -> sampled = true;
        case INVERT_SAMPLED -> invertSampled = true;
        case INVERT_NOT_SAMPLED -> invertNotSampled = true;
        case NOT_SAMPLED -> notSampled = true;
        default -> {}
      }
      if (config.sampleOnFirstMatch() && decision == Decision.SAMPLED) {
        break;
      }
    }
    if (invertNotSampled) {
      return Decision.NOT_SAMPLED;
    }
    if (sampled || (invertSampled && !notSampled)) {
      return Decision.SAMPLED;
    }
    return Decision.NOT_SAMPLED;
  }

  /** The decision the policies make on {@code trace}, for tests. */
  Decision evaluateForTest(TraceData trace) {
    lock.lock();
    try {
      return evaluate(trace);
    } finally {
      lock.unlock();
    }
  }

  /** Ends a trace's wait: its spans go out or away, and it is remembered as decided. */
  private void release(TraceData trace, boolean sampled, long now) {
    trace.dueList.remove(trace);
    trace.dueList = null;
    trace.state = sampled ? TraceData.SAMPLED : TraceData.NOT_SAMPLED;
    trace.decidedNanos = now;
    heldBytes -= trace.bytes;
    if (sampled) {
      outgoing.addAll(trace.spans);
    } else {
      trace.spans.clear();
    }
    DecisionCache cache = sampled ? sampledCache : notSampledCache;
    if (cache.enabled()) {
      // Remembered by the cache: the table lets go of it at once, as the Collector's does.
      cache.put(trace.traceIdHigh, trace.traceIdLow);
      forget(trace);
    }
  }

  private void forget(TraceData trace) {
    table.remove(trace);
    arrivals.remove(trace);
    trace.inTable = false;
  }

  /** Offers the sampled spans to the next stage; kept, and offered again soon, when refused. */
  private void handOn() {
    if (!offerOutgoing() && retry == null && !stopped) {
      retry = scheduler.schedule(this::retry, BLOCKED_RETRY_NANOS);
    }
  }

  /** Offers the sampled spans once; true when none are left (taken, or there were none). */
  private boolean offerOutgoing() {
    if (outgoing.isEmpty()) {
      return true;
    }
    long units = outgoing.unitCount();
    if (next.consume(outgoing) != Admission.ACCEPTED) {
      return false;
    }
    telemetry.outgoing(units);
    outgoing = new Batch(Signal.TRACES);
    return true;
  }

  private void retry() {
    lock.lock();
    try {
      retry = null;
      if (!stopped) {
        handOn();
      }
    } finally {
      lock.unlock();
    }
  }

  private void publishHeld() {
    telemetry.held(table.size(), waiting.size() + waitingForRoot.size(), heldBytes);
  }

  /** Traces held (waiting or remembered), for tests. */
  int tracesHeld() {
    lock.lock();
    try {
      return table.size();
    } finally {
      lock.unlock();
    }
  }

  /** Bytes of spans waiting for a decision, for tests. */
  long bytesHeld() {
    lock.lock();
    try {
      return heldBytes;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void shutdown(long deadlineNanos) throws InterruptedException {
    ticks.stop();
    lock.lock();
    try {
      stopped = true;
      if (retry != null) {
        retry.cancel();
        retry = null;
      }
      long now = scheduler.nanoTime();
      for (TraceData trace = oldestWaiting(); trace != null; trace = oldestWaiting()) {
        if (config.dropPendingTracesOnShutdown()) {
          release(trace, false, now);
        } else {
          telemetry.decidedEarly("shutdown");
          decide(trace, now);
        }
      }
      handOnUntil(deadlineNanos);
      long lost = outgoing.unitCount();
      if (lost > 0) {
        telemetry.dropped(lost);
        dropLog.log("Dropping " + lost + " spans: the shutdown deadline passed");
      }
      // Dropped only because the collector stops: a durable pipeline delivers them after restart.
      outgoing.abandonRequests();
      outgoing.clear();
      publishHeld();
    } finally {
      lock.unlock();
    }
  }

  private void handOnUntil(long deadlineNanos) throws InterruptedException {
    while (!offerOutgoing() && deadlineNanos - System.nanoTime() > 0) {
      lock.unlock();
      try {
        TimeUnit.NANOSECONDS.sleep(BLOCKED_RETRY_NANOS);
      } finally {
        lock.lock();
      }
    }
  }
}
