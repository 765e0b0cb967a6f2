package dev.sluice.bench;

import java.lang.management.ManagementFactory;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * The CPU time of the benchmark's JVM, all threads together (the calling thread, a client's I/O
 * threads, GC, the JIT), per operation: {@code cpu.time.norm} in microseconds. Where work moves to
 * other threads, the average time of an operation says how long the caller waited, not what the
 * work cost; this says what it cost. Use with {@code -prof dev.sluice.bench.CpuTimeProfiler}; it
 * counts everything in the JVM, so keep servers and other load in processes of their own.
 */
public final class CpuTimeProfiler implements InternalProfiler {
  private long startNanos;

  @Override
  public String getDescription() {
    return "CPU time of this JVM (all threads) per operation";
  }

  @Override
  public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
    startNanos = processCpuNanos();
  }

  @Override
  public Collection<? extends Result> afterIteration(
      BenchmarkParams benchmarkParams, IterationParams iterationParams, IterationResult result) {
    long cpu = processCpuNanos() - startNanos;
    long operations = result.getMetadata().getAllOps();
    double microsPerOp = operations == 0 ? Double.NaN : cpu / 1000.0 / operations;
    return List.of(new ScalarResult("cpu.time.norm", microsPerOp, "us/op", AggregationPolicy.AVG));
  }

  static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }
}
