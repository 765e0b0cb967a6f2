package dev.sluice.collector;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code sluice} command line. */
@Command(
    name = "sluice",
    mixinStandardHelpOptions = true,
    versionProvider = Main.VersionProvider.class,
    description = "Sluice: an OTLP telemetry collector that stays on the wire.")
public final class Main implements Callable<Integer> {

  public static void main(String[] args) {
    System.exit(new CommandLine(new Main()).execute(args));
  }

  @Override
  public Integer call() {
    System.out.println("Sluice " + version());
    return 0;
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
}
