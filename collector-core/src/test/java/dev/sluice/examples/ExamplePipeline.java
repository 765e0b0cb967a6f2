package dev.sluice.examples;

import dev.sluice.component.CollectorStatus;
import dev.sluice.component.ComponentId;
import dev.sluice.component.QueueConfig;
import dev.sluice.component.Scheduler;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Signal;
import dev.sluice.service.ComponentSpec;
import dev.sluice.service.MemoryBudget;
import dev.sluice.service.PipelineGraph;
import dev.sluice.service.PipelineSpec;
import dev.sluice.testkit.PipelineFixture;
import dev.sluice.testkit.RecordingExporter;
import dev.sluice.testkit.TestComponents;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * One traces pipeline as the collector builds it (receiver, processors, an exporter behind its
 * sending queue), whose exporter records the requests it is asked to send.
 */
final class ExamplePipeline implements AutoCloseable {
  private final TestComponents.TestExporters exporters =
      TestComponents.exporters(new TestComponents.Journal());
  private final List<String> fatal = new CopyOnWriteArrayList<>();
  final PipelineGraph graph;

  /** A started pipeline {@code receiver -> processors -> exporter "recorder"}. */
  ExamplePipeline(ComponentSpec receiver, List<ComponentSpec> processors) throws Exception {
    QueueConfig queue = PipelineFixture.queue(1, 100);
    List<ComponentSpec> components = new ArrayList<>(processors);
    components.add(receiver);
    components.add(
        new ComponentSpec(
            ComponentId.parse("recorder"),
            exporters,
            PipelineFixture.config(queue, PipelineFixture.fastRetry())));
    PipelineSpec traces =
        new PipelineSpec(
            "traces",
            Signal.TRACES,
            List.of(receiver.id()),
            processors.stream().map(ComponentSpec::id).toList(),
            List.of(ComponentId.parse("recorder")));
    graph =
        new PipelineGraph(
            components,
            List.of(traces),
            List.of(),
            new PipelineGraph.Settings(
                new MetricRegistry(),
                Scheduler.shared(),
                new MemoryBudget(64L << 20, 1_000_000),
                () -> CollectorStatus.State.RUNNING,
                100,
                Integer.MAX_VALUE,
                fatal::add));
    graph.startExtensions();
    graph.startPipelines();
  }

  RecordingExporter exported() {
    return exporters.recorder("recorder");
  }

  @Override
  public void close() throws InterruptedException {
    graph.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(10));
    if (!fatal.isEmpty()) {
      throw new AssertionError("the pipeline failed: " + fatal);
    }
  }
}
