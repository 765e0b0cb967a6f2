package dev.sluice.bench.load;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A process's CPU time and memory from Linux's {@code /proc}: {@code utime + stime} of {@code
 * /proc/PID/stat} (all threads, in clock ticks) and {@code VmHWM} / {@code VmRSS} of {@code
 * /proc/PID/status}.
 */
public final class ProcStat {
  private static volatile long clockTicks;

  private ProcStat() {}

  /** Clock ticks per second: {@code getconf CLK_TCK}, 100 if that cannot be run. */
  public static long clockTicksPerSecond() {
    long ticks = clockTicks;
    if (ticks == 0) {
      ticks = 100;
      try {
        Process process =
            new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        if (process.waitFor(5, TimeUnit.SECONDS) && process.exitValue() == 0) {
          ticks = Long.parseLong(out.trim());
        }
      } catch (IOException | NumberFormatException e) {
        // keep 100, the value of every common Linux configuration
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      clockTicks = ticks;
    }
    return ticks;
  }

  /** Sets the clock ticks per second (from the runner's {@code getconf CLK_TCK}). */
  public static void setClockTicksPerSecond(long ticks) {
    if (ticks <= 0) {
      throw new IllegalArgumentException("clock ticks must be positive: " + ticks);
    }
    clockTicks = ticks;
  }

  /** User plus system CPU time of the process, in nanoseconds; -1 when it cannot be read. */
  public static long cpuNanos(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      return parseCpuTicks(stat) * 1_000_000_000L / clockTicksPerSecond();
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /**
   * {@code utime + stime} from the text of {@code /proc/PID/stat}: fields 14 and 15, counted after
   * the command name, which is in parentheses and may hold spaces.
   */
  static long parseCpuTicks(String stat) {
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
    // fields[0] is field 3 (state): utime is field 14, stime 15.
    return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
  }

  /** A {@code kB} line of {@code /proc/PID/status} such as {@code VmHWM}, in KiB; -1 if absent. */
  public static long statusKib(long pid, String key) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith(key + ":")) {
          String value = line.substring(key.length() + 1).trim();
          return Long.parseLong(value.split("\\s+")[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      // the process is gone
    }
    return -1;
  }

  /** Peak resident set size, KiB. */
  public static long peakRssKib(long pid) {
    return statusKib(pid, "VmHWM");
  }

  /** Resident set size now, KiB. */
  public static long rssKib(long pid) {
    return statusKib(pid, "VmRSS");
  }

  /**
   * The machine's CPU time so far, from the first line of {@code /proc/stat}, in clock ticks summed
   * over all cores; null when it cannot be read.
   */
  public static MachineCpu machineCpu() {
    try (var lines = Files.lines(Path.of("/proc/stat"))) {
      return lines.findFirst().map(MachineCpu::parse).orElse(null);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /**
   * Ticks of the machine's CPUs: busy (user, nice, system, irq, softirq), idle (idle, iowait), and
   * stolen: time the hypervisor ran something else while this machine's virtual CPUs wanted to run.
   * Steal is what makes a run on a shared host slow without anything on the machine being busier.
   */
  public record MachineCpu(long busyTicks, long idleTicks, long stealTicks) {
    /** Parses {@code cpu user nice system idle iowait irq softirq steal ...}. */
    static MachineCpu parse(String line) {
      String[] f = line.trim().split("\\s+");
      if (!f[0].equals("cpu") || f.length < 8) {
        throw new IllegalArgumentException("not the total cpu line of /proc/stat: " + line);
      }
      long busy = 0;
      for (int i : new int[] {1, 2, 3, 6, 7}) {
        busy += Long.parseLong(f[i]);
      }
      long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
      long steal = f.length > 8 ? Long.parseLong(f[8]) : 0;
      return new MachineCpu(busy, idle, steal);
    }

    /** Stolen share of all CPU ticks from {@code earlier} to this, in percent; NaN if none. */
    public double stealPercentSince(MachineCpu earlier) {
      long steal = stealTicks - earlier.stealTicks;
      long total = steal + (busyTicks - earlier.busyTicks) + (idleTicks - earlier.idleTicks);
      return total > 0 ? 100.0 * steal / total : Double.NaN;
    }
  }

  public static boolean alive(long pid) {
    return Files.exists(Path.of("/proc", Long.toString(pid), "stat"));
  }
}
