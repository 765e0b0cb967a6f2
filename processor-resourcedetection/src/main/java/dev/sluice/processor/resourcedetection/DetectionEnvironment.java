package dev.sluice.processor.resourcedetection;

import java.io.IOException;

/**
 * The machine as the detectors see it: environment variables, host names and system facts. {@link
 * #host()} is the real one; tests and benchmarks give their own, so that what is detected is known.
 * Lookups may block (name resolution); detection bounds them by its timeout.
 */
public interface DetectionEnvironment {
  /** The environment variable's value, or null when it is not set. */
  String variable(String name);

  /** The host's name as the kernel has it (Go's {@code os.Hostname}). */
  String osHostname() throws IOException;

  /** The host's fully qualified domain name, from the resolver ({@code /etc/hosts}, DNS). */
  String fqdn() throws IOException;

  /** The name a reverse lookup of the host's own addresses gives. */
  String reverseLookupHostname() throws IOException;

  /** The {@code os.name} system property: {@code Linux}, {@code Mac OS X}, {@code Windows 11}. */
  String osName();

  /** The {@code os.arch} system property: {@code amd64}, {@code aarch64}. */
  String osArch();

  /** The machine id ({@code /etc/machine-id} on Linux). */
  String machineId() throws IOException;

  /** The machine this JVM runs on. */
  static DetectionEnvironment host() {
    return HostEnvironment.INSTANCE;
  }
}
