package dev.sluice.bench.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The /proc and Prometheus parsers the measurements rest on. */
class ParsingTest {
  @Test
  void cpuTicksAreUtimePlusStimeAfterTheCommandName() {
    String stat =
        "4242 (java (x) y) S 1 4242 4242 0 -1 4194560 81783 0 12 0 1234 567 0 0 20 0 31 0 8301"
            + " 3903868928 52114 18446744073709551615 1 1 0 0 0 0 0 0 16800975 0 0 0 17 1 0 0";
    assertThat(ProcStat.parseCpuTicks(stat)).isEqualTo(1234 + 567);
  }

  @Test
  void stealIsItsShareOfEveryTickOfTheMachine() {
    ProcStat.MachineCpu before = ProcStat.MachineCpu.parse("cpu  100 0 20 500 10 0 5 7 0 0");
    ProcStat.MachineCpu after = ProcStat.MachineCpu.parse("cpu  160 0 30 520 10 0 15 37 0 0");
    assertThat(after.busyTicks() - before.busyTicks()).isEqualTo(60 + 10 + 10);
    assertThat(after.idleTicks() - before.idleTicks()).isEqualTo(20);
    // 30 stolen of 80 busy + 20 idle + 30 stolen.
    assertThat(after.stealPercentSince(before)).isCloseTo(100.0 * 30 / 130, within(1e-9));
    assertThat(after.stealPercentSince(after)).isNaN();
    assertThatThrownBy(() -> ProcStat.MachineCpu.parse("cpu0 1 2 3 4 5 6 7 8"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(ProcStat.machineCpu()).isNotNull();
  }

  @Test
  void readsThisProcess() {
    long pid = ProcessHandle.current().pid();
    assertThat(ProcStat.cpuNanos(pid)).isPositive();
    long rss = ProcStat.rssKib(pid);
    assertThat(rss).isPositive();
    assertThat(ProcStat.peakRssKib(pid)).isGreaterThanOrEqualTo(rss);
    assertThat(ProcStat.cpuNanos(Long.MAX_VALUE)).isEqualTo(-1);
  }

  @Test
  void sumsEverySeriesOfAName() {
    String text =
        "# HELP sluice_exporter_blackhole_items_total Spans\n"
            + "# TYPE sluice_exporter_blackhole_items_total counter\n"
            + "sluice_exporter_blackhole_items_total{exporter=\"blackhole\"} 1000\n"
            + "sluice_exporter_blackhole_items_total{exporter=\"blackhole/2\"} 2.5e3 1700000000\n"
            + "sluice_exporter_blackhole_items_total_other 7\n"
            + "sluice_exporter_blackhole_bytes_total{exporter=\"blackhole\"} 99\n";
    assertThat(Delivered.sumSeries(text, "sluice_exporter_blackhole_items_total")).isEqualTo(3500);
    assertThat(Delivered.sumSeries("up 1\n", "up")).isEqualTo(1);
    assertThatThrownBy(() -> Delivered.sumSeries(text, "missing"))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void onlyLoopbackTargets() {
    assertThatThrownBy(() -> Delivered.parse("sink:http://192.0.2.1:9/counts", 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(Delivered.parse("metric:http://127.0.0.1:9/metrics#x", 1).describe())
        .isEqualTo("metric:http://127.0.0.1:9/metrics#x");
  }
}
