package dev.sluice.wal;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The process {@link LogKillTest} kills: opens the log, prints what it replays ({@code R seq}),
 * then appends until killed, printing each record appended ({@code A seq}), each answered as
 * written ({@code C seq}), each it marks done ({@code D seq}), and how many segments have reused a
 * done one's file so far ({@code U n}). A line is printed only after the fact it states.
 *
 * <p>Like an exporter that delivers in order with some requests in flight, it marks every record
 * done a few records after it was answered (how many, from the seed), and what it replayed once it
 * is open. So done segments retire and their files are reused while it runs, and the kill finds
 * some records owed.
 */
public final class LogKillChild {
  private static final int MAX_IN_FLIGHT = 64;

  private LogKillChild() {}

  public static void main(String[] args) throws Exception {
    Path directory = Path.of(args[0]);
    long seed = Long.parseLong(args[1]);
    PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    WalOptions options =
        new WalOptions(
            directory,
            true,
            256L << 20,
            64 << 10,
            0,
            256,
            List.of("a"),
            (layout, routing, signal) -> routing);
    List<Long> replayed = new ArrayList<>();
    WriteAheadLog log =
        WriteAheadLog.open(
            options,
            (sequence, layout, routing, signal, owed, payload) -> {
              replayed.add(sequence);
              synchronized (out) {
                out.println("R " + sequence);
              }
            },
            (message, cause) -> System.exit(3));
    log.replay();
    synchronized (out) {
      out.println("OPEN");
      for (long sequence : replayed) {
        log.done(0, sequence);
        out.println("D " + sequence);
      }
      out.flush();
    }
    SplittableRandom random = new SplittableRandom(seed);
    int inFlight = random.nextInt(1, MAX_IN_FLIGHT + 1);
    ArrayDeque<Long> answered = new ArrayDeque<>();
    long[] reusedReported = {0};
    byte[] payload = new byte[8192];
    AppendCallback callback =
        new AppendCallback() {
          @Override
          public void committed(long sequence) {
            synchronized (out) {
              out.println("C " + sequence);
              long reused = log.statistics().reusedSegments();
              if (reused > reusedReported[0]) {
                reusedReported[0] = reused;
                out.println("U " + reused);
              }
              answered.add(sequence);
              if (answered.size() > inFlight) {
                long delivered = answered.poll();
                log.done(0, delivered);
                out.println("D " + delivered);
              }
              out.flush();
            }
          }

          @Override
          public void failed(String reason, boolean retryable) {}
        };
    while (true) {
      int length = random.nextInt(1, payload.length);
      long sequence = log.append(payload, 0, length, 0, 1, 1, callback);
      if (sequence < 0) {
        Thread.sleep(1);
      } else {
        // Printed before the next append, so a record on disk is at most one past the last "A".
        synchronized (out) {
          out.println("A " + sequence);
          out.flush();
        }
      }
    }
  }
}
