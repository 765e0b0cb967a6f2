package dev.sluice.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.component.Admission;
import dev.sluice.component.CollectorStatus;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ExportResult;
import dev.sluice.component.QueueConfig;
import dev.sluice.component.RequestConsumer;
import dev.sluice.component.Scheduler;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.pdata.Signal;
import dev.sluice.testkit.Await;
import dev.sluice.testkit.MetricsText;
import dev.sluice.testkit.PipelineFixture;
import dev.sluice.testkit.RecordingExporter;
import dev.sluice.testkit.SequencedSpans;
import dev.sluice.testkit.TestComponents;
import dev.sluice.testkit.TestComponents.Journal;
import dev.sluice.testkit.TestComponents.ProcessorConfig;
import dev.sluice.testkit.TestComponents.TestReceiver;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pipeline graph built from pipelines of the test kit's components: what feeds what, which
 * parts are shared, the order of starts and stops, and which receivers' requests are logged.
 */
class PipelineGraphTest {
  private static final int SPANS = 10;
  private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(10);

  @TempDir Path directory;

  private final Journal journal = new Journal();
  private final TestComponents.TestExporters exporterFactory = TestComponents.exporters(journal);
  private final TestComponents.TestProcessors processorFactory = TestComponents.processors(journal);
  private final TestComponents.TestConnectors connectorFactory = TestComponents.connectors(journal);
  private final List<String> fatal = new CopyOnWriteArrayList<>();
  private final List<PipelineGraph> running = new ArrayList<>();
  private MetricRegistry metrics;

  @AfterEach
  void stopWhatRuns() throws InterruptedException {
    for (PipelineGraph graph : running) {
      graph.shutdown(System.nanoTime() + DEADLINE_NANOS);
    }
    assertThat(fatal).isEmpty();
  }

  private ComponentSpec receiver(String id) {
    return new ComponentSpec(
        ComponentId.parse(id), TestComponents.receivers(journal), new TestComponents.NoConfig());
  }

  private ComponentSpec processor(String id, boolean holds) {
    return new ComponentSpec(ComponentId.parse(id), processorFactory, new ProcessorConfig(holds));
  }

  /** An exporter with a queue of 100 requests, logged in {@code storage} when not null. */
  private ComponentSpec exporter(String id, String storage) {
    QueueConfig queue =
        new QueueConfig(true, 1, 100, QueueConfig.Sizer.REQUESTS, false, false, storage);
    return new ComponentSpec(
        ComponentId.parse(id),
        exporterFactory,
        PipelineFixture.config(queue, PipelineFixture.fastRetry()));
  }

  /** A connector of the test kit: hands each batch on, pipelines of one signal. */
  private ComponentSpec connector(String id) {
    return new ComponentSpec(
        ComponentId.parse(id), connectorFactory, new TestComponents.NoConfig());
  }

  /** An exporter with a queue of one request and one sending thread. */
  private ComponentSpec narrowExporter(String id) {
    QueueConfig queue = new QueueConfig(true, 1, 1, QueueConfig.Sizer.REQUESTS, false, false, null);
    return new ComponentSpec(
        ComponentId.parse(id),
        exporterFactory,
        PipelineFixture.config(queue, PipelineFixture.fastRetry()));
  }

  private ComponentSpec storage(String id) {
    return new ComponentSpec(
        ComponentId.parse(id),
        TestComponents.storages(journal),
        new TestComponents.StorageConfig(directory.resolve(id.replace('/', '-'))));
  }

  private static PipelineSpec traces(
      String name, List<String> receivers, List<String> processors, List<String> exporters) {
    return new PipelineSpec(name, Signal.TRACES, ids(receivers), ids(processors), ids(exporters));
  }

  private static List<ComponentId> ids(List<String> ids) {
    return ids.stream().map(ComponentId::parse).toList();
  }

  private PipelineGraph graph(
      List<ComponentSpec> components, List<PipelineSpec> pipelines, List<String> extensions) {
    metrics = new MetricRegistry();
    return new PipelineGraph(
        components,
        pipelines,
        ids(extensions),
        new PipelineGraph.Settings(
            metrics,
            Scheduler.shared(),
            new MemoryBudget(64L << 20, 1_000_000),
            () -> CollectorStatus.State.RUNNING,
            100,
            Integer.MAX_VALUE,
            fatal::add));
  }

  private PipelineGraph started(
      List<ComponentSpec> components, List<PipelineSpec> pipelines, List<String> extensions)
      throws Exception {
    PipelineGraph graph = graph(components, pipelines, extensions);
    running.add(graph);
    graph.startExtensions();
    graph.startPipelines();
    return graph;
  }

  private static RequestConsumer tracesOf(PipelineGraph graph, String receiver) {
    return ((TestReceiver) graph.receiver(ComponentId.parse(receiver)))
        .consumers()
        .get(Signal.TRACES);
  }

  /** Spans {@code first..first+9} from {@code receiver}, answered at once. */
  private static Admission send(PipelineGraph graph, String receiver, int first) {
    return tracesOf(graph, receiver).consume(SequencedSpans.indexed("svc", first, SPANS));
  }

  /** How many batches {@code part} ("processor p", "connector link") was handed so far. */
  private long consumed(String part) {
    return journal.events("consume").stream().filter(e -> e.equals("consume " + part)).count();
  }

  /** Spans {@code first..first+9} from {@code receiver}, whose requests are logged. */
  private static Admission sendLogged(PipelineGraph graph, String receiver, int first)
      throws Exception {
    CompletableFuture<Admission> answer = new CompletableFuture<>();
    tracesOf(graph, receiver)
        .consume(SequencedSpans.indexed("svc", first, SPANS), answer::complete);
    return answer.get(10, TimeUnit.SECONDS);
  }

  private static List<Integer> numbers(int first) {
    return IntStream.range(first, first + SPANS).boxed().toList();
  }

  private static List<Integer> delivered(RecordingExporter exporter) {
    List<Integer> numbers = new ArrayList<>();
    exporter
        .delivered()
        .forEach(attempt -> numbers.addAll(SequencedSpans.numbers(attempt.request())));
    return numbers;
  }

  @Test
  void aReceiverListedByTwoPipelinesOfOneSignalFeedsBoth() throws Exception {
    PipelineGraph graph =
        started(
            List.of(receiver("r"), exporter("x", null), exporter("y", null)),
            List.of(
                traces("traces/x", List.of("r"), List.of(), List.of("x")),
                traces("traces/y", List.of("r"), List.of(), List.of("y"))),
            List.of());

    TestReceiver r = (TestReceiver) graph.receiver(ComponentId.parse("r"));
    assertThat(r.consumers()).containsOnlyKeys(Signal.TRACES);
    assertThat(send(graph, "r", 0)).isEqualTo(Admission.ACCEPTED);

    for (String id : List.of("x", "y")) {
      RecordingExporter exporter = exporterFactory.recorder(id);
      assertThat(exporter.awaitDeliveredUnits(SPANS, 10, TimeUnit.SECONDS)).isTrue();
      assertThat(delivered(exporter)).containsExactlyElementsOf(numbers(0));
    }
    assertThat(graph.receiverCount()).isEqualTo(1);
  }

  @Test
  void processorsRunInTheOrderTheirPipelineListsThem() throws Exception {
    PipelineGraph graph =
        started(
            List.of(
                receiver("r"),
                processor("p/1", false),
                processor("p/2", false),
                processor("p/3", false),
                exporter("x", null)),
            List.of(traces("traces", List.of("r"), List.of("p/3", "p/1", "p/2"), List.of("x"))),
            List.of());

    assertThat(send(graph, "r", 0)).isEqualTo(Admission.ACCEPTED);

    assertThat(journal.events("consume"))
        .containsExactly("consume processor p/3", "consume processor p/1", "consume processor p/2");
    assertThat(exporterFactory.recorder("x").awaitDeliveredUnits(SPANS, 10, TimeUnit.SECONDS))
        .isTrue();
  }

  @Test
  void eachPipelineHasItsOwnInstanceOfAProcessorItLists() throws Exception {
    started(
        List.of(receiver("r"), processor("p", false), exporter("x", null), exporter("y", null)),
        List.of(
            traces("traces/x", List.of("r"), List.of("p"), List.of("x")),
            traces("traces/y", List.of("r"), List.of("p"), List.of("y"))),
        List.of());

    assertThat(processorFactory.made("p")).isEqualTo(2);
  }

  @Test
  void anExporterSharedByTwoPipelinesIsOneSendingChain() throws Exception {
    PipelineGraph graph =
        started(
            List.of(receiver("r/1"), receiver("r/2"), exporter("x", null)),
            List.of(
                traces("traces/1", List.of("r/1"), List.of(), List.of("x")),
                traces("traces/2", List.of("r/2"), List.of(), List.of("x"))),
            List.of());

    assertThat(send(graph, "r/1", 0)).isEqualTo(Admission.ACCEPTED);
    assertThat(send(graph, "r/2", SPANS)).isEqualTo(Admission.ACCEPTED);

    RecordingExporter x = exporterFactory.recorder("x");
    assertThat(x.awaitDeliveredUnits(2 * SPANS, 10, TimeUnit.SECONDS)).isTrue();
    assertThat(delivered(x))
        .containsExactlyInAnyOrderElementsOf(IntStream.range(0, 2 * SPANS).boxed().toList());
    assertThat(exporterFactory.made("x")).isEqualTo(1);
    assertThat(graph.exporterCount()).isEqualTo(1);
    // One sending queue, whose figures are published once.
    assertThat(
            MetricsText.of(metrics)
                .lines()
                .filter(line -> line.startsWith("otelcol_exporter_queue_cap")))
        .containsExactly("otelcol_exporter_queue_capacity{exporter=\"x\"} 100");
  }

  @Test
  void startsExportersThenProcessorsThenReceiversAndStopsInTheReverseOrder() throws Exception {
    PipelineGraph graph =
        started(
            List.of(
                receiver("r"),
                processor("hold/1", true),
                processor("hold/2", true),
                exporter("x", null),
                storage("file_storage")),
            List.of(traces("traces", List.of("r"), List.of("hold/1", "hold/2"), List.of("x"))),
            List.of("file_storage"));
    assertThat(journal.events("start"))
        .containsExactly(
            "start extension file_storage",
            "start exporter x",
            "start processor hold/1",
            "start processor hold/2",
            "start receiver r");

    // Held by the first processor until it stops.
    assertThat(send(graph, "r", 0)).isEqualTo(Admission.ACCEPTED);
    RecordingExporter x = exporterFactory.recorder("x");
    assertThat(x.attempts()).isEmpty();

    running.remove(graph);
    graph.shutdown(System.nanoTime() + DEADLINE_NANOS);

    assertThat(journal.events("stop"))
        .containsExactly(
            "stop receiver r",
            "stop processor hold/1",
            "stop processor hold/2",
            "stop exporter x",
            "stop extension file_storage");
    // Each processor flushed into a stage still running, and the exporter drained its queue
    // before it stopped.
    assertThat(delivered(x)).containsExactlyElementsOf(numbers(0));
  }

  @Test
  void aReceiverFeedingADurablePipelineLogsEachRequestBeforeItIsAnswered() throws Exception {
    List<ComponentSpec> components =
        List.of(
            receiver("r/durable"),
            receiver("r/plain"),
            exporter("d", "file_storage"),
            exporter("x", null),
            storage("file_storage"));
    List<PipelineSpec> pipelines =
        List.of(
            traces("traces/durable", List.of("r/durable"), List.of(), List.of("d")),
            traces("traces/plain", List.of("r/plain"), List.of(), List.of("x")));
    exporterFactory.recorder("d").answerWith(batch -> ExportResult.retryable("down", 0));
    PipelineGraph first = started(components, pipelines, List.of("file_storage"));

    assertThat(tracesOf(first, "r/durable")).isInstanceOf(DurableEntry.class);
    assertThat(tracesOf(first, "r/plain")).isInstanceOf(PipelineEntry.class);

    // When the answer comes, the log has forced the request to disk and owes it to d.
    CompletableFuture<Admission> answer = new CompletableFuture<>();
    CompletableFuture<long[]> logAtAnswer = new CompletableFuture<>();
    tracesOf(first, "r/durable")
        .consume(
            SequencedSpans.indexed("svc", 0, SPANS),
            admission -> {
              logAtAnswer.complete(
                  new long[] {gauge("sluice_wal_fsyncs"), gauge("sluice_wal_records_owed")});
              answer.complete(admission);
            });
    assertThat(answer.get(10, TimeUnit.SECONDS)).isEqualTo(Admission.ACCEPTED);
    assertThat(logAtAnswer.get()[0]).as("forces to disk").isPositive();
    assertThat(logAtAnswer.get()[1]).as("records owed").isEqualTo(1);

    // The other receiver's requests are not logged.
    assertThat(send(first, "r/plain", SPANS)).isEqualTo(Admission.ACCEPTED);
    assertThat(exporterFactory.recorder("x").awaitDeliveredUnits(SPANS, 10, TimeUnit.SECONDS))
        .isTrue();
    Await.until("one record counted in groups", () -> gauge("sluice_wal_grouped_records") == 1);
    assertThat(gauge("sluice_wal_records_owed")).isEqualTo(1);

    running.remove(first);
    first.shutdown(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300));

    // What d had not delivered comes back from the log at the next start.
    exporterFactory.recorder("d").answerWith(batch -> ExportResult.SUCCESS);
    started(components, pipelines, List.of("file_storage"));
    RecordingExporter d = exporterFactory.recorder("d");
    assertThat(d.awaitDeliveredUnits(SPANS, 10, TimeUnit.SECONDS)).isTrue();
    assertThat(delivered(d)).containsExactlyElementsOf(numbers(0));
  }

  @Test
  void durableExportersNamingTwoStoragesAreRefusedBeforeAnythingIsMade() {
    assertThatThrownBy(
            () ->
                graph(
                    List.of(
                        receiver("r"),
                        exporter("d/1", "file_storage/a"),
                        exporter("d/2", "file_storage/b"),
                        storage("file_storage/a"),
                        storage("file_storage/b")),
                    List.of(
                        traces("traces/1", List.of("r"), List.of(), List.of("d/1")),
                        traces("traces/2", List.of("r"), List.of(), List.of("d/2"))),
                    List.of("file_storage/a", "file_storage/b")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "durable exporters name two storages, file_storage/a and file_storage/b:"
                + " Sluice keeps one write-ahead log");
    assertThat(exporterFactory.made("d/1")).isZero();
    assertThat(exporterFactory.made("d/2")).isZero();
  }

  @Test
  void aConnectorHandsWhatEndsOnePipelineToThePipelinesListingItAsAReceiver() throws Exception {
    PipelineGraph graph =
        started(
            List.of(
                receiver("r"),
                connector("link"),
                processor("p", false),
                exporter("x", null),
                exporter("y", null),
                exporter("z", null)),
            List.of(
                traces("traces/in", List.of("r"), List.of(), List.of("x", "link")),
                traces("traces/out", List.of("link"), List.of("p"), List.of("y")),
                traces("traces/also", List.of("link"), List.of(), List.of("z"))),
            List.of());

    assertThat(send(graph, "r", 0)).isEqualTo(Admission.ACCEPTED);

    for (String id : List.of("x", "y", "z")) {
      RecordingExporter exporter = exporterFactory.recorder(id);
      assertThat(exporter.awaitDeliveredUnits(SPANS, 10, TimeUnit.SECONDS)).isTrue();
      assertThat(delivered(exporter)).containsExactlyElementsOf(numbers(0));
    }
    assertThat(journal.events("consume"))
        .containsExactly("consume connector link", "consume processor p");
    assertThat(connectorFactory.output("link").pipelines())
        .containsExactly("traces/out", "traces/also");
    // A connector is not a receiver of the graph.
    assertThat(graph.receiverCount()).isEqualTo(1);
  }

  @Test
  void startsPipelinesAfterThoseTheyFeedAndStopsThemUpstreamFirst() throws Exception {
    PipelineGraph graph =
        started(
            List.of(
                receiver("r"),
                connector("link"),
                processor("hold/in", true),
                processor("hold/out", true),
                exporter("x", null)),
            List.of(
                traces("traces/in", List.of("r"), List.of("hold/in"), List.of("link")),
                traces("traces/out", List.of("link"), List.of("hold/out"), List.of("x"))),
            List.of());
    assertThat(journal.events("start"))
        .containsExactly(
            "start exporter x",
            "start processor hold/out",
            "start processor hold/in",
            "start connector link",
            "start receiver r");

    assertThat(send(graph, "r", 0)).isEqualTo(Admission.ACCEPTED);
    RecordingExporter x = exporterFactory.recorder("x");
    assertThat(x.attempts()).isEmpty();

    running.remove(graph);
    graph.shutdown(System.nanoTime() + DEADLINE_NANOS);

    assertThat(journal.events("stop"))
        .containsExactly(
            "stop receiver r",
            "stop processor hold/in",
            "stop connector link",
            "stop processor hold/out",
            "stop exporter x");
    // What each holding processor flushed at its stop crossed the connector into a pipeline
    // still running.
    assertThat(delivered(x)).containsExactlyElementsOf(numbers(0));
  }

  @Test
  void aFullPipelineBehindAConnectorMakesThePipelineFeedingItRefuseAndLosesNothing()
      throws Exception {
    PipelineGraph graph =
        started(
            List.of(receiver("r"), connector("link"), narrowExporter("slow")),
            List.of(
                traces("traces/in", List.of("r"), List.of(), List.of("link")),
                traces("traces/out", List.of("link"), List.of(), List.of("slow"))),
            List.of());
    RecordingExporter slow = exporterFactory.recorder("slow").close();

    // The exporter holds one request in its queue and one in its sending thread, at most: with
    // its backend stalled, the pipeline in front of the connector soon refuses.
    List<Integer> accepted = new ArrayList<>();
    Admission last = Admission.ACCEPTED;
    for (int i = 0; i < 10 && last == Admission.ACCEPTED; i++) {
      last = send(graph, "r", i * SPANS);
      if (last == Admission.ACCEPTED) {
        accepted.addAll(numbers(i * SPANS));
      }
    }
    assertThat(last).isEqualTo(Admission.FULL);
    assertThat(accepted).hasSizeBetween(SPANS, 2 * SPANS);

    slow.open();
    assertThat(slow.awaitDeliveredUnits(accepted.size(), 10, TimeUnit.SECONDS)).isTrue();
    assertThat(delivered(slow)).containsExactlyInAnyOrderElementsOf(accepted);
  }

  @Test
  void whenAConnectorRefusesTheExportersBesideItGetNoneOfTheBatch() throws Exception {
    PipelineGraph graph =
        started(
            List.of(receiver("r"), connector("link"), exporter("x", null), narrowExporter("slow")),
            List.of(
                traces("traces/in", List.of("r"), List.of(), List.of("x", "link")),
                traces("traces/out", List.of("link"), List.of(), List.of("slow"))),
            List.of());
    RecordingExporter slow = exporterFactory.recorder("slow").close();
    RecordingExporter x = exporterFactory.recorder("x");

    List<Integer> accepted = new ArrayList<>();
    Admission last = Admission.ACCEPTED;
    for (int i = 0; i < 10 && last == Admission.ACCEPTED; i++) {
      last = send(graph, "r", i * SPANS);
      if (last == Admission.ACCEPTED) {
        accepted.addAll(numbers(i * SPANS));
      }
    }
    assertThat(last).isEqualTo(Admission.FULL);

    slow.open();
    assertThat(slow.awaitDeliveredUnits(accepted.size(), 10, TimeUnit.SECONDS)).isTrue();
    assertThat(x.awaitDeliveredUnits(accepted.size(), 10, TimeUnit.SECONDS)).isTrue();
    // All or none: the refused request reached neither the exporter nor the connector's pipeline.
    assertThat(delivered(x)).containsExactlyInAnyOrderElementsOf(accepted);
    assertThat(delivered(slow)).containsExactlyInAnyOrderElementsOf(accepted);
  }

  @Test
  void aConnectorInACycleIsRefusedBeforeAnythingIsMade() {
    assertThatThrownBy(
            () ->
                graph(
                    List.of(receiver("r"), connector("link"), exporter("x", null)),
                    List.of(
                        traces("traces/a", List.of("r"), List.of(), List.of("link")),
                        traces("traces/b", List.of("link"), List.of(), List.of("x", "link"))),
                    List.of()))
        .isInstanceOf(PipelineTopology.TopologyException.class)
        .hasMessage(
            "connectors make a cycle, data would come back to a pipeline it left: traces/b ->"
                + " connector \"link\" -> traces/b");
    assertThat(exporterFactory.made("x")).isZero();
  }

  @Test
  void aRequestLoggedWhereItIsReceivedReachesADurablePipelineBehindAConnectorAfterARestart()
      throws Exception {
    List<ComponentSpec> components =
        List.of(
            receiver("r"),
            processor("p", false),
            connector("link"),
            exporter("d", "file_storage"),
            storage("file_storage"));
    List<PipelineSpec> pipelines =
        List.of(
            traces("traces/in", List.of("r"), List.of("p"), List.of("link")),
            traces("traces/out", List.of("link"), List.of(), List.of("d")));
    exporterFactory.recorder("d").answerWith(batch -> ExportResult.retryable("down", 0));
    PipelineGraph first = started(components, pipelines, List.of("file_storage"));

    // Logged once, at the receiver: traces/in lists no durable exporter, traces/out does.
    assertThat(tracesOf(first, "r")).isInstanceOf(DurableEntry.class);
    assertThat(sendLogged(first, "r", 0)).isEqualTo(Admission.ACCEPTED);
    assertThat(gauge("sluice_wal_records_owed")).isEqualTo(1);
    assertThat(exporterFactory.recorder("d").awaitAttempts(1, 10, TimeUnit.SECONDS)).isTrue();
    assertThat(consumed("processor p")).isEqualTo(1);

    running.remove(first);
    first.shutdown(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300));

    // Replayed where the receiver feeds: through p and the connector, to d.
    exporterFactory.recorder("d").answerWith(batch -> ExportResult.SUCCESS);
    started(components, pipelines, List.of("file_storage"));
    RecordingExporter d = exporterFactory.recorder("d");
    assertThat(d.awaitDeliveredUnits(SPANS, 10, TimeUnit.SECONDS)).isTrue();
    assertThat(delivered(d)).containsExactlyElementsOf(numbers(0));
    assertThat(consumed("processor p")).isEqualTo(2);
    Await.until("d done with the replayed request", () -> gauge("sluice_wal_records_owed") == 0);
  }

  @Test
  void aReplayedRequestCrossesAConnectorOnlyWhenADurableExporterBehindItStillOwesIt()
      throws Exception {
    List<ComponentSpec> components =
        List.of(
            receiver("r"),
            connector("link"),
            exporter("d/in", "file_storage"),
            exporter("d/out", "file_storage"),
            exporter("x", null),
            storage("file_storage"));
    List<PipelineSpec> pipelines =
        List.of(
            traces("traces/in", List.of("r"), List.of(), List.of("d/in", "link")),
            traces("traces/out", List.of("link"), List.of(), List.of("d/out", "x")));
    // d/in is down; d/out and x, behind the connector, deliver.
    exporterFactory.recorder("d/in").answerWith(batch -> ExportResult.retryable("down", 0));
    PipelineGraph first = started(components, pipelines, List.of("file_storage"));
    assertThat(sendLogged(first, "r", 0)).isEqualTo(Admission.ACCEPTED);
    RecordingExporter out = exporterFactory.recorder("d/out");
    RecordingExporter x = exporterFactory.recorder("x");
    assertThat(out.awaitDeliveredUnits(SPANS, 10, TimeUnit.SECONDS)).isTrue();
    assertThat(x.awaitDeliveredUnits(SPANS, 10, TimeUnit.SECONDS)).isTrue();
    running.remove(first);
    first.shutdown(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300));
    long linkedBefore = consumed("connector link");

    // The restart owes the request to d/in only: the connector is not offered it.
    exporterFactory.recorder("d/in").answerWith(batch -> ExportResult.SUCCESS);
    started(components, pipelines, List.of("file_storage"));
    RecordingExporter in = exporterFactory.recorder("d/in");
    assertThat(in.awaitDeliveredUnits(SPANS, 10, TimeUnit.SECONDS)).isTrue();
    assertThat(delivered(in)).containsExactlyElementsOf(numbers(0));
    Await.until("d/in done with the replayed request", () -> gauge("sluice_wal_records_owed") == 0);
    assertThat(consumed("connector link")).isEqualTo(linkedBefore);
    assertThat(delivered(out)).containsExactlyElementsOf(numbers(0));
    assertThat(delivered(x)).containsExactlyElementsOf(numbers(0));
  }

  @Test
  void aReplayedRequestOwedBehindAConnectorGoesOnlyThere() throws Exception {
    List<ComponentSpec> components =
        List.of(
            receiver("r"),
            connector("link"),
            exporter("d/in", "file_storage"),
            exporter("d/out", "file_storage"),
            exporter("x", null),
            storage("file_storage"));
    List<PipelineSpec> pipelines =
        List.of(
            traces("traces/in", List.of("r"), List.of(), List.of("d/in", "link")),
            traces("traces/out", List.of("link"), List.of(), List.of("d/out", "x")));
    exporterFactory.recorder("d/out").answerWith(batch -> ExportResult.retryable("down", 0));
    PipelineGraph first = started(components, pipelines, List.of("file_storage"));
    assertThat(sendLogged(first, "r", 0)).isEqualTo(Admission.ACCEPTED);
    RecordingExporter in = exporterFactory.recorder("d/in");
    RecordingExporter x = exporterFactory.recorder("x");
    assertThat(in.awaitDeliveredUnits(SPANS, 10, TimeUnit.SECONDS)).isTrue();
    assertThat(x.awaitDeliveredUnits(SPANS, 10, TimeUnit.SECONDS)).isTrue();
    running.remove(first);
    first.shutdown(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300));

    // Owed to d/out alone: through the connector to d/out, and to neither d/in nor x again.
    exporterFactory.recorder("d/out").answerWith(batch -> ExportResult.SUCCESS);
    started(components, pipelines, List.of("file_storage"));
    RecordingExporter out = exporterFactory.recorder("d/out");
    assertThat(out.awaitDeliveredUnits(SPANS, 10, TimeUnit.SECONDS)).isTrue();
    assertThat(delivered(out)).containsExactlyElementsOf(numbers(0));
    Await.until(
        "d/out done with the replayed request", () -> gauge("sluice_wal_records_owed") == 0);
    assertThat(delivered(in)).containsExactlyElementsOf(numbers(0));
    assertThat(delivered(x)).containsExactlyElementsOf(numbers(0));
  }

  @Test
  void aLoggedRequestAFullPipelineBehindAConnectorRefusedWaitsThereAndReachesTheOthersOnce()
      throws Exception {
    QueueConfig narrow =
        new QueueConfig(true, 1, 1, QueueConfig.Sizer.REQUESTS, false, false, "file_storage");
    List<ComponentSpec> components =
        List.of(
            receiver("r"),
            connector("link"),
            exporter("d/a", "file_storage"),
            new ComponentSpec(
                ComponentId.parse("d/b"),
                exporterFactory,
                PipelineFixture.config(narrow, PipelineFixture.fastRetry())),
            storage("file_storage"));
    List<PipelineSpec> pipelines =
        List.of(
            traces("traces/in", List.of("r"), List.of(), List.of("link")),
            traces("traces/a", List.of("link"), List.of(), List.of("d/a")),
            traces("traces/b", List.of("link"), List.of(), List.of("d/b")));
    RecordingExporter a = exporterFactory.recorder("d/a");
    RecordingExporter b = exporterFactory.recorder("d/b").close();
    PipelineGraph graph = started(components, pipelines, List.of("file_storage"));

    // d/b's sending thread holds the first request and its queue the second; the third waits.
    for (int i = 0; i < 3; i++) {
      assertThat(sendLogged(graph, "r", i * SPANS)).isEqualTo(Admission.ACCEPTED);
    }
    Await.until("a batch waits for traces/b", () -> gauge("sluice_wal_parked_batches") > 0);
    assertThat(a.awaitDeliveredUnits(3 * SPANS, 10, TimeUnit.SECONDS)).isTrue();
    b.open();
    assertThat(b.awaitDeliveredUnits(3 * SPANS, 10, TimeUnit.SECONDS)).isTrue();
    Await.until("both done with every request", () -> gauge("sluice_wal_records_owed") == 0);

    List<Integer> all = IntStream.range(0, 3 * SPANS).boxed().toList();
    assertThat(delivered(a)).as("traces/a took each request once").containsExactlyElementsOf(all);
    assertThat(delivered(b)).containsExactlyElementsOf(all);
  }

  /** A connector of type {@code build}: makes a request of its own from each it is handed. */
  private ComponentSpec building(String id) {
    return new ComponentSpec(
        ComponentId.parse(id),
        TestComponents.buildingConnectors(journal),
        new TestComponents.NoConfig());
  }

  @Test
  void aLoggedRequestStaysOwedUntilWhatAConnectorMadeFromItIsDelivered() throws Exception {
    List<ComponentSpec> components =
        List.of(
            receiver("r"),
            building("build"),
            exporter("x", null),
            exporter("d", "file_storage"),
            storage("file_storage"));
    List<PipelineSpec> pipelines =
        List.of(
            traces("traces/in", List.of("r"), List.of(), List.of("x", "build")),
            traces("traces/out", List.of("build"), List.of(), List.of("d")));
    RecordingExporter d = exporterFactory.recorder("d").close();
    RecordingExporter x = exporterFactory.recorder("x");
    PipelineGraph graph = started(components, pipelines, List.of("file_storage"));

    // Logged at r although traces/in has no durable exporter: what build makes of it reaches d.
    assertThat(tracesOf(graph, "r")).isInstanceOf(DurableEntry.class);
    assertThat(sendLogged(graph, "r", 0)).isEqualTo(Admission.ACCEPTED);
    assertThat(x.awaitDeliveredUnits(SPANS, 10, TimeUnit.SECONDS)).isTrue();
    Await.until("build made its request", () -> consumed("connector build") == 1);
    // x is done and build let go of the request; d still holds what was made from it.
    assertThat(gauge("sluice_wal_records_owed")).isEqualTo(1);

    d.open();
    assertThat(d.awaitDeliveredUnits(SPANS, 10, TimeUnit.SECONDS)).isTrue();
    assertThat(delivered(d)).containsExactlyElementsOf(numbers(0));
    Await.until(
        "done once what was made from it is delivered",
        () -> gauge("sluice_wal_records_owed") == 0);
  }

  @Test
  void dataMadeFromDataMadeFromALoggedRequestKeepsItOwedUntilDelivered() throws Exception {
    List<ComponentSpec> components =
        List.of(
            receiver("r"),
            building("build/a"),
            building("build/b"),
            exporter("x", null),
            exporter("d", "file_storage"),
            storage("file_storage"));
    List<PipelineSpec> pipelines =
        List.of(
            traces("traces/in", List.of("r"), List.of(), List.of("build/a")),
            traces("traces/mid", List.of("build/a"), List.of(), List.of("x", "build/b")),
            traces("traces/out", List.of("build/b"), List.of(), List.of("d")));
    RecordingExporter d = exporterFactory.recorder("d").close();
    RecordingExporter x = exporterFactory.recorder("x");
    PipelineGraph graph = started(components, pipelines, List.of("file_storage"));

    assertThat(sendLogged(graph, "r", 0)).isEqualTo(Admission.ACCEPTED);
    assertThat(x.awaitDeliveredUnits(SPANS, 10, TimeUnit.SECONDS)).isTrue();
    Await.until("build/b made its request", () -> consumed("connector build/b") == 1);
    // What build/a made is released by x and build/b; what build/b made from it, d holds.
    assertThat(gauge("sluice_wal_records_owed")).isEqualTo(1);

    d.open();
    assertThat(d.awaitDeliveredUnits(SPANS, 10, TimeUnit.SECONDS)).isTrue();
    Await.until(
        "done once what was made last is delivered", () -> gauge("sluice_wal_records_owed") == 0);
  }

  @Test
  void aLoggedRequestFoldedIntoAConnectorsStateStaysOwedUntilAFlushOfItIsDelivered()
      throws Exception {
    TestComponents.FoldingConnectors folds = TestComponents.foldingConnectors(journal);
    List<ComponentSpec> components =
        List.of(
            receiver("r"),
            new ComponentSpec(ComponentId.parse("fold"), folds, new TestComponents.NoConfig()),
            exporter("d", "file_storage"),
            storage("file_storage"));
    List<PipelineSpec> pipelines =
        List.of(
            traces("traces/in", List.of("r"), List.of(), List.of("fold")),
            traces("traces/out", List.of("fold"), List.of(), List.of("d")));
    RecordingExporter d = exporterFactory.recorder("d").close();
    PipelineGraph first = started(components, pipelines, List.of("file_storage"));
    assertThat(sendLogged(first, "r", 0)).isEqualTo(Admission.ACCEPTED);
    Await.until("fold took the request", () -> consumed("connector fold") == 1);
    // Only in fold's state: still owed.
    assertThat(gauge("sluice_wal_records_owed")).isEqualTo(1);

    // The state is lost with the stop; the request is folded in again after the restart.
    running.remove(first);
    first.shutdown(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300));
    d.open();
    started(components, pipelines, List.of("file_storage"));
    Await.until("fold took the replayed request", () -> consumed("connector fold") == 2);
    assertThat(gauge("sluice_wal_records_owed")).isEqualTo(1);

    d.close();
    assertThat(folds.flush("fold")).isEqualTo(Admission.ACCEPTED);
    // The flush was taken, and d holds it: still owed.
    assertThat(gauge("sluice_wal_records_owed")).isEqualTo(1);
    d.open();
    assertThat(d.awaitDeliveredUnits(SPANS, 10, TimeUnit.SECONDS)).isTrue();
    assertThat(delivered(d)).containsExactlyElementsOf(numbers(0));
    Await.until("done once the flush is delivered", () -> gauge("sluice_wal_records_owed") == 0);
  }

  @Test
  void aLoggedRequestIsMadeIntoDataAgainAfterARestartWhenWhatWasMadeWasNotDelivered()
      throws Exception {
    List<ComponentSpec> components =
        List.of(
            receiver("r"),
            building("build"),
            exporter("d", "file_storage"),
            storage("file_storage"));
    List<PipelineSpec> pipelines =
        List.of(
            traces("traces/in", List.of("r"), List.of(), List.of("build")),
            traces("traces/out", List.of("build"), List.of(), List.of("d")));
    exporterFactory.recorder("d").answerWith(batch -> ExportResult.retryable("down", 0));
    PipelineGraph first = started(components, pipelines, List.of("file_storage"));
    assertThat(sendLogged(first, "r", 0)).isEqualTo(Admission.ACCEPTED);
    assertThat(exporterFactory.recorder("d").awaitAttempts(1, 10, TimeUnit.SECONDS)).isTrue();
    assertThat(gauge("sluice_wal_records_owed")).isEqualTo(1);
    running.remove(first);
    first.shutdown(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300));
    assertThat(consumed("connector build")).isEqualTo(1);

    // Replayed into traces/in and made again by build, for d.
    exporterFactory.recorder("d").answerWith(batch -> ExportResult.SUCCESS);
    started(components, pipelines, List.of("file_storage"));
    RecordingExporter d = exporterFactory.recorder("d");
    assertThat(d.awaitDeliveredUnits(SPANS, 10, TimeUnit.SECONDS)).isTrue();
    assertThat(delivered(d)).containsExactlyElementsOf(numbers(0));
    assertThat(consumed("connector build")).isEqualTo(2);
    Await.until("d done with the replayed request", () -> gauge("sluice_wal_records_owed") == 0);
  }

  @Test
  void aReplayedRequestIsNotMadeIntoDataAgainWhenWhatWasMadeFromItWasDelivered() throws Exception {
    List<ComponentSpec> components =
        List.of(
            receiver("r"),
            building("build"),
            exporter("d/in", "file_storage"),
            exporter("d/out", "file_storage"),
            storage("file_storage"));
    List<PipelineSpec> pipelines =
        List.of(
            traces("traces/in", List.of("r"), List.of(), List.of("d/in", "build")),
            traces("traces/out", List.of("build"), List.of(), List.of("d/out")));
    exporterFactory.recorder("d/in").answerWith(batch -> ExportResult.retryable("down", 0));
    PipelineGraph first = started(components, pipelines, List.of("file_storage"));
    assertThat(sendLogged(first, "r", 0)).isEqualTo(Admission.ACCEPTED);
    RecordingExporter out = exporterFactory.recorder("d/out");
    assertThat(out.awaitDeliveredUnits(SPANS, 10, TimeUnit.SECONDS)).isTrue();
    running.remove(first);
    first.shutdown(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300));
    long builtBefore = consumed("connector build");

    // Owed to d/in alone: build is not offered it, and d/out gets nothing again.
    exporterFactory.recorder("d/in").answerWith(batch -> ExportResult.SUCCESS);
    started(components, pipelines, List.of("file_storage"));
    RecordingExporter in = exporterFactory.recorder("d/in");
    assertThat(in.awaitDeliveredUnits(SPANS, 10, TimeUnit.SECONDS)).isTrue();
    Await.until("d/in done with the replayed request", () -> gauge("sluice_wal_records_owed") == 0);
    assertThat(consumed("connector build")).isEqualTo(builtBefore);
    assertThat(delivered(out)).containsExactlyElementsOf(numbers(0));
  }

  @Test
  void aConnectorThatMakesDataIsRefusedWhereTheLogIs() {
    ComponentSpec count =
        new ComponentSpec(
            ComponentId.parse("count"),
            TestComponents.makingConnectors(journal),
            new TestComponents.NoConfig());
    assertThatThrownBy(
            () ->
                graph(
                    List.of(
                        receiver("r"),
                        count,
                        exporter("d", "file_storage"),
                        storage("file_storage")),
                    List.of(
                        traces("traces/in", List.of("r"), List.of(), List.of("count")),
                        traces("traces/out", List.of("count"), List.of(), List.of("d"))),
                    List.of("file_storage")))
        .isInstanceOf(PipelineTopology.TopologyException.class)
        .hasMessage(
            "pipeline traces/out takes data from connector \"count\", which makes new data, and"
                + " what it makes is not logged in the write-ahead log nor says which logged"
                + " requests it was made from, so traces/out cannot take part in"
                + " sending_queue.storage: its exporter \"d\" has sending_queue.storage");
    assertThatThrownBy(
            () ->
                graph(
                    List.of(
                        receiver("r"),
                        count,
                        connector("link"),
                        exporter("d", "file_storage"),
                        exporter("x", null),
                        storage("file_storage")),
                    List.of(
                        traces("traces/durable", List.of("r"), List.of(), List.of("link")),
                        traces("traces/behind", List.of("link"), List.of(), List.of("d")),
                        traces("traces/in", List.of("r"), List.of(), List.of("count")),
                        traces("traces/out", List.of("count"), List.of(), List.of("x"))),
                    List.of("file_storage")))
        .isInstanceOf(PipelineTopology.TopologyException.class)
        .hasMessage(
            "pipeline traces/in lists connector \"count\", which makes new data, and the requests"
                + " that reach traces/in are logged in the write-ahead log (receiver \"r\" feeds"
                + " traces/durable, where what it takes goes on to exporter \"d\" of"
                + " traces/behind, which has sending_queue.storage): what it makes is not logged,"
                + " so a logged pipeline can end only in connectors that pass requests on as they"
                + " are (forward, routing) or that say which requests what they make was made"
                + " from (count, spanmetrics, servicegraph)");
  }

  @Test
  void anIdThatIsBothAReceiverAndAConnectorIsRefused() {
    ComponentSpec sameIdConnector =
        new ComponentSpec(
            ComponentId.parse("test"), connectorFactory, new TestComponents.NoConfig());
    assertThatThrownBy(
            () ->
                graph(
                    List.of(receiver("test"), sameIdConnector, exporter("x", null)),
                    List.of(
                        traces("traces/a", List.of("test"), List.of(), List.of("test")),
                        traces("traces/b", List.of("test"), List.of(), List.of("x"))),
                    List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "pipeline \"traces/a\" lists \"test\", which is both a receiver and a connector:"
                + " give one of them another name");
  }

  /** The value of an unlabelled gauge on the metrics page. */
  private long gauge(String name) {
    String prefix = name + " ";
    return MetricsText.of(metrics)
        .lines()
        .filter(line -> line.startsWith(prefix))
        .mapToLong(line -> Long.parseLong(line.substring(prefix.length())))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + name));
  }
}
