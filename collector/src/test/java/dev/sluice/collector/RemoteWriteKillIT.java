package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import prometheus.Remote.WriteRequest;
import prometheus.Types.Label;
import prometheus.Types.Sample;
import prometheus.Types.TimeSeries;

/**
 * The crash test of the {@code prometheusremotewrite} exporter's durability: {@code bin/sluice}
 * receives gauge points over OTLP (batch processor) and sends them with {@code
 * prometheusremotewrite}, whose {@code sending_queue.storage} is the write-ahead log, to a
 * remote-write receiver on loopback. Every point carries its number as the attribute {@code n}, so
 * each is a series of its own with the label {@code n} and one sample. Under steady load the
 * receiver stops answering (its calls are held, and never taken) and the daemon is killed with
 * SIGKILL while it waits, {@value #KILLS} times, half of them at chosen points of the write-ahead
 * log; then restarted each time. In the end every point answered OK has arrived at the receiver as
 * a sample labelled with its number, and nothing that was never sent.
 */
class RemoteWriteKillIT {
  private static final int KILLS = 6;

  @Test
  void everyPointAnsweredOkArrivesAsASampleThroughSixKills(
      @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path dir) throws Exception {
    try (RemoteWriteReceiver receiver = RemoteWriteReceiver.start()) {
      Samples samples = new Samples(receiver);
      KillLoop.Result run =
          new KillLoop(
                  KILLS,
                  43,
                  KillLoop.Numbering.POINTS,
                  KillLoop.Backlog.HELD_CALLS,
                  RemoteWriteKillIT::config,
                  samples::distinct,
                  "every answered point arrives as a sample; %d answered")
              .run(dir, receiver);
      assertThat(receiver.malformed()).as("bodies the receiver could not decode").isEmpty();
      run.assertEveryAnsweredDelivered("RemoteWriteKillIT", "points", samples.numbers());
      assertThat(run.answered().cardinality()).isGreaterThan(KILLS * KillLoop.SPANS_PER_REQUEST);
    }
  }

  /**
   * The samples of {@value KillLoop#POINTS_METRIC} a receiver has taken, each request read once:
   * the number of each (its label {@code n}, which its value and time must match), in the order
   * they came.
   */
  private static final class Samples {
    private final RemoteWriteReceiver receiver;
    private final List<Integer> numbers = new ArrayList<>();
    private final BitSet distinct = new BitSet();
    private int requestsRead;

    Samples(RemoteWriteReceiver receiver) {
      this.receiver = receiver;
    }

    /** Each sample's number, once per sample. */
    List<Integer> numbers() {
      read();
      return List.copyOf(numbers);
    }

    /** The numbers that have arrived. */
    BitSet distinct() {
      read();
      return (BitSet) distinct.clone();
    }

    private void read() {
      List<WriteRequest> fresh = receiver.requests(requestsRead);
      requestsRead += fresh.size();
      for (WriteRequest request : fresh) {
        for (TimeSeries series : request.getTimeseriesList()) {
          String name = null;
          String n = null;
          for (Label label : series.getLabelsList()) {
            if (label.getName().equals("__name__")) {
              name = label.getValue();
            } else if (label.getName().equals("n")) {
              n = label.getValue();
            }
          }
          if (!KillLoop.POINTS_METRIC.equals(name)) {
            continue;
          }
          assertThat(n).as("label n of a series of %s", name).isNotNull();
          int number = Integer.parseInt(n);
          for (Sample sample : series.getSamplesList()) {
            assertThat(sample.getValue()).as("the value of point %d", number).isEqualTo(number);
            assertThat(sample.getTimestamp())
                .as("the time of point %d, in ms", number)
                .isEqualTo(KillLoop.POINTS_EPOCH_NANOS / 1_000_000 + number);
            numbers.add(number);
            distinct.set(number);
          }
        }
      }
    }
  }

  private static String config(int port, String receiver, Path wal) {
    return String.join(
        "\n",
        KillLoop.fileStorage(wal),
        "receivers:",
        "  otlp:",
        "    protocols:",
        "      grpc:",
        "        endpoint: 127.0.0.1:" + port,
        "processors:",
        "  batch:",
        "    timeout: 50ms",
        "exporters:",
        "  prometheusremotewrite:",
        "    endpoint: " + receiver,
        "    timeout: 1s",
        "    remote_write_queue:",
        "      num_consumers: 2",
        "    retry_on_failure:",
        "      initial_interval: 20ms",
        "      max_interval: 100ms",
        "    sending_queue:",
        "      storage: file_storage",
        "service:",
        "  extensions: [file_storage]",
        "  telemetry:",
        "    metrics:",
        "      level: none",
        "  pipelines:",
        "    metrics:",
        "      receivers: [otlp]",
        "      processors: [batch]",
        "      exporters: [prometheusremotewrite]",
        "");
  }
}
