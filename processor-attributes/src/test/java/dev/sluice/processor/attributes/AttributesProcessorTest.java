package dev.sluice.processor.attributes;

import static dev.sluice.testkit.AttributeRequests.kv;
import static dev.sluice.testkit.AttributeRequests.service;
import static dev.sluice.testkit.AttributeRequests.sha256;
import static dev.sluice.testkit.AttributeRequests.span;
import static dev.sluice.testkit.AttributeRequests.str;
import static dev.sluice.testkit.AttributeRequests.traces;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchConsumer;
import dev.sluice.component.Processor;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** The processor as a pipeline stage: re-offered batches, several threads. */
class AttributesProcessorTest {
  private static final String HASH_USER =
      "actions:\n  - {key: user, action: hash}\n  - {key: seen, value: 'yes', action: upsert}\n";

  /** Refuses the first {@code refusals} offers, then takes batches and keeps their bytes. */
  private static final class Next implements BatchConsumer {
    final List<byte[]> taken = new ArrayList<>();
    int refusals;

    @Override
    public synchronized Admission consume(Batch batch) {
      if (refusals > 0) {
        refusals--;
        return Admission.FULL;
      }
      taken.add(OtlpMarshaler.toByteArray(batch));
      batch.clear();
      return Admission.ACCEPTED;
    }
  }

  private static Processor stage(String yaml, Next next) throws Exception {
    return new AttributesProcessorFactory()
        .create(Harness.SETTINGS, Harness.bind(yaml), Signal.TRACES, next);
  }

  private static Batch userSpan(String user) throws Exception {
    return Batch.of(
        new OtlpIndexer()
            .index(
                Signal.TRACES,
                traces(service("shop"), span("a", List.of(kv("user", str(user))))).toByteArray()));
  }

  @Test
  void aBatchRefusedAndOfferedAgainIsHashedOnce() throws Exception {
    Next next = new Next();
    next.refusals = 2;
    Processor stage = stage(HASH_USER, next);
    Batch batch = userSpan("alice");

    assertThat(stage.consume(batch)).isEqualTo(Admission.FULL);
    assertThat(stage.consume(batch)).isEqualTo(Admission.FULL);
    assertThat(stage.consume(batch)).isEqualTo(Admission.ACCEPTED);

    assertThat(next.taken).hasSize(1);
    assertThat(ExportTraceServiceRequest.parseFrom(next.taken.get(0)))
        .isEqualTo(
            traces(
                service("shop"),
                span("a", List.of(kv("user", str(sha256("alice"))), kv("seen", str("yes"))))));
  }

  @Test
  void threadsEditTheirOwnBatchesWithTheirOwnScratch() throws Exception {
    Next next = new Next();
    Processor stage = stage(HASH_USER, next);
    int threads = 4;
    int batchesPerThread = 200;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        String user = "user" + t;
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < batchesPerThread; i++) {
                    assertThat(stage.consume(userSpan(user))).isEqualTo(Admission.ACCEPTED);
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(next.taken).hasSize(threads * batchesPerThread);
    List<String> expected = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      expected.add(sha256("user" + t));
    }
    for (byte[] output : next.taken) {
      String hashed =
          ExportTraceServiceRequest.parseFrom(output)
              .getResourceSpans(0)
              .getScopeSpans(0)
              .getSpans(0)
              .getAttributes(0)
              .getValue()
              .getStringValue();
      assertThat(hashed).isIn(expected);
    }
  }

  @Test
  void valuesAConvertCouldNotConvertAreLoggedAtFine() throws Exception {
    Logger logger = Harness.SETTINGS.logger();
    List<LogRecord> logged = new ArrayList<>();
    Handler handler =
        new Handler() {
          @Override
          public void publish(LogRecord record) {
            synchronized (logged) {
              logged.add(record);
            }
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    Level level = logger.getLevel();
    logger.setLevel(Level.FINE);
    logger.addHandler(handler);
    try {
      Processor stage =
          stage("actions:\n  - {key: user, action: convert, converted_type: int}\n", new Next());

      assertThat(stage.consume(userSpan("alice"))).isEqualTo(Admission.ACCEPTED);
    } finally {
      logger.removeHandler(handler);
      logger.setLevel(level);
    }

    assertThat(logged)
        .singleElement()
        .satisfies(
            record -> {
              assertThat(record.getLevel()).isEqualTo(Level.FINE);
              assertThat(record.getMessage()).contains("Left 1 attribute values unconverted");
            });
  }
}
