package dev.sluice.exporter.file;

import static dev.sluice.exporter.file.TestExporters.batch;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.testkit.SequencedSpans;
import org.junit.jupiter.api.Test;

class RecordEncoderTest {
  private static final int SMALL_BOUND_BYTES = 128 * 1024;
  private final Batch large = batch(Signal.TRACES, SequencedSpans.request("svc", 0, 5000));

  @Test
  void buffersAnOutsizedBatchGrewAreDroppedAfterTheWrite() {
    RecordEncoder encoder =
        new RecordEncoder(FileExporterConfig.Format.JSON, true, SMALL_BOUND_BYTES);
    encoder.encode(large);
    assertThat(encoder.retainedJsonBytes()).isGreaterThan(2 * SMALL_BOUND_BYTES);

    encoder.release();

    assertThat(encoder.retainedJsonBytes()).isLessThanOrEqualTo(SMALL_BOUND_BYTES);
  }

  @Test
  void buffersWithinTheBoundAreKeptForTheNextBatch() {
    RecordEncoder encoder = new RecordEncoder(FileExporterConfig.Format.JSON, true);
    encoder.encode(large);
    int grown = encoder.retainedJsonBytes();

    encoder.release();

    assertThat(encoder.retainedJsonBytes()).isEqualTo(grown);
  }
}
