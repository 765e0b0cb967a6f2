package dev.sluice.service.telemetry;

import com.sun.management.OperatingSystemMXBean;
import dev.sluice.component.telemetry.MetricRegistry;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;

/** The process metrics the OpenTelemetry Collector publishes, read from the JVM and /proc. */
public final class ProcessMetrics {
  private ProcessMetrics() {}

  public static void register(MetricRegistry metrics) {
    long startMillis = ManagementFactory.getRuntimeMXBean().getStartTime();
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    metrics.gauge(
        "otelcol_process_uptime_seconds",
        "Uptime of the process",
        () -> (System.currentTimeMillis() - startMillis) / 1000);
    metrics.gauge(
        "otelcol_process_runtime_heap_alloc_bytes",
        "Bytes of allocated heap objects",
        () -> memory.getHeapMemoryUsage().getUsed());
    metrics.gauge(
        "otelcol_process_runtime_total_sys_memory_bytes",
        "Heap and non-heap memory committed by the JVM",
        () ->
            memory.getHeapMemoryUsage().getCommitted()
                + memory.getNonHeapMemoryUsage().getCommitted());
    if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os) {
      metrics.gauge(
          "otelcol_process_cpu_seconds",
          "Total CPU user and system time in seconds",
          () -> os.getProcessCpuTime() / 1_000_000_000L);
    }
    metrics.gauge(
        "otelcol_process_memory_rss_bytes",
        "Total physical memory (resident set size)",
        ProcessMetrics::rssBytes);
  }

  /** Resident set size from /proc/self/status, 0 where there is no /proc. */
  static long rssBytes() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          String[] parts = line.trim().split("\\s+");
          return Long.parseLong(parts[1]) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      return 0;
    }
    return 0;
  }
}
