package dev.sluice.kafka.testkit;

import java.io.IOException;
import java.io.InputStream;

/**
 * The child JVM's entry point: runs {@code kafka.Kafka} and halts as soon as its standard input
 * reaches end of file, which happens when the test JVM that holds the other end of the pipe dies,
 * however it dies (a shutdown hook does not run on SIGKILL, an end of file always comes).
 */
final class KafkaBrokerMain {
  /** The exit status of a broker whose parent went away. */
  private static final int PARENT_GONE_STATUS = 3;

  private KafkaBrokerMain() {}

  public static void main(String[] args) throws Exception {
    Thread watcher = new Thread(KafkaBrokerMain::haltWhenParentGone, "parent-watcher");
    watcher.setDaemon(true);
    watcher.start();
    kafka.Kafka.main(args);
  }

  private static void haltWhenParentGone() {
    InputStream in = System.in;
    byte[] buffer = new byte[64];
    try {
      while (in.read(buffer) >= 0) {
        // The parent never writes; anything read is ignored.
      }
    } catch (IOException e) {
      // A broken pipe means the same as end of file.
    }
    Runtime.getRuntime().halt(PARENT_GONE_STATUS);
  }
}
