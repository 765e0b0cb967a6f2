package dev.sluice.wal;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Opens logs on a test directory and collects what they replay and answer. */
final class LogHarness {
  /** A record handed back at start. */
  record Replayed(long sequence, int routing, int signal, int owed, String payload) {}

  /** Routing bit i goes to consumer i. */
  static WalOptions options(Path directory, long segmentBytes, String... consumers) {
    return new WalOptions(
        directory,
        true,
        64L << 20,
        segmentBytes,
        0,
        1024,
        List.of(consumers),
        (layout, routing, signal) -> routing);
  }

  final List<Replayed> replayed = new ArrayList<>();
  final List<String> fatal = new ArrayList<>();

  /** Opens the log and replays it on this thread, as a start does before traffic. */
  WriteAheadLog open(WalOptions options, FileAccess files) throws Exception {
    WriteAheadLog log = openOnly(options, files);
    log.replay();
    return log;
  }

  /** Opens the log; its replay is the caller's. */
  WriteAheadLog openOnly(WalOptions options, FileAccess files) throws Exception {
    replayed.clear();
    return WriteAheadLog.open(
        options,
        files,
        (sequence, layout, routing, signal, owed, payload) ->
            replayed.add(
                new Replayed(
                    sequence, routing, signal, owed, new String(payload, StandardCharsets.UTF_8))),
        (message, cause) -> fatal.add(message));
  }

  List<String> replayedPayloads() {
    List<String> payloads = new ArrayList<>();
    for (Replayed record : replayed) {
      payloads.add(record.payload());
    }
    return payloads;
  }

  /** An append's answer. */
  static final class Answer implements AppendCallback {
    final CompletableFuture<Long> committed = new CompletableFuture<>();
    volatile String failure;
    volatile boolean retryable;

    @Override
    public void committed(long sequence) {
      committed.complete(sequence);
    }

    @Override
    public void failed(String reason, boolean retryable) {
      this.failure = reason;
      this.retryable = retryable;
      committed.completeExceptionally(new IllegalStateException(reason));
    }

    long await() throws Exception {
      return committed.get(10, TimeUnit.SECONDS);
    }
  }

  static Answer append(WriteAheadLog log, String payload, int routing) {
    Answer answer = new Answer();
    byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
    long sequence = log.append(bytes, 0, bytes.length, 0, routing, 1, answer);
    if (sequence < 0) {
      answer.failed(sequence == WriteAheadLog.FULL ? "full" : "closed", true);
    }
    return answer;
  }
}
