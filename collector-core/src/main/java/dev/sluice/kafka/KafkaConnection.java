package dev.sluice.kafka;

import dev.sluice.component.ConfigProblems;
import dev.sluice.component.TlsClientConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.regex.Pattern;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;

/**
 * How a Kafka client reaches the brokers, with the OpenTelemetry Collector's keys and defaults
 * ({@code configkafka.ClientConfig}), which sit at the top level of the exporter's and the
 * receiver's configuration: {@code brokers} ({@code [localhost:9092]}), {@code client_id} ({@code
 * otel-collector}), {@code protocol_version}, {@code tls} (plaintext unless present) and {@code
 * auth.sasl}. The owning configuration builds it from its keys and calls {@link #validate} from its
 * own.
 *
 * @param brokers the bootstrap servers, {@code host:port} each
 * @param clientId the client id the brokers see (quotas, ACLs, logs)
 * @param protocolVersion the Collector's assumed broker version, such as {@code 2.1.0}; checked for
 *     form only: the Java client asks each broker which API versions it speaks
 * @param tls TLS to the brokers when present, unless {@code insecure: true}; null for plaintext
 * @param auth SASL when {@code auth.sasl} is present
 */
public record KafkaConnection(
    List<String> brokers,
    String clientId,
    String protocolVersion,
    TlsClientConfig tls,
    KafkaAuthConfig auth) {
  public static final List<String> DEFAULT_BROKERS = List.of("localhost:9092");
  public static final String DEFAULT_CLIENT_ID = "otel-collector";

  private static final Pattern VERSION = Pattern.compile("\\d+\\.\\d+(\\.\\d+){0,2}");
  private static final Pattern HOST_PORT = Pattern.compile(".+:\\d{1,5}");
  private static final List<String> TLS_VERSION_ORDER = List.of("1.0", "1.1", "1.2", "1.3");
  private static final String PEM = "PEM";

  /** Reports the connection's problems under the owner's top-level keys. */
  public void validate(ConfigProblems problems) {
    if (brokers.isEmpty()) {
      problems.add("brokers", "must name at least one broker, such as localhost:9092");
    }
    for (int i = 0; i < brokers.size(); i++) {
      String broker = brokers.get(i);
      if (!HOST_PORT.matcher(broker).matches()) {
        problems.add("brokers[" + i + "]", "must be host:port, was \"" + broker + "\"");
      }
    }
    if (clientId.isEmpty()) {
      problems.add("client_id", "must not be empty");
    }
    if (!protocolVersion.isEmpty() && !VERSION.matcher(protocolVersion).matches()) {
      problems.add(
          "protocol_version",
          "must be a Kafka version such as 2.1.0, was \"" + protocolVersion + "\"");
    }
    if (tls != null && !tls.insecure()) {
      ConfigProblems at = problems.under("tls");
      if (tls.insecureSkipVerify()) {
        at.add(
            "insecure_skip_verify",
            "is not supported by the Kafka client: name the brokers' CA with ca_file instead");
      }
      if (!tls.serverNameOverride().isEmpty()) {
        at.add(
            "server_name_override",
            "is not supported by the Kafka client: it checks the name each broker advertises");
      }
      if (!tls.reloadInterval().isZero()) {
        at.add(
            "reload_interval",
            "is not supported by the Kafka client, which reads the files once at start");
      }
    }
  }

  /** Whether the connection uses TLS. */
  public boolean tlsEnabled() {
    return tls != null && !tls.insecure();
  }

  /**
   * The Kafka client properties for this connection. {@code requestTimeout} bounds each request to
   * a broker. Reads {@code cert_file} and {@code key_file} (the Kafka client takes PEM keys in
   * PKCS#8 form).
   *
   * @throws IOException when a TLS file cannot be read
   */
  public Properties clientProperties(Duration requestTimeout) throws IOException {
    Properties properties = new Properties();
    properties.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, String.join(",", brokers));
    properties.put(CommonClientConfigs.CLIENT_ID_CONFIG, clientId);
    properties.put(
        CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG,
        Integer.toString(Math.toIntExact(requestTimeout.toMillis())));
    SaslConfig sasl = auth == null ? null : auth.sasl();
    properties.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, securityProtocol(sasl != null));
    if (tlsEnabled()) {
      putTls(properties);
    }
    if (sasl != null) {
      properties.put(SaslConfigs.SASL_MECHANISM, sasl.mechanism());
      properties.put(SaslConfigs.SASL_JAAS_CONFIG, jaasConfig(sasl));
    }
    return properties;
  }

  private String securityProtocol(boolean sasl) {
    if (tlsEnabled()) {
      return sasl ? "SASL_SSL" : "SSL";
    }
    return sasl ? "SASL_PLAINTEXT" : "PLAINTEXT";
  }

  private void putTls(Properties properties) throws IOException {
    List<String> protocols = protocols(tls.minVersion(), tls.maxVersion());
    properties.put(SslConfigs.SSL_ENABLED_PROTOCOLS_CONFIG, String.join(",", protocols));
    properties.put(SslConfigs.SSL_PROTOCOL_CONFIG, protocols.get(protocols.size() - 1));
    if (!tls.cipherSuites().isEmpty()) {
      properties.put(SslConfigs.SSL_CIPHER_SUITES_CONFIG, String.join(",", tls.cipherSuites()));
    }
    if (!tls.caFile().isEmpty()) {
      properties.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, PEM);
      properties.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, tls.caFile());
    }
    if (!tls.certFile().isEmpty()) {
      properties.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, PEM);
      properties.put(SslConfigs.SSL_KEYSTORE_CERTIFICATE_CHAIN_CONFIG, read(tls.certFile()));
      properties.put(SslConfigs.SSL_KEYSTORE_KEY_CONFIG, read(tls.keyFile()));
    }
  }

  /** The JSSE names of the versions from {@code minVersion} to {@code maxVersion} (empty: 1.3). */
  static List<String> protocols(String minVersion, String maxVersion) {
    int from = TLS_VERSION_ORDER.indexOf(minVersion.isEmpty() ? "1.2" : minVersion);
    int to = TLS_VERSION_ORDER.indexOf(maxVersion.isEmpty() ? "1.3" : maxVersion);
    List<String> protocols = new ArrayList<>();
    for (int i = Math.max(0, from); i <= to; i++) {
      protocols.add("TLSv" + (i == 0 ? "1" : TLS_VERSION_ORDER.get(i)));
    }
    return protocols;
  }

  private static String jaasConfig(SaslConfig sasl) {
    String module =
        SaslConfig.PLAIN.equals(sasl.mechanism())
            ? "org.apache.kafka.common.security.plain.PlainLoginModule"
            : "org.apache.kafka.common.security.scram.ScramLoginModule";
    return module
        + " required username=\""
        + jaasQuoted(sasl.username())
        + "\" password=\""
        + jaasQuoted(sasl.password())
        + "\";";
  }

  /** A JAAS option value between double quotes: backslashes and quotes escaped. */
  static String jaasQuoted(String value) {
    return value.replace("\\", "\\\\").replace("\"", "\\\"");
  }

  private static String read(String file) throws IOException {
    return Files.readString(Path.of(file), StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return "KafkaConnection[brokers="
        + brokers
        + ", clientId="
        + clientId
        + ", tls="
        + (tlsEnabled() ? "on" : "off")
        + ", auth="
        + auth
        + "]";
  }
}
