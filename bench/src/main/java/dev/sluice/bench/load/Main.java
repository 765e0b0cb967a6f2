package dev.sluice.bench.load;

import dev.sluice.bench.fault.FaultRun;
import dev.sluice.bench.hostile.HostileCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code java -jar bench/target/sluice-bench.jar}: the load generator, the counting sink, the
 * transport floor server, the report of scenario results, the hostile run and the fault run. {@code
 * bench/run-scenario.sh} and {@code bench/report.sh} drive them.
 */
@Command(
    name = "sluice-bench",
    mixinStandardHelpOptions = true,
    description = "Load generator, sink, floor server and report for Sluice's benchmarks.",
    subcommands = {
      GenerateCommand.class,
      SinkCommand.class,
      FloorCommand.class,
      ReportCommand.class,
      PortsCommand.class,
      HostileCommand.class,
      FaultRun.class
    })
public final class Main implements Runnable {
  public static void main(String[] args) {
    // Options given twice take the last value: the runner appends BENCH_GENERATE_ARGS to a
    // scenario's arguments to override them.
    System.exit(
        new CommandLine(new Main())
            .setCaseInsensitiveEnumValuesAllowed(true)
            .setOverwrittenOptionsAllowed(true)
            .execute(args));
  }

  @Override
  public void run() {
    new CommandLine(this).usage(System.err);
  }
}
