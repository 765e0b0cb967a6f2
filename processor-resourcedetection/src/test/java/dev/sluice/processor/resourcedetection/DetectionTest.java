package dev.sluice.processor.resourcedetection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.component.Scheduler;
import dev.sluice.processor.resourcedetection.Detector.Detected;
import dev.sluice.testkit.ManualScheduler;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

class DetectionTest {
  private static final Logger LOGGER = Logger.getLogger(DetectionTest.class.getName());
  private final TestEnvironment environment = new TestEnvironment();
  private final ManualScheduler scheduler = ManualScheduler.sleepsAdvance();

  private Detection detection(long backoffNanos) {
    return new Detection(
        List.of(
            new EnvDetector(EnvDetectorConfig.DEFAULT, environment),
            new SystemDetector(SystemDetectorConfig.DEFAULT, environment, LOGGER)),
        backoffNanos,
        scheduler,
        LOGGER);
  }

  private long inMillis(long millis) {
    return scheduler.nanoTime() + Duration.ofMillis(millis).toNanos();
  }

  @Test
  void mergesDetectorsFirstListedWinningAndTakesTheFirstSchemaUrl() throws Exception {
    environment.variable("OTEL_RESOURCE_ATTRIBUTES", "host.name=mine,a=1");
    Detected detected = detection(1).run(inMillis(1_000));
    assertThat(detected.attributes())
        .containsExactly(
            Map.entry("host.name", "mine"), Map.entry("a", "1"), Map.entry("os.type", "linux"));
    assertThat(detected.schemaUrl()).isEqualTo(SystemDetector.SCHEMA_URL);
  }

  @Test
  void readsTheDeprecatedVariableWhenTheCurrentOneIsUnsetAndAppliesTheAllowList() throws Exception {
    environment.variable("OTEL_RESOURCE", "a=1,b=2,c=3");
    assertThat(new EnvDetector(new EnvDetectorConfig(List.of("c", "a")), environment).detect())
        .isEqualTo(new Detected(Map.of("a", "1", "c", "3"), ""));
    environment.variable("OTEL_RESOURCE_ATTRIBUTES", "d=4");
    assertThat(new EnvDetector(EnvDetectorConfig.DEFAULT, environment).detect().attributes())
        .containsExactly(Map.entry("d", "4"));
    assertThat(new EnvDetector(new EnvDetectorConfig(List.of()), environment).detect().attributes())
        .isEmpty();
  }

  @Test
  void retriesATransientFailureUntilItAnswers() throws Exception {
    environment.fqdnFailuresFirst = 3;
    environment.osHostname = null;
    Detected detected = detection(Duration.ofMillis(1).toNanos()).run(inMillis(10_000));
    assertThat(detected.attributes()).containsEntry("host.name", "host-1.example.com");
    assertThat(environment.fqdnCalls).hasValue(4);
  }

  @Test
  void givesUpWhenTheNextRetryWouldPassTheDeadline() {
    environment.fqdn = null;
    environment.osHostname = null;
    // Each reading of the clock is 100 ms later and waits take no time; tries wait 10-30, then
    // 20-60 ms. The failures read 100 and 200 ms (a retry fits before 300 ms), then 300 ms (none
    // does).
    AtomicLong now = new AtomicLong();
    Scheduler steppingClock =
        new Scheduler() {
          @Override
          public long nanoTime() {
            return now.addAndGet(Duration.ofMillis(100).toNanos());
          }

          @Override
          public Timer schedule(Runnable task, long delayNanos) {
            throw new UnsupportedOperationException("detection sets no timers");
          }

          @Override
          public void sleep(long delayNanos) {}
        };
    Detection detection =
        new Detection(
            List.of(new SystemDetector(SystemDetectorConfig.DEFAULT, environment, LOGGER)),
            Duration.ofMillis(20).toNanos(),
            steppingClock,
            LOGGER);
    assertThatThrownBy(() -> detection.run(Duration.ofMillis(300).toNanos()))
        .isInstanceOf(DetectionException.class)
        .hasMessageStartingWith(
            "resource detection failed: system detector: all hostname sources failed");
    assertThat(environment.fqdnCalls).hasValue(3);
  }

  @Test
  void doesNotRetryAMalformedVariableAndStillFailsWhenOthersSucceed() {
    environment.variable("OTEL_RESOURCE_ATTRIBUTES", "broken");
    assertThatThrownBy(() -> detection(Duration.ofSeconds(10).toNanos()).run(inMillis(60_000)))
        .hasMessage(
            "resource detection failed: env detector: OTEL_RESOURCE_ATTRIBUTES: invalid resource"
                + " format, invalid text: \"broken\"");
    assertThat(environment.fqdnCalls).as("system still ran").hasValue(1);
  }

  @Test
  void namesEveryDetectorThatFailed() {
    environment.variable("OTEL_RESOURCE_ATTRIBUTES", "k=%x");
    environment.fqdn = null;
    environment.osHostname = null;
    assertThatThrownBy(() -> detection(Duration.ofSeconds(10).toNanos()).run(inMillis(100)))
        .hasMessageContaining("env detector: OTEL_RESOURCE_ATTRIBUTES")
        .hasMessageContaining("; system detector: all hostname sources failed");
  }
}
