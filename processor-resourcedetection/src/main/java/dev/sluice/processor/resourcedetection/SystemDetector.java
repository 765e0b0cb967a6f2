package dev.sluice.processor.resourcedetection;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The {@code system} detector: {@code host.name} from the first hostname source that answers,
 * {@code os.type}, and when enabled {@code host.arch} and {@code host.id}, with the Go detector's
 * values ({@code linux}, {@code amd64}, ...). Fails (transiently, so detection retries) when no
 * hostname source answers; a host id that cannot be read is logged and left out, as in Go.
 */
final class SystemDetector implements Detector {
  /** The semantic conventions version the Go detector's attributes follow. */
  static final String SCHEMA_URL = "https://opentelemetry.io/schemas/1.6.1";

  private final SystemDetectorConfig config;
  private final DetectionEnvironment environment;
  private final Logger logger;

  SystemDetector(SystemDetectorConfig config, DetectionEnvironment environment, Logger logger) {
    this.config = config;
    this.environment = environment;
    this.logger = logger;
  }

  @Override
  public String name() {
    return ResourceDetectionConfig.SYSTEM;
  }

  @Override
  public Detected detect() throws DetectionException {
    String hostname = hostname();
    Map<String, String> attributes = new LinkedHashMap<>();
    if (config.enabled(SystemAttribute.HOST_NAME)) {
      attributes.put(SystemAttribute.HOST_NAME.attributeName(), hostname);
    }
    if (config.enabled(SystemAttribute.OS_TYPE)) {
      attributes.put(SystemAttribute.OS_TYPE.attributeName(), osType(environment.osName()));
    }
    if (config.enabled(SystemAttribute.HOST_ID)) {
      try {
        attributes.put(SystemAttribute.HOST_ID.attributeName(), environment.machineId());
      } catch (IOException e) {
        logger.log(Level.WARNING, "failed to get host ID: " + e.getMessage());
      }
    }
    if (config.enabled(SystemAttribute.HOST_ARCH)) {
      attributes.put(SystemAttribute.HOST_ARCH.attributeName(), hostArch(environment.osArch()));
    }
    return new Detected(attributes, SCHEMA_URL);
  }

  private String hostname() throws DetectionException {
    List<String> failures = new ArrayList<>();
    for (String source : config.sources()) {
      try {
        String name = lookup(source);
        if (name != null && !name.isBlank()) {
          return name;
        }
        failures.add(source + ": no name");
      } catch (IOException | RuntimeException e) {
        failures.add(source + ": " + e);
      }
    }
    throw new DetectionException(
        "all hostname sources failed to get hostname (" + String.join("; ", failures) + ")", false);
  }

  private String lookup(String source) throws IOException {
    return switch (source) {
      case SystemDetectorConfig.DNS -> environment.fqdn();
      case SystemDetectorConfig.OS -> environment.osHostname();
      case SystemDetectorConfig.LOOKUP -> environment.reverseLookupHostname();
      default -> throw new IllegalArgumentException("unknown hostname source " + source);
    };
  }

  /** {@code os.type} as Go's {@code runtime.GOOS} names the system. */
  static String osType(String osName) {
    String name = osName.toLowerCase(Locale.ROOT);
    if (name.startsWith("windows")) {
      return "windows";
    }
    if (name.startsWith("mac") || name.startsWith("darwin")) {
      return "darwin";
    }
    if (name.equals("sunos") || name.equals("solaris")) {
      return "solaris";
    }
    if (name.equals("hp-ux")) {
      return "hpux";
    }
    if (name.equals("z/os")) {
      return "z_os";
    }
    // linux, freebsd, openbsd, netbsd, aix are spelled as Go spells them.
    return name.replace(' ', '_');
  }

  /** {@code host.arch} as the Go detector maps {@code runtime.GOARCH}. */
  static String hostArch(String osArch) {
    return switch (osArch.toLowerCase(Locale.ROOT)) {
      case "amd64", "x86_64" -> "amd64";
      case "aarch64", "arm64" -> "arm64";
      case "x86", "i386", "i486", "i586", "i686" -> "x86";
      case "arm", "arm32" -> "arm32";
      case "ppc", "ppc32" -> "ppc32";
      case "ppc64", "ppc64le" -> "ppc64";
      case "s390x" -> "s390x";
      case "ia64" -> "ia64";
      default -> osArch.toLowerCase(Locale.ROOT);
    };
  }
}
