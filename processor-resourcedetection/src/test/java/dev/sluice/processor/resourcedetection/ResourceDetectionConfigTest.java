package dev.sluice.processor.resourcedetection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.ConfigBinder;
import dev.sluice.config.ConfigException;
import dev.sluice.pdata.Signal;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResourceDetectionConfigTest {
  private static ResourceDetectionConfig bind(String yaml) throws ConfigException {
    return new ConfigBinder()
        .bind(yaml, "config.yaml", ResourceDetectionConfig.class, ResourceDetectionConfig.DEFAULT);
  }

  @Test
  void defaultsAreTheGoCollectors() throws Exception {
    ResourceDetectionConfig config = bind("{}");
    assertThat(config.detectors()).containsExactly("env");
    assertThat(config.override()).isTrue();
    assertThat(config.timeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(config.system().sources()).containsExactly("dns", "os");
    assertThat(config.system().enabled(SystemAttribute.HOST_NAME)).isTrue();
    assertThat(config.system().enabled(SystemAttribute.OS_TYPE)).isTrue();
    assertThat(config.system().enabled(SystemAttribute.HOST_ARCH)).isFalse();
    assertThat(config.system().enabled(SystemAttribute.HOST_ID)).isFalse();
    assertThat(config.env().allowList()).isNull();
  }

  @Test
  void bindsEveryKey() throws Exception {
    ResourceDetectionConfig config =
        bind(
            """
            detectors: [env, " system "]
            override: false
            timeout: 2s
            refresh_interval: 0
            env:
              allow_list: [service.name]
            system:
              hostname_sources: [os, lookup]
              resource_attributes:
                host.name: {enabled: false}
                host.id: {enabled: true}
                host.arch: {}
                os.description: {enabled: false}
            """);
    assertThat(config.detectorNames()).containsExactly("env", "system");
    assertThat(config.override()).isFalse();
    assertThat(config.timeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(config.env().allowList()).containsExactly("service.name");
    assertThat(config.system().sources()).containsExactly("os", "lookup");
    assertThat(config.system().enabled(SystemAttribute.HOST_NAME)).isFalse();
    assertThat(config.system().enabled(SystemAttribute.HOST_ID)).isTrue();
    assertThat(config.system().enabled(SystemAttribute.HOST_ARCH)).as("{} keeps default").isFalse();
    assertThat(config.system().enabled(SystemAttribute.OS_TYPE)).isTrue();
  }

  @Test
  void emptyHostnameSourcesMeanTheDefault() throws Exception {
    assertThat(bind("system: {hostname_sources: []}").system().sources())
        .containsExactly("dns", "os");
  }

  @Test
  void refusesDetectorsThisBuildLacksNamingTheSupportedOnes() {
    assertThatThrownBy(() -> bind("detectors: [env, ec2, gcp]"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(
            "detectors[1]: unsupported detector \"ec2\"; this build has: env, system")
        .hasMessageContaining(
            "detectors[2]: unsupported detector \"gcp\"; this build has: env, system");
  }

  @Test
  void refusesAnEmptyDetectorList() {
    assertThatThrownBy(() -> bind("detectors: []"))
        .hasMessageContaining(
            "detectors: must list at least one detector; this build has: env, system");
  }

  @Test
  void refusesOtherDetectorsSectionsListingTheKeysItTakes() {
    assertThatThrownBy(() -> bind("ec2: {tags: [a]}"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("unknown key \"ec2\"")
        .hasMessageContaining("detectors, override, timeout, refresh_interval, env, system");
    assertThatThrownBy(() -> bind("endpoint: http://metadata")).hasMessageContaining("endpoint");
  }

  @Test
  void refusesHostnameSourcesClearly() {
    assertThatThrownBy(() -> bind("system: {hostname_sources: [dns, cname, bogus]}"))
        .hasMessageContaining(
            "system.hostname_sources[1]: hostname source \"cname\" is not supported by this"
                + " build; use dns, os, lookup")
        .hasMessageContaining(
            "system.hostname_sources[2]: hostname_sources contains invalid value \"bogus\";"
                + " valid values: dns, os, lookup");
  }

  @Test
  void refusesAttributesItCannotSetUnlessDisabled() throws Exception {
    assertThatThrownBy(
            () -> bind("system: {resource_attributes: {host.cpu.family: {enabled: true}}}"))
        .hasMessageContaining(
            "host.cpu.family is not supported by this build; only enabled: false is accepted");
    assertThatThrownBy(() -> bind("system: {resource_attributes: {host.nmae: {enabled: true}}}"))
        .hasMessageContaining(
            "unknown resource attribute \"host.nmae\"; this build sets host.name, os.type,"
                + " host.arch, host.id");
    assertThat(
            bind("system: {resource_attributes: {host.cpu.family: {enabled: false}}}")
                .system()
                .resourceAttributes())
        .containsKey("host.cpu.family");
  }

  @Test
  void refusesNonPositiveTimeoutAndPeriodicRefresh() {
    assertThatThrownBy(() -> bind("timeout: 0s")).hasMessageContaining("timeout: must be positive");
    assertThatThrownBy(() -> bind("refresh_interval: 1m"))
        .hasMessageContaining("refresh_interval: periodic re-detection is not supported");
  }

  @Test
  void reportsEveryProblemAtOnce() {
    assertThatThrownBy(
            () -> bind("detectors: [docker]\ntimeout: -1s\nsystem: {hostname_sources: [cname]}"))
        .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.problems()).hasSize(3));
  }

  @Test
  void factoryRefusesAnUnsupportedDetectorMadeInCode() {
    ResourceDetectionConfig config =
        new ResourceDetectionConfig(
            List.of("ec2"),
            true,
            Duration.ofSeconds(1),
            Duration.ZERO,
            EnvDetectorConfig.DEFAULT,
            SystemDetectorConfig.DEFAULT);
    assertThatThrownBy(
            () ->
                new ResourceDetectionProcessorFactory(new TestEnvironment())
                    .create(ProcessorRuns.settings(), config, Signal.TRACES, b -> null))
        .hasMessageContaining("unsupported detector \"ec2\"");
  }
}
