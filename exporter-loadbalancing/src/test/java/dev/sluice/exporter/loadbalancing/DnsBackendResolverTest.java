package dev.sluice.exporter.loadbalancing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Scheduler;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.testkit.Await;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The DNS resolver over a lookup the test answers. */
class DnsBackendResolverTest {
  private static final Duration INTERVAL = Duration.ofMillis(50);

  /**
   * A lookup timeout no answer of the test's comes near, however slow the machine: the lookups run
   * on a thread of their own, so a short one could pass before the test's answer is read.
   */
  private static final Duration ANSWERED_IN_TIME = Duration.ofSeconds(10);

  /** What a lookup the test makes late waits for: its timeout, which interrupts it. */
  private static final long LATE = Long.MAX_VALUE;

  private final AtomicReference<Object> answer = new AtomicReference<>();
  private final AtomicInteger lookups = new AtomicInteger();
  private final List<List<String>> heard = new CopyOnWriteArrayList<>();
  private DnsBackendResolver resolver;

  private InetAddress[] lookup(String hostname) throws UnknownHostException {
    assertThat(hostname).isEqualTo("collectors.test");
    lookups.incrementAndGet();
    Object now = answer.get();
    if (now instanceof UnknownHostException e) {
      throw e;
    }
    if (now instanceof Long sleepMillis) {
      try {
        Thread.sleep(sleepMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return addresses("10.9.9.9");
    }
    return (InetAddress[]) now;
  }

  private static InetAddress[] addresses(String... literals) {
    return Arrays.stream(literals)
        .map(
            literal -> {
              try {
                return InetAddress.getByName(literal);
              } catch (UnknownHostException e) {
                throw new AssertionError(e);
              }
            })
        .toArray(InetAddress[]::new);
  }

  private DnsBackendResolver start(String port, Duration timeout) {
    resolver =
        new DnsBackendResolver(
            new LoadBalancingExporterConfig.DnsResolver("collectors.test", port, INTERVAL, timeout),
            this::lookup,
            Scheduler.shared(),
            Logger.getLogger("test"),
            "test-dns");
    resolver.start(heard::add);
    return resolver;
  }

  @AfterEach
  void stop() {
    if (resolver != null) {
      resolver.shutdown();
    }
  }

  private List<String> last() {
    return heard.get(heard.size() - 1);
  }

  @Test
  void resolvesAtStartThenEveryIntervalAndTellsOfAddedAndRemovedBackends() throws Exception {
    answer.set(addresses("10.0.0.2", "10.0.0.1"));

    start("4317", ANSWERED_IN_TIME);

    assertThat(heard).containsExactly(List.of("10.0.0.1:4317", "10.0.0.2:4317"));
    answer.set(addresses("10.0.0.2", "10.0.0.3", "10.0.0.1"));
    Await.until("the added backend heard", () -> heard.size() == 2);
    assertThat(last()).containsExactly("10.0.0.1:4317", "10.0.0.2:4317", "10.0.0.3:4317");
    answer.set(addresses("10.0.0.3", "10.0.0.1"));
    Await.until("the removed backend heard", () -> heard.size() == 3);
    assertThat(last()).containsExactly("10.0.0.1:4317", "10.0.0.3:4317");
    // The same answer again is no change.
    int seen = lookups.get();
    Await.until("three more lookups", () -> lookups.get() >= seen + 3);
    assertThat(heard).hasSize(3);
  }

  @Test
  void keepsTheLastBackendsWhenALookupFailsOrIsLate() throws Exception {
    answer.set(addresses("10.0.0.1"));
    // Long enough for the first lookup on a busy machine; each late one costs this much.
    start("4317", Duration.ofSeconds(2));

    answer.set(new UnknownHostException("collectors.test: no such host"));
    int failedFrom = lookups.get();
    Await.until("three failed lookups", () -> lookups.get() >= failedFrom + 3);
    answer.set(LATE);
    int lateFrom = lookups.get();
    Await.until("two late lookups", () -> lookups.get() >= lateFrom + 2);

    assertThat(heard).containsExactly(List.of("10.0.0.1:4317"));
    answer.set(addresses("10.0.0.4"));
    Await.until("the new backend heard", () -> heard.size() == 2);
    assertThat(last()).containsExactly("10.0.0.4:4317");
  }

  @Test
  void bracketsIpv6AddressesAndAddsNoPortWhenNoneIsConfigured() {
    answer.set(addresses("fd00::1", "10.0.0.1"));

    start("", ANSWERED_IN_TIME);

    assertThat(heard).containsExactly(List.of("10.0.0.1", "[fd00:0:0:0:0:0:0:1]"));
    assertThat(BackendAddress.withPort("[fd00:0:0:0:0:0:0:1]"))
        .isEqualTo("[fd00:0:0:0:0:0:0:1]:4317");
    assertThat(BackendAddress.withPort("10.0.0.1")).isEqualTo("10.0.0.1:4317");
  }

  @Test
  void theExportersBackendsFollowTheLookup() throws Exception {
    answer.set(addresses("10.0.0.1", "10.0.0.2"));
    LoadBalancingExporter exporter =
        LoadBalancingExporterFactory.create(
            new ComponentSettings(
                ComponentId.parse("loadbalancing"), ComponentKind.EXPORTER, new MetricRegistry()),
            LoadBalancingExporterConfigTest.config(
                "resolver:\n  dns:\n    hostname: collectors.test\n    interval: 50ms\n"
                    + "    timeout: 10s\n"),
            this::lookup,
            TimeUnit.SECONDS.toNanos(5));
    try {
      exporter.start();
      assertThat(exporter.membership().current().ring().backends())
          .containsExactly("10.0.0.1:4317", "10.0.0.2:4317");
      Backend second = exporter.membership().current().backends()[1];

      answer.set(addresses("10.0.0.1", "10.0.0.3"));

      Await.until(
          "the ring following the lookup",
          () ->
              exporter
                  .membership()
                  .current()
                  .ring()
                  .backends()
                  .equals(List.of("10.0.0.1:4317", "10.0.0.3:4317")));
      // Marked removed right after the new ring is out.
      Await.until("the dropped backend marked removed", second::removed);
      assertThat(exporter.membership().current().backends()[0].removed()).isFalse();
    } finally {
      exporter.shutdown(System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
    }
  }
}
