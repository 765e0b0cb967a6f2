package dev.sluice.processor.probabilisticsampler;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchFunction;
import dev.sluice.component.ComponentSettings;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;

/**
 * The {@code probabilistic_sampler} of one traces or logs pipeline: visits every span or log record
 * of a batch and drops those not sampled ({@link SpanPass}, {@link LogPass}). Receivers call it
 * from several threads, so each thread has its own pass (scratch buffers, counts) and the counters
 * are added to once per batch.
 */
final class SamplerFunction implements BatchFunction<ProbabilisticSamplerConfig> {
  private final SamplerCounters counters;
  private final ThreadLocal<SpanPass> spanPasses;
  private final ThreadLocal<LogPass> logPasses;
  private final Signal signal;

  SamplerFunction(ComponentSettings settings, ProbabilisticSamplerConfig config, Signal signal) {
    if (signal == Signal.METRICS) {
      throw new IllegalArgumentException("probabilistic_sampler does not support metrics");
    }
    this.signal = signal;
    Sampler sampler = new Sampler(config);
    if (signal == Signal.TRACES) {
      counters = SamplerCounters.forSpans(settings.metrics(), settings.id());
      spanPasses = ThreadLocal.withInitial(() -> new SpanPass(sampler));
      logPasses = null;
    } else {
      counters = SamplerCounters.forLogs(settings.metrics(), settings.id(), config.fromAttribute());
      spanPasses = null;
      logPasses = ThreadLocal.withInitial(() -> new LogPass(sampler, config));
    }
  }

  @Override
  public Admission apply(Batch batch, ProbabilisticSamplerConfig config) {
    if (signal == Signal.TRACES) {
      SpanPass pass = spanPasses.get();
      try {
        batch.visit(pass);
      } finally {
        counters.flush(pass.counts);
      }
    } else {
      LogPass pass = logPasses.get();
      try {
        batch.visit(pass);
      } finally {
        counters.flush(pass.counts);
      }
    }
    return Admission.ACCEPTED;
  }
}
