package dev.sluice.processor.tailsampling;

import dev.sluice.component.ComponentConfig;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.GoDuration;
import dev.sluice.component.Unsupported;
import java.time.Duration;
import java.util.List;

/**
 * The {@code tail_sampling} processor's configuration, with the OpenTelemetry Collector's keys and
 * defaults, and one key of Sluice's own ({@code max_bytes}).
 *
 * @param decisionWait how long after its first span a trace is decided
 * @param decisionWaitAfterRootReceived when above 0, a trace whose root span has arrived is decided
 *     this long after it, if that is sooner
 * @param numTraces at most this many traces are held (waiting or remembered as decided)
 * @param maxBytes at most this many bytes of spans are held waiting; 0: half the collector's
 *     pipeline memory bound
 * @param blockOnOverflow accepted for the Collector's files: where the Collector would wait for
 *     room, Sluice decides the oldest trace early (it never blocks its receivers)
 * @param expectedNewTracesPerSec a sizing hint for the trace table
 * @param policies the policies every trace is decided by
 * @param decisionCache how many decided trace IDs are remembered beyond {@code num_traces}
 * @param sampleOnFirstMatch stop at the first policy that samples
 * @param samplingStrategy {@code trace-complete} only
 * @param dropPendingTracesOnShutdown drop the traces still waiting at shutdown instead of deciding
 *     them
 * @param maximumTraceSizeBytes a trace that grows past this is not sampled; 0: no limit
 * @param numShards accepted for the Collector's files; Sluice's table is one
 * @param tailStorage not supported: Sluice holds waiting spans in its log instead (see the docs)
 */
public record TailSamplingConfig(
    Duration decisionWait,
    Duration decisionWaitAfterRootReceived,
    long numTraces,
    long maxBytes,
    boolean blockOnOverflow,
    long expectedNewTracesPerSec,
    List<PolicyConfig> policies,
    DecisionCache decisionCache,
    boolean sampleOnFirstMatch,
    String samplingStrategy,
    boolean dropPendingTracesOnShutdown,
    long maximumTraceSizeBytes,
    int numShards,
    Unsupported tailStorage)
    implements ComponentConfig {
  public static final String TRACE_COMPLETE = "trace-complete";

  public static final TailSamplingConfig DEFAULT =
      new TailSamplingConfig(
          Duration.ofSeconds(30),
          Duration.ZERO,
          50_000,
          0,
          false,
          0,
          List.of(),
          new DecisionCache(0, 0),
          false,
          TRACE_COMPLETE,
          false,
          0,
          1,
          null);

  /** How many decided trace IDs are remembered, sampled and not, beyond the trace table. */
  public record DecisionCache(int sampledCacheSize, int nonSampledCacheSize) {}

  @Override
  public void validate(ConfigProblems problems) {
    if (decisionWait.isNegative() || decisionWait.isZero()) {
      problems.add("decision_wait", "must be above 0, was " + GoDuration.format(decisionWait));
    }
    if (decisionWaitAfterRootReceived.isNegative()) {
      problems.add(
          "decision_wait_after_root_received",
          "must not be negative, was " + GoDuration.format(decisionWaitAfterRootReceived));
    }
    if (numTraces < 1) {
      problems.add("num_traces", "must be at least 1, was " + numTraces);
    }
    if (maxBytes < 0) {
      problems.add(
          "max_bytes", "must not be negative (0: half the pipeline bound), was " + maxBytes);
    }
    if (expectedNewTracesPerSec < 0) {
      problems.add("expected_new_traces_per_sec", "must not be negative");
    }
    if (decisionCache.sampledCacheSize() < 0) {
      problems.add("decision_cache.sampled_cache_size", "must not be negative");
    }
    if (decisionCache.nonSampledCacheSize() < 0) {
      problems.add("decision_cache.non_sampled_cache_size", "must not be negative");
    }
    if (!TRACE_COMPLETE.equals(samplingStrategy)) {
      problems.add(
          "sampling_strategy",
          "\""
              + samplingStrategy
              + "\" is not supported: Sluice decides on the whole trace (\"trace-complete\")");
    }
    if (maximumTraceSizeBytes < 0) {
      problems.add("maximum_trace_size_bytes", "must not be negative");
    }
    if (numShards < 0 || numShards > 256) {
      problems.add("num_shards", "must be 0 to 256, was " + numShards);
    }
    if (tailStorage != null) {
      problems.add(
          "tail_storage",
          "is not supported: with file_storage on the pipeline's exporter, spans waiting for a"
              + " decision are kept in the write-ahead log");
    }
    if (policies.isEmpty()) {
      problems.add("policies", "no policies: name at least one");
    }
    Policies.validate(policies, problems.under("policies"));
  }
}
