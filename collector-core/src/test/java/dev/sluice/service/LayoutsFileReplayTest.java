package dev.sluice.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.component.Admission;
import dev.sluice.component.DurableStorage;
import dev.sluice.component.ExportResult;
import dev.sluice.component.QueueConfig;
import dev.sluice.pdata.Signal;
import dev.sluice.service.sender.SendingChain;
import dev.sluice.testkit.Await;
import dev.sluice.testkit.PipelineFixture;
import dev.sluice.testkit.RecordingExporter;
import dev.sluice.testkit.SequencedSpans;
import dev.sluice.testkit.TestStorage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A real log whose layouts file is damaged between two runs. Three durable pipelines: {@code
 * traces/a} (exporter {@code x}), {@code traces/b} ({@code y}) and {@code logs} ({@code z}); the
 * receiver feeds both traces pipelines, and {@code x} and {@code y} are down in the first run, so
 * the log owes them every request. The second run lists the pipelines in another order, so a
 * record's routing bits mean other pipelines now: with the file intact it maps them by name, and
 * with it damaged or missing the replay gives every request to every durable pipeline of its
 * signal, so {@code x} and {@code y} each get everything once and {@code logs} nothing, with one
 * warning naming the file and where it is damaged. Taking the bits to mean today's order instead
 * (what a missing file did before) would lose everything {@code x} was owed.
 */
class LayoutsFileReplayTest {
  private static final int REQUESTS = 6;
  private static final int SPANS_PER_REQUEST = 10;
  private static final int CONSUMER_X = 0;
  private static final int CONSUMER_Y = 1;
  private static final int CONSUMER_Z = 2;
  private static final Logger WAL_LOGGER = Logger.getLogger("sluice.service.wal");

  @TempDir Path directory;

  private final List<LogRecord> warnings = new CopyOnWriteArrayList<>();
  private final Handler capture =
      new Handler() {
        @Override
        public void publish(LogRecord record) {
          if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
            warnings.add(record);
          }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  @BeforeEach
  void captureWarnings() {
    WAL_LOGGER.addHandler(capture);
  }

  @AfterEach
  void stopCapturing() {
    WAL_LOGGER.removeHandler(capture);
  }

  private static DurableLayout layout(boolean reordered) {
    Map<String, List<String>> pipelines = new LinkedHashMap<>();
    if (reordered) {
      pipelines.put("logs", List.of("z"));
      pipelines.put("traces/b", List.of("y"));
      pipelines.put("traces/a", List.of("x"));
    } else {
      pipelines.put("traces/a", List.of("x"));
      pipelines.put("traces/b", List.of("y"));
      pipelines.put("logs", List.of("z"));
    }
    return new DurableLayout(pipelines);
  }

  /** One run: the log, three exporters each at the end of its own pipeline, one entry. */
  private final class Run {
    final PipelineFixture fixture = new PipelineFixture();
    final MemoryBudget budget = new MemoryBudget(64L << 20, 1_000_000);
    final RecordingExporter x = new RecordingExporter();
    final RecordingExporter y = new RecordingExporter();
    final RecordingExporter z = new RecordingExporter();
    final List<SendingChain> chains = new ArrayList<>();
    final DurableLog log;
    final DurableEntry entry;

    Run(boolean tracesAreDown, boolean reordered) throws Exception {
      if (tracesAreDown) {
        x.answerWith(batch -> ExportResult.retryable("down", 0));
        y.answerWith(batch -> ExportResult.retryable("down", 0));
      }
      DurableLayout layout = layout(reordered);
      Map<String, DurableFanout> ends = new LinkedHashMap<>();
      ends.put("traces/a", end("x", x, layout));
      ends.put("traces/b", end("y", y, layout));
      ends.put("logs", end("z", z, layout));
      log =
          DurableLog.open(
              storage(),
              layout,
              Map.copyOf(ends),
              budget,
              fixture.metrics,
              new PipelineFailures(),
              m -> {});
      int routing =
          1 << layout.pipelines().indexOf("traces/a") | 1 << layout.pipelines().indexOf("traces/b");
      entry =
          new DurableEntry(
              budget,
              List.of(ends.get("traces/a"), ends.get("traces/b")),
              routing,
              Signal.TRACES.ordinal(),
              100);
      entry.attach(log);
      log.startReplay();
    }

    private DurableFanout end(String id, RecordingExporter exporter, DurableLayout layout)
        throws Exception {
      QueueConfig queue =
          new QueueConfig(true, 1, 100, QueueConfig.Sizer.REQUESTS, false, false, "file_storage");
      SendingChain chain =
          fixture.exporter(
              id, exporter, PipelineFixture.config(queue, PipelineFixture.fastRetry()));
      chains.add(chain);
      return new DurableFanout(List.of(chain), new int[] {layout.consumerOf(id)});
    }

    Admission send(int first) throws Exception {
      CompletableFuture<Admission> answer = new CompletableFuture<>();
      entry.consume(SequencedSpans.indexed("svc", first, SPANS_PER_REQUEST), answer::complete);
      return answer.get(10, TimeUnit.SECONDS);
    }

    void stop() throws Exception {
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
      entry.close();
      log.freezeAt(deadline);
      log.stopReplay();
      log.awaitHandedOff(deadline);
      for (SendingChain chain : chains) {
        chain.shutdown(deadline);
      }
      log.close();
    }
  }

  private Path wal() {
    return directory.resolve("wal");
  }

  private Path layoutsFile() {
    return wal().resolve(LayoutsFile.NAME);
  }

  private DurableStorage storage() {
    return new TestStorage(wal());
  }

  /** A first run whose requests the log still owes x and y when it stops. */
  private void firstRunOwingTraces() throws Exception {
    Run first = new Run(true, false);
    try {
      for (int r = 0; r < REQUESTS; r++) {
        assertThat(first.send(r * SPANS_PER_REQUEST)).isEqualTo(Admission.ACCEPTED);
      }
      assertThat(first.log.log().owedRecords(CONSUMER_X)).isEqualTo(REQUESTS);
      assertThat(first.log.log().owedRecords(CONSUMER_Y)).isEqualTo(REQUESTS);
      assertThat(first.log.log().owedRecords(CONSUMER_Z)).isZero();
    } finally {
      first.stop();
    }
    assertThat(first.x.delivered()).isEmpty();
    assertThat(first.y.delivered()).isEmpty();
    assertThat(first.z.attempts()).isEmpty();
  }

  private static List<Integer> all() {
    return IntStream.range(0, REQUESTS * SPANS_PER_REQUEST).boxed().toList();
  }

  private static List<Integer> delivered(RecordingExporter exporter) {
    List<Integer> numbers = new ArrayList<>();
    exporter
        .delivered()
        .forEach(attempt -> numbers.addAll(SequencedSpans.numbers(attempt.request())));
    numbers.sort(null);
    return numbers;
  }

  private List<String> pipelineFileWarnings() {
    return warnings.stream()
        .map(LogRecord::getMessage)
        .filter(message -> message.startsWith("The layouts file"))
        .toList();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("intactFiles")
  void anIntactFileSendsEachRequestToThePipelinesOfItsNames(String why, boolean reordered)
      throws Exception {
    firstRunOwingTraces();
    Run second = new Run(false, reordered);
    try {
      assertEveryTraceDeliveredOnceToBothTracesExportersOnly(second);
      assertThat(pipelineFileWarnings()).isEmpty();
    } finally {
      second.stop();
    }
  }

  /** Both traces exporters got every span of the first run, once and in order; logs got none. */
  private static void assertEveryTraceDeliveredOnceToBothTracesExportersOnly(Run second)
      throws Exception {
    assertThat(second.x.awaitDeliveredUnits(all().size(), 10, TimeUnit.SECONDS)).isTrue();
    assertThat(second.y.awaitDeliveredUnits(all().size(), 10, TimeUnit.SECONDS)).isTrue();
    Await.until("nothing owed", () -> second.log.log().owedRecords() == 0);
    assertThat(delivered(second.x)).containsExactlyElementsOf(all());
    assertThat(delivered(second.y)).containsExactlyElementsOf(all());
    assertThat(second.z.attempts()).isEmpty();
  }

  static Stream<Arguments> intactFiles() {
    return Stream.of(
        Arguments.of("the same configuration", false),
        Arguments.of("the pipelines reordered", true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("damages")
  void aDamagedFileSendsEveryRequestToEveryDurablePipelineOfItsSignal(
      String why, UnaryOperator<byte[]> damage, String where) throws Exception {
    firstRunOwingTraces();
    byte[] intact = Files.readAllBytes(layoutsFile());
    Files.write(layoutsFile(), damage.apply(intact));

    Run second = new Run(false, true);
    try {
      assertEveryTraceDeliveredOnceToBothTracesExportersOnly(second);
      assertThat(pipelineFileWarnings())
          .singleElement()
          .satisfies(
              message ->
                  assertThat(message)
                      .contains(layoutsFile().toString())
                      .contains(where)
                      .contains("every durable pipeline of its signal"));
    } finally {
      second.stop();
    }
    // The next start has the layout of the second run again.
    assertThat(LayoutsFile.parse(Files.readAllBytes(layoutsFile())).values())
        .singleElement()
        .satisfies(
            pipelines ->
                assertThat(pipelines.keySet()).containsExactly("logs", "traces/b", "traces/a"));
  }

  static Stream<Arguments> damages() {
    UnaryOperator<byte[]> notUtf8 = bytes -> withByte(bytes, bytes.length - 2, (byte) 0xFF);
    UnaryOperator<byte[]> cut = bytes -> Arrays.copyOf(bytes, bytes.length - 3);
    return Stream.of(
        Arguments.of("not UTF-8", notUtf8, "not UTF-8"),
        Arguments.of("truncated", cut, "the checksum does not match"),
        Arguments.of("a flipped byte", flip(40), "the checksum does not match"),
        Arguments.of("empty", (UnaryOperator<byte[]>) bytes -> new byte[0], "the first line"),
        Arguments.of(
            "an empty line",
            checked("layout 0\ntraces/a\tx\n\ntraces/b\ty\nlogs\tz"),
            "line 4 (byte 53)"),
        Arguments.of("an empty field", checked("layout 0\ntraces/a\t\tx"), "an empty field"),
        Arguments.of("a duplicate name", checked("layout 0\nlogs\tz\nlogs\tz"), "listed twice"),
        Arguments.of(
            "a pipeline of no signal", checked("layout 0\ntrace/a\tx"), "is not the name of"),
        Arguments.of("zeroed", zeroed(), "the first line is not"),
        Arguments.of("too large", tooLarge(), "more than the " + LayoutsFile.MAX_BYTES));
  }

  /** A layouts file of these lines, with a checksum that holds. */
  private static UnaryOperator<byte[]> checked(String lines) {
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(lines.getBytes(StandardCharsets.UTF_8));
    String content = String.format("# sluice layouts crc32c=%08x", crc.getValue()) + "\n" + lines;
    return text(content);
  }

  private static byte[] withByte(byte[] bytes, int at, byte value) {
    byte[] changed = bytes.clone();
    changed[at] = value;
    return changed;
  }

  private static UnaryOperator<byte[]> flip(int at) {
    return bytes -> withByte(bytes, at, (byte) (bytes[at] ^ 0x20));
  }

  private static UnaryOperator<byte[]> text(String content) {
    return bytes -> content.getBytes(StandardCharsets.UTF_8);
  }

  private static UnaryOperator<byte[]> zeroed() {
    return bytes -> new byte[bytes.length];
  }

  private static UnaryOperator<byte[]> tooLarge() {
    return bytes -> Arrays.copyOf(bytes, LayoutsFile.MAX_BYTES + 1);
  }

  @Test
  void aMissingFileIsUnknownPipelinesToo() throws Exception {
    firstRunOwingTraces();
    Files.delete(layoutsFile());
    Run second = new Run(false, true);
    try {
      assertEveryTraceDeliveredOnceToBothTracesExportersOnly(second);
    } finally {
      second.stop();
    }
  }

  @Test
  void aFileThatCannotBeReadStopsTheStartNamingIt() throws Exception {
    firstRunOwingTraces();
    Files.delete(layoutsFile());
    // Reading a directory fails as an unreadable file does, whoever the tests run as.
    Files.createDirectory(layoutsFile());
    assertThatThrownBy(() -> new Run(false, false))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("cannot read " + layoutsFile());
    Files.delete(layoutsFile());
  }

  /**
   * A log the earlier format wrote: records of version 1 (no segment header, no key, no layout) and
   * the list of pipelines of the run that wrote them in {@value LayoutsFile#FORMER_NAME}, in the
   * order {@code traces/a}, {@code traces/b}, {@code logs}. Each request went to both traces
   * pipelines; none is done.
   */
  private void formerLog() throws Exception {
    Files.createDirectories(wal());
    java.io.ByteArrayOutputStream segment = new java.io.ByteArrayOutputStream();
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    for (int r = 0; r < REQUESTS; r++) {
      byte[] payload =
          SequencedSpans.request("svc", r * SPANS_PER_REQUEST, SPANS_PER_REQUEST).toByteArray();
      java.nio.ByteBuffer header = java.nio.ByteBuffer.allocate(32);
      crc.reset();
      crc.update(payload);
      header.putInt(0, 0x534C5752);
      header.putLong(8, r);
      header.putInt(16, payload.length);
      header.putInt(20, (int) crc.getValue());
      header.putInt(24, 0b011);
      header.put(28, (byte) Signal.TRACES.ordinal());
      header.put(29, (byte) 1);
      crc.reset();
      crc.update(header.array(), 8, 24);
      header.putInt(4, (int) crc.getValue());
      segment.write(header.array());
      segment.write(payload);
    }
    Files.write(wal().resolve("segment-00000000000000000000.wal"), segment.toByteArray());
    Map<String, List<String>> pipelines = new LinkedHashMap<>();
    pipelines.put("traces/a", List.of("x"));
    pipelines.put("traces/b", List.of("y"));
    pipelines.put("logs", List.of("z"));
    Files.write(wal().resolve(LayoutsFile.FORMER_NAME), LayoutsFile.formatFormer(pipelines));
  }

  @Test
  void aLogOfTheEarlierFormatIsReplayedToThePipelinesOfItsNamesAndKeptAsTheLayoutFormer()
      throws Exception {
    formerLog();
    Run second = new Run(false, true);
    try {
      assertEveryTraceDeliveredOnceToBothTracesExportersOnly(second);
      assertThat(pipelineFileWarnings()).isEmpty();
    } finally {
      second.stop();
    }
    // The earlier file is gone; its layout was kept only while records carried it.
    assertThat(wal().resolve(LayoutsFile.FORMER_NAME)).doesNotExist();
    assertThat(LayoutsFile.parse(Files.readAllBytes(layoutsFile())).keySet())
        .contains(dev.sluice.wal.WriteAheadLog.FORMER_LAYOUT);
  }
}
