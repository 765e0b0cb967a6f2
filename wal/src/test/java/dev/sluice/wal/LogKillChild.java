package dev.sluice.wal;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The process {@link LogKillTest} kills: opens the log, prints what it replays ({@code R seq}),
 * then appends until killed, printing each record appended ({@code A seq}), each answered as
 * written ({@code C seq}) and each it marks done ({@code D seq}). A line is printed only after the
 * fact it states.
 */
public final class LogKillChild {
  private LogKillChild() {}

  public static void main(String[] args) throws Exception {
    Path directory = Path.of(args[0]);
    long seed = Long.parseLong(args[1]);
    PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    WalOptions options =
        new WalOptions(directory, true, 256L << 20, 64 << 10, 0, 256, List.of("a"), r -> r);
    WriteAheadLog log =
        WriteAheadLog.open(
            options,
            (sequence, routing, signal, owed, payload) -> {
              synchronized (out) {
                out.println("R " + sequence);
              }
            },
            (message, cause) -> System.exit(3));
    synchronized (out) {
      out.println("OPEN");
      out.flush();
    }
    SplittableRandom random = new SplittableRandom(seed);
    byte[] payload = new byte[8192];
    while (true) {
      int length = random.nextInt(1, payload.length);
      boolean markDone = random.nextBoolean();
      long sequence =
          log.append(
              payload,
              0,
              length,
              1,
              1,
              new AppendCallback() {
                @Override
                public void committed(long sequence) {
                  synchronized (out) {
                    out.println("C " + sequence);
                    if (markDone) {
                      log.done(0, sequence);
                      out.println("D " + sequence);
                    }
                    out.flush();
                  }
                }

                @Override
                public void failed(String reason, boolean retryable) {}
              });
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
