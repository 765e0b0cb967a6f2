package dev.sluice.bench;

import dev.sluice.ottl.EvalContext;
import dev.sluice.ottl.OttlCondition;
import dev.sluice.ottl.OttlContext;
import dev.sluice.ottl.OttlException;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.ItemVisitor;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What one span condition costs, evaluated over every span of a 1000-span request of {@link
 * SpanShapes} (nothing dropped, nothing written), for the conditions filters write most. Run with
 * {@code -prof gc}.
 *
 * <ul>
 *   <li>{@code scanned}: the evaluator a filter gets ({@link OttlCondition#newEvaluator}), whose
 *       keyed comparisons read the span in one walk of its fields.
 *   <li>{@code general}: {@link OttlCondition#newGeneralEvaluator}, which reads the same paths
 *       through the attribute cursor and value holders: the baseline.
 * </ul>
 *
 * The per-span visit both share (positioning the item and its view) is {@code visitOnly}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class OttlConditionBenchmark {
  @Param({
    "attributes[\"http.route\"] == \"/health\"",
    "attributes[\"url.scheme\"] != \"https\" or name == \"GET /health\"",
    "IsMatch(attributes[\"http.route\"], \"^/api/v1/(users|orders)\")"
  })
  public String condition;

  @Param({"1000"})
  public int spans;

  Batch batch;
  int matched;

  private final EvalContext context = new EvalContext();
  private OttlCondition.Evaluator scanned;
  private OttlCondition.Evaluator general;
  private final ItemVisitor scannedVisitor = item -> visit(item, scanned);
  private final ItemVisitor generalVisitor = item -> visit(item, general);
  private final ItemVisitor positionOnly = item -> context.block(item).span(item.span());

  @Setup
  public void setup() throws MalformedOtlpException, OttlException {
    byte[] request = SpanShapes.requestBytes(SpanShapes.DEFAULT_SEED, spans);
    batch = Batch.of(new OtlpIndexer().index(Signal.TRACES, request));
    OttlCondition parsed = OttlCondition.parse(condition, OttlContext.SPAN);
    scanned = parsed.newEvaluator();
    general = parsed.newGeneralEvaluator();
  }

  @TearDown
  public void tearDown() {
    batch.clear();
  }

  private void visit(dev.sluice.pdata.BatchItem item, OttlCondition.Evaluator evaluator) {
    context.block(item).span(item.span());
    if (evaluator.matches(context)) {
      matched++;
    }
  }

  @Benchmark
  public int scanned() {
    matched = 0;
    batch.visit(scannedVisitor);
    return matched;
  }

  @Benchmark
  public int general() {
    matched = 0;
    batch.visit(generalVisitor);
    return matched;
  }

  @Benchmark
  public long visitOnly() {
    return batch.visit(positionOnly);
  }
}
