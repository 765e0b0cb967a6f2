package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.testkit.Await;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.TraceServiceGrpc;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The durable log against what clients and pipelines can do to it: client bytes shaped like log
 * records, a request a processor always fails on, a logged request larger than the next run's
 * memory budget.
 */
class DurableLogHostileTest {
  private static final long SHORT_STOP_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
  private static final long STOP_NANOS = TimeUnit.SECONDS.toNanos(10);
  private static final byte[] MARKER = "FORGED-RECORDS->".getBytes(StandardCharsets.US_ASCII);

  /**
   * A filter whose regular expression overflows the stack on a long span name ({@link
   * #POISON_NAME}): a processor that throws on one request and not on others.
   */
  private static final String FILTER =
      String.join(
          "\n",
          "  filter:",
          "    error_mode: ignore",
          "    traces:",
          "      span:",
          "        - 'IsMatch(name, \"(a|b)*c\")'");

  private static final String POISON_NAME = "a".repeat(200_000);

  @TempDir Path directory;

  private Path wal() {
    return directory.resolve("wal");
  }

  private String config(String endpoint, String processors, String extraProcessorConfig) {
    return config(endpoint, processors, extraProcessorConfig, "");
  }

  private String config(
      String endpoint, String processors, String extraProcessorConfig, String queue) {
    List<String> lines =
        new ArrayList<>(
            List.of(
                "extensions:",
                "  file_storage:",
                "    directory: " + wal(),
                "receivers:",
                "  otlp:",
                "    protocols:",
                "      grpc:",
                "        endpoint: 127.0.0.1:0",
                "processors:",
                "  batch:",
                "    timeout: 10ms",
                extraProcessorConfig,
                "exporters:"));
    lines.addAll(TestCollectors.durableOtlpExporter("otlp", endpoint, queue));
    lines.addAll(
        List.of(
            "service:",
            "  extensions: [file_storage]",
            "  telemetry:",
            "    metrics:",
            "      level: none",
            "  pipelines:",
            "    traces:",
            "      receivers: [otlp]",
            "      processors: [" + processors + "]",
            "      exporters: [otlp]",
            ""));
    return String.join("\n", lines);
  }

  private static Span span(String name, ByteString blob) {
    Span.Builder span =
        Span.newBuilder()
            .setTraceId(ByteString.copyFrom(new byte[16]).concat(ByteString.EMPTY))
            .setSpanId(ByteString.copyFrom(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}))
            .setName(name);
    if (blob != null) {
      span.addAttributes(
          KeyValue.newBuilder().setKey("blob").setValue(AnyValue.newBuilder().setBytesValue(blob)));
    }
    return span.build();
  }

  private static ExportTraceServiceRequest request(Span... spans) {
    return ExportTraceServiceRequest.newBuilder()
        .addResourceSpans(
            ResourceSpans.newBuilder()
                .addScopeSpans(ScopeSpans.newBuilder().addAllSpans(List.of(spans))))
        .build();
  }

  private static void send(Collector collector, ExportTraceServiceRequest... requests) {
    ManagedChannel channel = TestCollectors.channel(collector);
    try {
      for (ExportTraceServiceRequest request : requests) {
        TraceServiceGrpc.newBlockingStub(channel)
            .withDeadlineAfter(10, TimeUnit.SECONDS)
            .export(request);
      }
    } finally {
      channel.shutdownNow();
    }
  }

  /**
   * What {@code step} returns, run on a thread of its own; a {@link TimeoutException} if it takes
   * more than 30 s (a start or stop that hangs).
   */
  private static <T> T within30s(Callable<T> step) throws Exception {
    FutureTask<T> task = new FutureTask<>(step);
    Thread thread = new Thread(task, "step-within-30s");
    thread.setDaemon(true);
    thread.start();
    try {
      return task.get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
  }

  /** Sends, again while the collector answers UNAVAILABLE (at most 200 tries, 50 ms apart). */
  private static void sendRetrying(Collector collector, ExportTraceServiceRequest request)
      throws InterruptedException {
    for (int attempt = 1; ; attempt++) {
      try {
        send(collector, request);
        return;
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() != Status.Code.UNAVAILABLE || attempt == 200) {
          throw e;
        }
        Thread.sleep(50);
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static OtlpSink down() throws Exception {
    OtlpSink sink = OtlpSink.start();
    Supplier<StatusRuntimeException>[] errors = new Supplier[1_000_000];
    java.util.Arrays.fill(
        errors, (Supplier<StatusRuntimeException>) Status.UNAVAILABLE::asRuntimeException);
    return sink.failNext(errors);
  }

  private static List<String> spanNames(OtlpSink sink) {
    List<String> names = new ArrayList<>();
    for (ExportTraceServiceRequest request : sink.traces()) {
      for (ResourceSpans resource : request.getResourceSpansList()) {
        for (ScopeSpans scope : resource.getScopeSpansList()) {
          for (Span span : scope.getSpansList()) {
            names.add(span.getName());
          }
        }
      }
    }
    return names;
  }

  /**
   * A record as the log's earlier format wrote it, whole and with valid checksums: 32 bytes of
   * header (magic, header CRC32C, sequence, length, payload CRC32C, routing, signal, version 1),
   * then the payload.
   */
  private static byte[] formerFormatRecord(long sequence, byte[] payload) {
    ByteBuffer record = ByteBuffer.allocate(32 + payload.length);
    CRC32C crc = new CRC32C();
    crc.update(payload);
    record.putInt(0, 0x534C5752);
    record.putLong(8, sequence);
    record.putInt(16, payload.length);
    record.putInt(20, (int) crc.getValue());
    record.putInt(24, 1);
    record.put(28, (byte) 0);
    record.put(29, (byte) 1);
    crc.reset();
    crc.update(record.array(), 8, 24);
    record.putInt(4, (int) crc.getValue());
    record.position(32);
    record.put(payload);
    return record.array();
  }

  /**
   * The current format's record, with every field right but the segment's key, which no client can
   * know: here all zeros, then all ones.
   */
  private static byte[] currentFormatRecords(long sequence, byte[] payload) {
    ByteBuffer out = ByteBuffer.allocate(2 * (40 + payload.length));
    for (long key : new long[] {0, -1}) {
      int start = out.position();
      CRC32C crc = new CRC32C();
      crc.update(payload);
      out.putInt(start, 0x534C5752);
      out.putLong(start + 8, key);
      out.putLong(start + 16, sequence);
      out.putInt(start + 24, payload.length);
      out.putInt(start + 28, (int) crc.getValue());
      out.putInt(start + 32, 1);
      out.putShort(start + 36, (short) 0);
      out.put(start + 38, (byte) 0);
      out.put(start + 39, (byte) 2);
      crc.reset();
      crc.update(out.array(), start + 8, 32);
      out.putInt(start + 4, (int) crc.getValue());
      out.position(start + 40);
      out.put(payload);
    }
    return out.array();
  }

  private List<Path> segments() throws Exception {
    try (Stream<Path> files = Files.list(wal())) {
      return files.filter(f -> f.getFileName().toString().startsWith("segment-")).sorted().toList();
    }
  }

  private static int indexOf(byte[] content, byte[] wanted) {
    outer:
    for (int i = 0; i + wanted.length <= content.length; i++) {
      for (int j = 0; j < wanted.length; j++) {
        if (content[i + j] != wanted[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  @Test
  void clientBytesShapedLikeRecordsAreNeverTakenForRecordsAfterDamage() throws Exception {
    Span[] forged = new Span[30];
    for (int i = 0; i < forged.length; i++) {
      forged[i] = span("forged", null);
    }
    byte[] forgedPayload = request(forged).toByteArray();
    ByteString blob =
        ByteString.copyFrom(MARKER)
            .concat(ByteString.copyFrom(formerFormatRecord(1, forgedPayload)))
            .concat(ByteString.copyFrom(formerFormatRecord(1L << 40, forgedPayload)))
            .concat(ByteString.copyFrom(currentFormatRecords(1, forgedPayload)));
    try (OtlpSink downSink = down();
        OtlpSink sink = OtlpSink.start()) {
      Collector first =
          TestCollectors.start(
              config(downSink.endpoint(), "batch", ""), Collector.Options.defaults());
      try {
        send(first, request(span("carrier", blob)), request(span("after", null)));
        assertThat(downSink.await(() -> downSink.calls() > 0, 20, TimeUnit.SECONDS)).isTrue();
      } finally {
        first.shutdown(SHORT_STOP_NANOS);
      }
      // Damage: one byte of the carrier's payload, before the bytes shaped like records.
      boolean damaged = false;
      for (Path segment : segments()) {
        byte[] content = Files.readAllBytes(segment);
        int at = indexOf(content, MARKER);
        if (at >= 0) {
          content[at] ^= 0x55;
          Files.write(segment, content);
          damaged = true;
        }
      }
      assertThat(damaged).isTrue();

      Collector started =
          within30s(
              () ->
                  TestCollectors.start(
                      config(sink.endpoint(), "batch", ""), Collector.Options.defaults()));
      try {
        assertThat(sink.await(() -> spanNames(sink).contains("after"), 20, TimeUnit.SECONDS))
            .as("the request after the damaged one is delivered: %s", spanNames(sink))
            .isTrue();
        assertThat(TestCollectors.prometheus(started)).contains("sluice_wal_records_corrupt 1");
      } finally {
        started.shutdown(STOP_NANOS);
      }
      assertThat(spanNames(sink)).containsExactly("after");
    }
  }

  @Test
  void aRequestAProcessorAlwaysFailsOnIsSetAsideAndBlocksNothing() throws Exception {
    try (OtlpSink sink = OtlpSink.start()) {
      Collector first =
          TestCollectors.start(
              config(sink.endpoint(), "filter, batch", FILTER), Collector.Options.defaults());
      try {
        try {
          send(first, request(span(POISON_NAME, null)));
        } catch (StatusRuntimeException expected) {
          // The request is refused: the pipeline could not take it.
        }
        send(first, request(span("good", null)));
        assertThat(sink.await(() -> spanNames(sink).contains("good"), 20, TimeUnit.SECONDS))
            .isTrue();
        assertThat(Await.within(Await.DEADLINE, () -> first.budget().usedBytes() == 0))
            .as("memory held: %d", first.budget().usedBytes())
            .isTrue();
        assertThat(
                Await.within(
                    Await.DEADLINE,
                    () -> TestCollectors.prometheus(first).contains("sluice_wal_records_owed 0")))
            .as(TestCollectors.prometheus(first))
            .isTrue();
      } finally {
        first.shutdown(STOP_NANOS);
      }
      Collector second =
          TestCollectors.start(
              config(sink.endpoint(), "filter, batch", FILTER), Collector.Options.defaults());
      try {
        send(second, request(span("again", null)));
        assertThat(sink.await(() -> spanNames(sink).contains("again"), 20, TimeUnit.SECONDS))
            .isTrue();
      } finally {
        second.shutdown(STOP_NANOS);
      }
      assertThat(spanNames(sink)).containsExactly("good", "again");
    }
  }

  @Test
  void aLoggedRequestLargerThanTheMemoryBudgetNeitherBlocksTheStartNorIsLost() throws Exception {
    ByteString blob = ByteString.copyFrom(new byte[3 << 20]);
    try (OtlpSink downSink = down();
        OtlpSink sink = OtlpSink.start()) {
      Collector first =
          TestCollectors.start(
              config(downSink.endpoint(), "batch", ""), Collector.Options.defaults());
      try {
        send(first, request(span("large", blob)));
        assertThat(downSink.await(() -> downSink.calls() > 0, 20, TimeUnit.SECONDS)).isTrue();
      } finally {
        first.shutdown(SHORT_STOP_NANOS);
      }
      Collector started =
          within30s(
              () ->
                  TestCollectors.start(
                      config(sink.endpoint(), "batch", ""),
                      new Collector.Options(1 << 20, Long.MAX_VALUE / 4, 1000)));
      try {
        sendRetrying(started, request(span("small", null)));
        assertThat(
                sink.await(
                    () -> spanNames(sink).containsAll(List.of("large", "small")),
                    20,
                    TimeUnit.SECONDS))
            .as("delivered: %s", spanNames(sink).size())
            .isTrue();
      } finally {
        started.shutdown(STOP_NANOS);
      }
    }
  }

  @Test
  void aRequestWhoseWriteFailsIsAnsweredRetryableAndNeverDelivered() throws Exception {
    try (OtlpSink sink = OtlpSink.start()) {
      Collector collector =
          TestCollectors.start(config(sink.endpoint(), "batch", ""), Collector.Options.defaults());
      // The first record's segment cannot be made: a directory has its name.
      Path blocker = wal().resolve("segment-00000000000000000000.wal");
      Files.createDirectory(blocker);
      try {
        StatusRuntimeException refused =
            org.junit.jupiter.api.Assertions.assertThrows(
                StatusRuntimeException.class,
                () -> send(collector, request(span("refused", null))));
        assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        Files.delete(blocker);
        send(collector, request(span("accepted", null)));
        assertThat(sink.await(() -> spanNames(sink).contains("accepted"), 20, TimeUnit.SECONDS))
            .isTrue();
      } finally {
        // Drains every queue: whatever the pipelines held would be delivered by now.
        collector.shutdown(STOP_NANOS);
      }
      assertThat(spanNames(sink)).containsExactly("accepted");
    }
  }

  @Test
  void aReplayedRequestAProcessorFailsOnIsSetAsideAndTheRestIsDelivered() throws Exception {
    try (OtlpSink downSink = down();
        OtlpSink sink = OtlpSink.start()) {
      Collector first =
          TestCollectors.start(
              config(downSink.endpoint(), "batch", ""), Collector.Options.defaults());
      try {
        send(first, request(span(POISON_NAME, null)), request(span("good", null)));
        assertThat(downSink.await(() -> downSink.calls() > 0, 20, TimeUnit.SECONDS)).isTrue();
      } finally {
        first.shutdown(SHORT_STOP_NANOS);
      }
      Collector second =
          within30s(
              () ->
                  TestCollectors.start(
                      config(sink.endpoint(), "filter, batch", FILTER),
                      Collector.Options.defaults()));
      try {
        assertThat(sink.await(() -> spanNames(sink).contains("good"), 20, TimeUnit.SECONDS))
            .isTrue();
        assertThat(
                Await.within(
                    Await.DEADLINE,
                    () ->
                        TestCollectors.prometheus(second)
                            .contains("sluice_wal_records_set_aside 1")))
            .as(TestCollectors.prometheus(second))
            .isTrue();
        Await.until(
            "nothing owed in the log",
            () -> TestCollectors.prometheus(second).contains("sluice_wal_records_owed 0"));
      } finally {
        second.shutdown(STOP_NANOS);
      }
      assertThat(spanNames(sink)).containsExactly("good");
    }
  }

  @Test
  void aStopWhileTheReplayWaitsForRoomIsPromptAndLosesNothing() throws Exception {
    String smallQueue = String.join("\n", "      num_consumers: 1", "      queue_size: 1");
    int requests = 40;
    ExportTraceServiceRequest[] sent = new ExportTraceServiceRequest[requests];
    for (int i = 0; i < requests; i++) {
      sent[i] = request(span("r" + i, null));
    }
    try (OtlpSink downSink = down();
        OtlpSink stillDown = down();
        OtlpSink sink = OtlpSink.start()) {
      Collector first =
          TestCollectors.start(config(downSink.endpoint(), "", ""), Collector.Options.defaults());
      try {
        send(first, sent);
      } finally {
        first.shutdown(SHORT_STOP_NANOS);
      }
      // The backend is still down and the queue holds one request: the replay waits for room.
      Collector second =
          within30s(
              () ->
                  TestCollectors.start(
                      config(stillDown.endpoint(), "", "", smallQueue),
                      Collector.Options.defaults()));
      assertThat(stillDown.await(() -> stillDown.calls() > 0, 20, TimeUnit.SECONDS)).isTrue();
      within30s(
          () -> {
            second.shutdown(SHORT_STOP_NANOS);
            return null;
          });
      Collector third =
          TestCollectors.start(config(sink.endpoint(), "", ""), Collector.Options.defaults());
      try {
        assertThat(
                sink.await(
                    () -> new java.util.HashSet<>(spanNames(sink)).size() == requests,
                    20,
                    TimeUnit.SECONDS))
            .as("delivered: %s", new java.util.TreeSet<>(spanNames(sink)))
            .isTrue();
      } finally {
        third.shutdown(STOP_NANOS);
      }
    }
  }

  @Test
  void aRequestRefusedWhileThePipelineIsFullIsNeverDeliveredAndOneAnsweredOkAlways()
      throws Exception {
    // No batch processor, and an exporter queue of two: the pipeline is full at once while the
    // backend is down, and stays full.
    String smallQueue = String.join("\n", "      num_consumers: 1", "      queue_size: 2");
    ByteString blob = ByteString.copyFrom(new byte[16 << 10]);
    List<String> ok = new ArrayList<>();
    List<String> refused = new ArrayList<>();
    try (OtlpSink downSink = down();
        OtlpSink sink = OtlpSink.start()) {
      Collector first =
          TestCollectors.start(
              config(downSink.endpoint(), "", "", smallQueue),
              new Collector.Options(1 << 20, Long.MAX_VALUE / 4, 1000));
      try {
        for (int i = 0; i < 120; i++) {
          String name = "r" + i;
          try {
            send(first, request(span(name, blob)));
            ok.add(name);
          } catch (StatusRuntimeException e) {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
            refused.add(name);
          }
        }
      } finally {
        first.shutdown(SHORT_STOP_NANOS);
      }
      assertThat(ok).isNotEmpty();
      assertThat(refused).as("the memory bound refuses at last").isNotEmpty();

      Collector second =
          TestCollectors.start(
              config(sink.endpoint(), "", "", smallQueue), Collector.Options.defaults());
      try {
        assertThat(sink.await(() -> spanNames(sink).containsAll(ok), 30, TimeUnit.SECONDS))
            .as("every request answered OK is delivered")
            .isTrue();
        // The log is done with everything it held: what it replays has been delivered.
        Await.until(
            "nothing owed in the log",
            () -> TestCollectors.prometheus(second).contains("sluice_wal_records_owed 0"));
      } finally {
        // Drains every queue: whatever the log still held would be delivered by now.
        second.shutdown(STOP_NANOS);
      }
      List<String> refusedYetDelivered = new ArrayList<>(refused);
      refusedYetDelivered.retainAll(spanNames(sink));
      assertThat(refusedYetDelivered).as("refused, yet delivered").isEmpty();
    }
  }
}
