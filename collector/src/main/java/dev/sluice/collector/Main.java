package dev.sluice.collector;

import dev.sluice.component.ComponentFactory;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.tls.TlsConfigException;
import dev.sluice.config.CollectorConfig;
import dev.sluice.config.ComponentRegistry;
import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigLoader;
import dev.sluice.config.ConfigProblem;
import dev.sluice.pdata.codec.ByteArrays;
import dev.sluice.service.telemetry.LogFormat;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Level;
import java.util.logging.Logger;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** The {@code sluice} command line. */
@Command(
    name = "sluice",
    mixinStandardHelpOptions = true,
    versionProvider = Main.VersionProvider.class,
    description = "Sluice: an OTLP telemetry collector that stays on the wire.",
    subcommands = {Main.Run.class, Main.Validate.class, Main.Components.class})
public final class Main implements Callable<Integer> {
  /** Exit code for an unusable configuration. */
  static final int CONFIG_ERROR = 2;

  /** Exit code for a collector that could not start or failed. */
  static final int FAILURE = 1;

  @CommandLine.Mixin private RunOptions options = new RunOptions();

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  static CommandLine commandLine() {
    return new CommandLine(new Main()).setCaseInsensitiveEnumValuesAllowed(true);
  }

  /** {@code sluice} alone runs the collector, as {@code sluice run} does. */
  @Override
  public Integer call() {
    return options.run();
  }

  /** Options of {@code sluice} and {@code sluice run}. */
  static final class RunOptions {
    @Option(
        names = "--config",
        paramLabel = "FILE",
        description = "The configuration file (YAML). Without it, the embedded default.")
    Path config;

    @Option(
        names = "--shutdown-timeout",
        paramLabel = "DURATION",
        defaultValue = "30s",
        converter = DurationConverter.class,
        description =
            "How long to flush and drain on SIGTERM or SIGINT (default: ${DEFAULT-VALUE}).")
    Duration shutdownTimeout;

    @Option(
        names = "--max-pipeline-mib",
        paramLabel = "MIB",
        description =
            "The bound on request bytes held in pipelines, in MiB (default: a third of the heap;"
                + " a quarter, at least 4 MiB, in the sidecar profile).")
    Long maxPipelineMib;

    @Option(
        names = "--max-pipeline-items",
        paramLabel = "N",
        description = "The bound on spans, data points and log records held (default: no bound).")
    Long maxPipelineItems;

    @Option(
        names = "--max-sending-threads",
        paramLabel = "N",
        description =
            "The cap on each exporter's sending threads (sending_queue.num_consumers) (default:"
                + " no cap; 2 in the sidecar profile).")
    Integer maxSendingThreads;

    /**
     * The collector's options: the command line's bounds where given, else the profile's sizing;
     * the rest from {@code defaults}.
     */
    Collector.Options options(Sizing sizing, Collector.Options defaults) {
      return new Collector.Options(
          maxPipelineMib == null ? sizing.maxPipelineBytes() : maxPipelineMib << 20,
          maxPipelineItems == null ? defaults.maxPipelineItems() : maxPipelineItems,
          defaults.retryDelayMillis(),
          maxSendingThreads == null ? sizing.maxSendingThreads() : maxSendingThreads);
    }

    int run() {
      if (maxSendingThreads != null && maxSendingThreads < 1) {
        System.err.println("--max-sending-threads must be at least 1, was " + maxSendingThreads);
        return CONFIG_ERROR;
      }
      CollectorConfig config;
      try {
        config = load(this.config);
      } catch (ConfigException e) {
        System.err.println(e.getMessage());
        return CONFIG_ERROR;
      }
      LogFormat.install(
          config.telemetry().logsLevel().name().toLowerCase(Locale.ROOT),
          config.telemetry().logsEncoding().name().toLowerCase(Locale.ROOT));
      Logger logger = Logger.getLogger("sluice.service");
      for (ConfigProblem warning : config.warnings()) {
        logger.warning(warning.toString());
      }
      Profile profile;
      try {
        profile = Profile.current();
      } catch (IllegalArgumentException e) {
        System.err.println(e.getMessage());
        return CONFIG_ERROR;
      }
      Collector.Options options =
          options(
              Sizing.of(profile, Runtime.getRuntime().maxMemory()), Collector.Options.defaults());
      logger.info(
          "Starting Sluice "
              + version()
              + " with "
              + config.source()
              + (profile == Profile.DEFAULT ? "" : " (" + profile.label() + " profile)"));
      if (!ByteArrays.uninitializedAvailable()) {
        logger.info(
            "Request arrays are zeroed before each copy, which costs CPU under load: run from"
                + " sluice.jar (its manifest exports what is needed) or add --add-exports"
                + " java.base/jdk.internal.misc=ALL-UNNAMED");
      }
      Collector collector = new Collector(config, options);
      CountDownLatch stop = new CountDownLatch(1);
      Signals.onTermination(stop::countDown);
      try {
        collector.start();
      } catch (TlsConfigException e) {
        // A tls section that cannot be used is a configuration error: its message says which.
        logger.severe("Sluice could not start: " + e.getMessage());
        return FAILURE;
      } catch (Exception e) {
        logger.log(Level.SEVERE, "Sluice could not start: " + e.getMessage(), e);
        return FAILURE;
      }
      try {
        stop.await();
        logger.info("Shutting down; draining for up to " + shutdownTimeout.toSeconds() + " s");
        collector.shutdown(shutdownTimeout.toNanos());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return FAILURE;
      }
      return 0;
    }
  }

  @Command(name = "run", mixinStandardHelpOptions = true, description = "Run the collector.")
  static final class Run implements Callable<Integer> {
    @CommandLine.Mixin private RunOptions options = new RunOptions();

    @Override
    public Integer call() {
      return options.run();
    }
  }

  @Command(
      name = "validate",
      mixinStandardHelpOptions = true,
      description = "Check a configuration file and report every problem, then exit.")
  static final class Validate implements Callable<Integer> {
    @Option(names = "--config", paramLabel = "FILE", required = true, description = "The file.")
    Path config;

    @Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      try {
        CollectorConfig loaded = load(config);
        for (ConfigProblem warning : loaded.warnings()) {
          out.println("warning: " + warning);
        }
        out.println(config + ": the configuration is valid");
        out.flush();
        return 0;
      } catch (ConfigException e) {
        PrintWriter err = spec.commandLine().getErr();
        err.println(e.getMessage());
        err.flush();
        return CONFIG_ERROR;
      }
    }
  }

  @Command(
      name = "components",
      mixinStandardHelpOptions = true,
      description = "List the component types this build has.")
  static final class Components implements Callable<Integer> {
    @Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      ComponentRegistry registry = ComponentRegistry.installed();
      for (ComponentKind kind : ComponentKind.values()) {
        out.println(kind.section() + ":");
        registry.factories(kind).stream()
            .sorted(Comparator.comparing(ComponentFactory::type))
            .forEach(
                f ->
                    out.println(
                        "  "
                            + f.type()
                            + (f.aliases().isEmpty()
                                ? ""
                                : " (also " + String.join(", ", f.aliases()) + ")")));
      }
      out.flush();
      return 0;
    }
  }

  static CollectorConfig load(Path file) throws ConfigException {
    ConfigLoader loader = new ConfigLoader();
    if (file != null) {
      return loader.load(file);
    }
    try (InputStream in = Main.class.getResourceAsStream("default-config.yaml")) {
      return loader.load(
          new String(in.readAllBytes(), StandardCharsets.UTF_8), "default-config.yaml");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The project version, filtered into the jar at build time. */
  static String version() {
    try (InputStream in = Main.class.getResourceAsStream("version.properties")) {
      Properties properties = new Properties();
      if (in != null) {
        properties.load(in);
      }
      return properties.getProperty("version", "unknown");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static final class VersionProvider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"Sluice " + version()};
    }
  }

  /** Reads durations as the configuration does ({@code 30s}, {@code 1m}) or ISO-8601. */
  static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      return dev.sluice.component.GoDuration.parse(value);
    }
  }
}
