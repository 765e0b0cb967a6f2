package dev.sluice.processor.resourcedetection;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The real machine: {@link System#getenv}, the resolver, system properties and files. */
final class HostEnvironment implements DetectionEnvironment {
  static final HostEnvironment INSTANCE = new HostEnvironment();

  /** Where Linux keeps the host name {@code gethostname} returns (Go's os.Hostname reads it). */
  private static final Path KERNEL_HOSTNAME = Path.of("/proc/sys/kernel/hostname");

  /** Where the machine id is, in the order the OpenTelemetry SDKs read them. */
  private static final List<Path> MACHINE_ID_FILES =
      List.of(Path.of("/etc/machine-id"), Path.of("/var/lib/dbus/machine-id"));

  private HostEnvironment() {}

  @Override
  public String variable(String name) {
    return System.getenv(name);
  }

  @Override
  public String osHostname() throws IOException {
    if (Files.isReadable(KERNEL_HOSTNAME)) {
      String name = Files.readString(KERNEL_HOSTNAME, StandardCharsets.UTF_8).strip();
      if (!name.isEmpty()) {
        return name;
      }
    }
    // Elsewhere the JDK asks gethostname too, but then resolves the name, which may fail.
    return InetAddress.getLocalHost().getHostName();
  }

  @Override
  public String fqdn() throws IOException {
    InetAddress local = InetAddress.getByName(osHostname());
    String name = local.getCanonicalHostName();
    // The JDK answers with the address itself when no name is found for it.
    if (name.equals(local.getHostAddress())) {
      throw new IOException("no fully qualified name found for " + local.getHostAddress());
    }
    return trimDot(name);
  }

  @Override
  public String reverseLookupHostname() throws IOException {
    String hostname = osHostname();
    for (InetAddress address : InetAddress.getAllByName(hostname)) {
      String name = address.getCanonicalHostName();
      if (!name.equals(address.getHostAddress())) {
        return trimDot(name);
      }
    }
    throw new IOException("no reverse lookup answer for the addresses of " + hostname);
  }

  @Override
  public String osName() {
    return System.getProperty("os.name", "");
  }

  @Override
  public String osArch() {
    return System.getProperty("os.arch", "");
  }

  @Override
  public String machineId() throws IOException {
    for (Path file : MACHINE_ID_FILES) {
      if (Files.isReadable(file)) {
        String id = Files.readString(file, StandardCharsets.UTF_8).strip();
        if (!id.isEmpty()) {
          return id;
        }
      }
    }
    throw new IOException("no machine id in " + MACHINE_ID_FILES);
  }

  private static String trimDot(String name) {
    return name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
  }
}
