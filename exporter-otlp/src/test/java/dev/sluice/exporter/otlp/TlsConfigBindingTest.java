package dev.sluice.exporter.otlp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.component.TlsClientConfig;
import dev.sluice.component.TlsServerConfig;
import dev.sluice.config.ConfigBinder;
import dev.sluice.config.ConfigException;
import dev.sluice.receiver.otlp.OtlpReceiverConfig;
import dev.sluice.receiver.otlp.OtlpReceiverFactory;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@code tls} keys {@code min_version}, {@code max_version}, {@code cipher_suites} and {@code
 * reload_interval}, bound from YAML as the collector binds them, for an exporter and a receiver,
 * and their problems reported where they are in the file.
 */
class TlsConfigBindingTest {
  private static OtlpExporterConfig exporter(String tls) throws ConfigException {
    return new ConfigBinder()
        .bind(
            "endpoint: collector.example.com:4317\ntls:\n" + tls,
            "otlp.yaml",
            OtlpExporterConfig.class,
            OtlpExporterConfig.DEFAULT);
  }

  @Test
  void defaultsAreTls12UpToTheNewestWithTheTransportsSuitesAndNoReload() throws ConfigException {
    TlsClientConfig tls = exporter("  ca_file: /etc/ca.pem\n").tls();

    assertThat(tls.minVersion()).isEqualTo("1.2");
    assertThat(tls.maxVersion()).isEmpty();
    assertThat(tls.cipherSuites()).isEmpty();
    assertThat(tls.reloadInterval()).isZero();
  }

  @Test
  void bindsEveryKeyOfAnExporter() throws ConfigException {
    TlsClientConfig tls =
        exporter(
                "  min_version: \"1.3\"\n"
                    + "  max_version: \"1.3\"\n"
                    + "  cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]\n"
                    + "  reload_interval: 30s\n")
            .tls();

    assertThat(tls.minVersion()).isEqualTo("1.3");
    assertThat(tls.maxVersion()).isEqualTo("1.3");
    assertThat(tls.cipherSuites()).containsExactly("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256");
    assertThat(tls.reloadInterval()).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void bindsEveryKeyOfAReceiver() throws ConfigException {
    OtlpReceiverConfig config =
        new ConfigBinder()
            .bind(
                "protocols:\n"
                    + "  http:\n"
                    + "    tls:\n"
                    + "      cert_file: /etc/cert.pem\n"
                    + "      key_file: /etc/key.pem\n"
                    + "      min_version: \"1.3\"\n"
                    + "      cipher_suites: [TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305]\n"
                    + "      reload_interval: 1m\n"
                    + "      client_ca_file_reload: true\n",
                "otlp.yaml",
                OtlpReceiverConfig.class,
                (OtlpReceiverConfig) new OtlpReceiverFactory().defaultConfig());
    TlsServerConfig tls = config.protocols().http().tls();

    assertThat(tls.minVersion()).isEqualTo("1.3");
    assertThat(tls.maxVersion()).isEmpty();
    assertThat(tls.cipherSuites()).containsExactly("TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305");
    assertThat(tls.reloadInterval()).isEqualTo(Duration.ofMinutes(1));
    assertThat(tls.clientCaFileReload()).isTrue();
  }

  @Test
  void refusesAMinVersionAboveTheMaxVersionWhereItIsWritten() {
    assertThatThrownBy(() -> exporter("  min_version: \"1.3\"\n  max_version: \"1.2\"\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "otlp.yaml:3:3: tls.min_version: min_version \"1.3\" is above max_version \"1.2\": no"
                + " TLS version is left");
  }

  @Test
  void refusesAnUnsupportedVersionString() {
    assertThatThrownBy(() -> exporter("  max_version: \"1.4\"\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "otlp.yaml:3:3: tls.max_version: unsupported TLS version \"1.4\"; use \"1.0\","
                + " \"1.1\", \"1.2\" or \"1.3\"");
  }

  @Test
  void refusesAnUnknownCipherSuiteListingTheSupportedOnes() {
    assertThatThrownBy(
            () ->
                exporter(
                    "  cipher_suites:\n"
                        + "    - TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256\n"
                        + "    - TLS_RSA_WITH_RC4_128_SHA\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(
            "otlp.yaml:5:7: tls.cipher_suites[1]: unknown cipher suite"
                + " \"TLS_RSA_WITH_RC4_128_SHA\"; supported: ")
        .hasMessageContaining("TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384");
  }

  @Test
  void refusesANegativeReloadInterval() {
    assertThatThrownBy(() -> exporter("  reload_interval: -1s\n"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("tls.reload_interval: must not be negative");
  }

  @Test
  void theCompatibilityConstructorsKeepTheDefaults() {
    assertThat(new TlsClientConfig(false, "ca", "", "", false, ""))
        .isEqualTo(
            new TlsClientConfig(
                false, "ca", "", "", false, "", "1.2", "", List.of(), Duration.ZERO));
    assertThat(new TlsServerConfig("c", "k", ""))
        .isEqualTo(new TlsServerConfig("c", "k", "", "1.2", "", List.of(), Duration.ZERO, false));
  }
}
