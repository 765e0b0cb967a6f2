package dev.sluice.processor.resourcedetection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.processor.resourcedetection.Detector.Detected;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

class SystemDetectorTest {
  private final TestEnvironment environment = new TestEnvironment();

  private Detected detect(List<String> sources, Map<String, ResourceAttributeConfig> attributes)
      throws DetectionException {
    return new SystemDetector(
            new SystemDetectorConfig(sources, attributes),
            environment,
            Logger.getLogger(SystemDetectorTest.class.getName()))
        .detect();
  }

  private static Map<String, ResourceAttributeConfig> enabled(String... names) {
    java.util.LinkedHashMap<String, ResourceAttributeConfig> map = new java.util.LinkedHashMap<>();
    for (String name : names) {
      map.put(name, new ResourceAttributeConfig(true));
    }
    return map;
  }

  @Test
  void setsHostNameFromDnsAndOsTypeByDefaultWithTheSchemaUrl() throws Exception {
    Detected detected = detect(List.of(), Map.of());
    assertThat(detected.attributes())
        .containsExactly(
            Map.entry("host.name", "host-1.example.com"), Map.entry("os.type", "linux"));
    assertThat(detected.schemaUrl()).isEqualTo("https://opentelemetry.io/schemas/1.6.1");
  }

  @Test
  void triesHostnameSourcesInOrderUntilOneAnswers() throws Exception {
    environment.fqdn = null;
    assertThat(detect(List.of("dns", "os"), Map.of()).attributes())
        .containsEntry("host.name", "host-1");
    environment.osHostname = null;
    assertThat(detect(List.of("dns", "os", "lookup"), Map.of()).attributes())
        .containsEntry("host.name", "host-1.reverse.example.com");
    environment.osHostname = "host-1";
    assertThat(detect(List.of("os", "dns"), Map.of()).attributes())
        .containsEntry("host.name", "host-1");
  }

  @Test
  void failsTransientlyNamingEachSourceWhenNoneAnswers() {
    environment.fqdn = null;
    environment.osHostname = "  ";
    assertThatThrownBy(() -> detect(List.of("dns", "os"), Map.of()))
        .isInstanceOfSatisfying(DetectionException.class, e -> assertThat(e.permanent()).isFalse())
        .hasMessage(
            "all hostname sources failed to get hostname (dns: java.io.IOException: no fqdn;"
                + " os: no name)");
  }

  @Test
  void hostNameCanBeDisabledButIsStillRequiredAsInGo() throws Exception {
    Map<String, ResourceAttributeConfig> off =
        Map.of("host.name", new ResourceAttributeConfig(false));
    assertThat(detect(List.of(), off).attributes()).containsOnlyKeys("os.type");
    environment.fqdn = null;
    environment.osHostname = null;
    assertThatThrownBy(() -> detect(List.of(), off)).isInstanceOf(DetectionException.class);
  }

  @Test
  void setsHostIdAndArchWhenEnabled() throws Exception {
    environment.osArch = "aarch64";
    assertThat(detect(List.of(), enabled("host.id", "host.arch")).attributes())
        .containsExactly(
            Map.entry("host.name", "host-1.example.com"),
            Map.entry("os.type", "linux"),
            Map.entry("host.id", "0123456789abcdef0123456789abcdef"),
            Map.entry("host.arch", "arm64"));
  }

  @Test
  void leavesOutAHostIdThatCannotBeRead() throws Exception {
    environment.machineId = null;
    assertThat(detect(List.of(), enabled("host.id")).attributes()).doesNotContainKey("host.id");
  }

  @Test
  void namesSystemsAndArchitecturesAsGoDoes() {
    assertThat(SystemDetector.osType("Linux")).isEqualTo("linux");
    assertThat(SystemDetector.osType("Mac OS X")).isEqualTo("darwin");
    assertThat(SystemDetector.osType("Windows Server 2022")).isEqualTo("windows");
    assertThat(SystemDetector.osType("FreeBSD")).isEqualTo("freebsd");
    assertThat(SystemDetector.osType("SunOS")).isEqualTo("solaris");
    assertThat(SystemDetector.osType("z/OS")).isEqualTo("z_os");
    assertThat(SystemDetector.hostArch("amd64")).isEqualTo("amd64");
    assertThat(SystemDetector.hostArch("x86_64")).isEqualTo("amd64");
    assertThat(SystemDetector.hostArch("i686")).isEqualTo("x86");
    assertThat(SystemDetector.hostArch("arm")).isEqualTo("arm32");
    assertThat(SystemDetector.hostArch("ppc64le")).isEqualTo("ppc64");
    assertThat(SystemDetector.hostArch("riscv64")).isEqualTo("riscv64");
  }
}
