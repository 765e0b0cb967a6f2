package dev.sluice.bench;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The batcher's step: moving (part of) an arriving request into a pending batch of {@value
 * #BATCH_CAPACITY} spans that already holds {@value #PENDING_SPANS}.
 *
 * <p>{@code move=all} moves the whole request (at most the {@value #ROOM} spans of room left, so
 * the 10000-span request is cut too); {@code move=half} moves the first half, a cut in the middle
 * of a request. Run over {@code requestSpans} to see which costs grow with the request.
 *
 * <ul>
 *   <li>{@code sluice}: {@link Batch#moveTo} from the request's batch into the pending batch.
 *   <li>{@code protobufJava}: a decode-into-objects batcher: {@code addAllSpans} of the moved spans
 *       (a sub-list of the parsed request's spans) into the pending batch's {@link
 *       ScopeSpans.Builder}.
 *   <li>{@code removeHead}: the naive queue: spans in an {@link ArrayList}, taken one by one with
 *       {@code remove(0)} and added to the batch's list.
 * </ul>
 *
 * <p>Each operation moves from the same starting state, so {@code sluice}, {@code protobufJava} and
 * {@code removeHead} begin or end with an explicit reset, measured with them (no {@code
 * Level.Invocation} setup, whose timestamps would cost more than the Sluice move itself):
 *
 * <ul>
 *   <li>{@code sluice}: clear the pending batch and add the 4096-span request to it again, and make
 *       the request's batch anew with {@link Batch#of}: O(1), a few small allocations. {@code
 *       sluiceResetOnly} measures that reset alone; the move costs the difference.
 *   <li>{@code protobufJava}: remove the moved spans again from the tail of the builder, O(1) per
 *       span ({@code ArrayList.remove} of the last element) but about as costly as the add, so the
 *       score is an upper bound of the add. {@code protobufJavaAddOnly} does the same add with the
 *       removal in a {@code Level.Invocation} setup, outside the timing: acceptable there because
 *       the add takes microseconds, far above the per-invocation timestamps JMH then takes.
 *   <li>{@code removeHead}: put the moved spans back at the head of the queue and drop them from
 *       the batch list: two array copies, O(request), small beside the O(moved x request) of the
 *       removes.
 * </ul>
 *
 * JMH hands the returned values to its Blackhole.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class SplitBenchmark {
  public static final int BATCH_CAPACITY = 8192;
  public static final int PENDING_SPANS = 4096;
  public static final int ROOM = BATCH_CAPACITY - PENDING_SPANS;

  @Param({"100", "1000", "10000"})
  public int requestSpans;

  @Param({"all", "half"})
  public String move;

  /** Spans each operation moves. */
  int moveSpans;

  // Sluice.
  OtlpIndex request;
  OtlpIndex pendingRequest;
  Batch pending;

  // protobuf-java.
  List<Span> requestSpanList;
  ScopeSpans.Builder pendingScope;
  ScopeSpans.Builder pendingScopeAddOnly;

  // The naive queue.
  ArrayList<Span> queue;
  ArrayList<Span> batchList;

  @Setup
  public void setup() throws MalformedOtlpException, InvalidProtocolBufferException {
    int wanted =
        switch (move) {
          case "all" -> requestSpans;
          case "half" -> requestSpans / 2;
          default -> throw new IllegalArgumentException("move=all or move=half: " + move);
        };
    moveSpans = Math.min(wanted, ROOM);

    byte[] requestBytes = SpanShapes.requestBytes(SpanShapes.DEFAULT_SEED, requestSpans);
    byte[] pendingBytes = SpanShapes.requestBytes(SpanShapes.DEFAULT_SEED + 1, PENDING_SPANS);

    OtlpIndexer indexer = new OtlpIndexer();
    request = indexer.index(Signal.TRACES, requestBytes);
    pendingRequest = indexer.index(Signal.TRACES, pendingBytes);
    pending = new Batch(Signal.TRACES);
    pending.add(pendingRequest);

    List<Span> parsedRequest = spansOf(requestBytes);
    List<Span> parsedPending = spansOf(pendingBytes);
    requestSpanList = parsedRequest;
    pendingScope = ScopeSpans.newBuilder().setScope(SpanShapes.scope()).addAllSpans(parsedPending);
    pendingScopeAddOnly =
        ScopeSpans.newBuilder().setScope(SpanShapes.scope()).addAllSpans(parsedPending);

    queue = new ArrayList<>(parsedRequest);
    batchList = new ArrayList<>(BATCH_CAPACITY);
    batchList.addAll(parsedPending);
  }

  private static List<Span> spansOf(byte[] request) throws InvalidProtocolBufferException {
    return ExportTraceServiceRequest.parseFrom(request)
        .getResourceSpans(0)
        .getScopeSpans(0)
        .getSpansList();
  }

  /** Returns the request's batch, holding what was not moved. */
  @Benchmark
  public Batch sluice() {
    Batch source = resetSluice();
    source.moveTo(pending, moveSpans);
    return source;
  }

  @Benchmark
  public Batch sluiceResetOnly() {
    return resetSluice();
  }

  private Batch resetSluice() {
    pending.clear();
    pending.add(pendingRequest);
    return Batch.of(request);
  }

  @Benchmark
  public int protobufJava() {
    pendingScope.addAllSpans(requestSpanList.subList(0, moveSpans));
    int count = pendingScope.getSpansCount();
    removeMoved(pendingScope);
    return count;
  }

  @Benchmark
  public int protobufJavaAddOnly(AddOnly state) {
    state.pending.addAllSpans(state.requestSpans.subList(0, state.moveSpans));
    return state.pending.getSpansCount();
  }

  /** Takes the pending batch back to its {@value #PENDING_SPANS} spans, from the tail. */
  static void removeMoved(ScopeSpans.Builder scope) {
    for (int i = scope.getSpansCount() - 1; i >= PENDING_SPANS; i--) {
      scope.removeSpans(i);
    }
  }

  /**
   * The inputs of {@code protobufJavaAddOnly}, taken from a benchmark instance (JMH injects an
   * instance of its own, not the one running the benchmark method), with the undo of the previous
   * add before each invocation, outside its timing.
   */
  @State(Scope.Thread)
  public static class AddOnly {
    List<Span> requestSpans;
    int moveSpans;
    ScopeSpans.Builder pending;

    @Setup
    public void setup(SplitBenchmark benchmark) {
      requestSpans = benchmark.requestSpanList;
      moveSpans = benchmark.moveSpans;
      pending = benchmark.pendingScopeAddOnly;
    }

    @Setup(Level.Invocation)
    public void undo() {
      removeMoved(pending);
    }
  }

  @Benchmark
  public int removeHead() {
    for (int i = 0; i < moveSpans; i++) {
      batchList.add(queue.remove(0));
    }
    int count = batchList.size();
    List<Span> moved = batchList.subList(PENDING_SPANS, count);
    queue.addAll(0, moved);
    moved.clear();
    return count;
  }
}
