package dev.sluice.bench;

import dev.sluice.component.Processor;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/**
 * The memory a span waiting in {@code tail_sampling} takes: {@code requests} requests of 1000
 * {@link SpanShapes} spans, in traces of {@link TailSamplingBenchmark#SPANS_PER_TRACE} spans spread
 * over each request, are encoded first; the heap in use (after a full collection) is measured
 * before they are indexed and handed to the processor, and again once all wait there for their
 * decision. The difference, per span, is what holding a span costs beyond the request bytes it came
 * in (the index, the slices, the trace table); the request's bytes per span are printed beside it.
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.sluice.bench.TailSamplingFootprint [requests]</pre>
 */
public final class TailSamplingFootprint {
  private TailSamplingFootprint() {}

  public static void main(String[] args) throws Exception {
    int requests = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    TailSamplingBenchmark.ManualClock clock = new TailSamplingBenchmark.ManualClock();
    TailSamplingBenchmark.Sink sink = new TailSamplingBenchmark.Sink();
    Processor processor =
        TailSamplingBenchmark.processor(clock, sink, 1_000_000, TailSamplingBenchmark.POLICIES);
    processor.start();
    // Made once before measuring, so that the classes and the indexer's buffers are counted out.
    byte[][] bytes = new byte[requests][];
    long wireBytes = 0;
    long spans = 0;
    for (int i = 0; i < requests; i++) {
      bytes[i] = TailSamplingBenchmark.request(SpanShapes.DEFAULT_SEED + i, 1000).toByteArray();
    }
    OtlpIndexer indexer = new OtlpIndexer();
    processor.consume(Batch.of(indexer.index(Signal.TRACES, bytes[0].clone())));
    long before = usedAfterGc();
    for (int i = 1; i < requests; i++) {
      Batch batch = Batch.of(indexer.index(Signal.TRACES, bytes[i]));
      spans += batch.unitCount();
      wireBytes += bytes[i].length;
      bytes[i] = null; // the processor's hold is what keeps them now
      processor.consume(batch);
    }
    long after = usedAfterGc();
    double beyond = (after - before) / (double) spans;
    double wire = wireBytes / (double) spans;
    System.out.printf(
        "%d spans waiting: %.0f bytes of heap per span: the request's %.0f bytes and %.0f more%n",
        spans, wire + beyond, wire, beyond);
    processor.shutdown(System.nanoTime());
  }

  private static long usedAfterGc() throws InterruptedException {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(100);
    }
    return memory.getHeapMemoryUsage().getUsed();
  }
}
