package dev.sluice.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ConfigProblems;
import dev.sluice.component.TlsClientConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaConnectionTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  @TempDir Path directory;

  @Test
  void defaultsArePlaintextToLocalhostAsOtelCollector() throws Exception {
    Properties properties = connection(null, null).clientProperties(TIMEOUT);

    assertThat(properties)
        .containsEntry("bootstrap.servers", "localhost:9092")
        .containsEntry("client.id", "otel-collector")
        .containsEntry("security.protocol", "PLAINTEXT")
        .containsEntry("request.timeout.ms", "5000")
        .doesNotContainKey("sasl.mechanism");
    assertAcceptedByTheClient(properties);
  }

  @Test
  void scramOverPlaintextBecomesSaslPlaintextWithAnEscapedJaasLine() throws Exception {
    SaslConfig sasl = new SaslConfig("SCRAM-SHA-512", "svc", "pa\"ss\\word", 0);
    Properties properties = connection(null, new KafkaAuthConfig(sasl)).clientProperties(TIMEOUT);

    assertThat(properties)
        .containsEntry("security.protocol", "SASL_PLAINTEXT")
        .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
        .containsEntry(
            "sasl.jaas.config",
            "org.apache.kafka.common.security.scram.ScramLoginModule required"
                + " username=\"svc\" password=\"pa\\\"ss\\\\word\";");
    assertAcceptedByTheClient(properties);
  }

  @Test
  void plainOverTlsBecomesSaslSslWithThePlainModule() throws Exception {
    SaslConfig sasl = new SaslConfig("PLAIN", "u", "p", 0);
    Properties properties =
        connection(TlsClientConfig.DEFAULT, new KafkaAuthConfig(sasl)).clientProperties(TIMEOUT);

    assertThat(properties)
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry(
            "sasl.jaas.config",
            "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\""
                + " password=\"p\";");
  }

  @Test
  void tlsFilesBecomePemStoresAndVersionsBecomeProtocols() throws Exception {
    Path ca = Files.writeString(directory.resolve("ca.pem"), "-----BEGIN CERTIFICATE-----\n");
    Path cert = Files.writeString(directory.resolve("cert.pem"), "CERT CHAIN");
    Path key = Files.writeString(directory.resolve("key.pem"), "PKCS8 KEY");
    TlsClientConfig tls =
        new TlsClientConfig(
            false,
            ca.toString(),
            cert.toString(),
            key.toString(),
            false,
            "",
            "1.2",
            "",
            List.of("TLS_AES_128_GCM_SHA256"),
            Duration.ZERO);

    Properties properties = connection(tls, null).clientProperties(TIMEOUT);

    assertThat(properties)
        .containsEntry("security.protocol", "SSL")
        .containsEntry("ssl.enabled.protocols", "TLSv1.2,TLSv1.3")
        .containsEntry("ssl.protocol", "TLSv1.3")
        .containsEntry("ssl.cipher.suites", "TLS_AES_128_GCM_SHA256")
        .containsEntry("ssl.truststore.type", "PEM")
        .containsEntry("ssl.truststore.location", ca.toString())
        .containsEntry("ssl.keystore.type", "PEM")
        .containsEntry("ssl.keystore.certificate.chain", "CERT CHAIN")
        .containsEntry("ssl.keystore.key", "PKCS8 KEY");
  }

  @Test
  void insecureTlsIsPlaintext() throws Exception {
    TlsClientConfig insecure = new TlsClientConfig(true, "", "", "", false, "");

    assertThat(connection(insecure, null).clientProperties(TIMEOUT))
        .containsEntry("security.protocol", "PLAINTEXT")
        .doesNotContainKey("ssl.enabled.protocols");
  }

  @Test
  void reportsEachUnusableConnectionKey() {
    TlsClientConfig tls =
        new TlsClientConfig(
            false, "", "", "", true, "kafka.internal", "1.2", "", List.of(), Duration.ofMinutes(1));
    KafkaConnection connection =
        new KafkaConnection(List.of("localhost:9092", "no-port"), "", "2.x", tls, null);
    ConfigProblems problems = new ConfigProblems();

    connection.validate(problems);

    assertThat(problems.all())
        .extracting(ConfigProblems.Problem::path)
        .containsExactly(
            "brokers[1]",
            "client_id",
            "protocol_version",
            "tls.insecure_skip_verify",
            "tls.server_name_override",
            "tls.reload_interval");
  }

  @Test
  void refusesMechanismsOutsidePlainAndScramNamingTheKey() {
    ConfigProblems problems = new ConfigProblems();
    new SaslConfig("AWS_MSK_IAM_OAUTHBEARER", "", "", 0).validate(problems.under("auth.sasl"));
    new SaslConfig("PLAIN", "", "", 2).validate(problems.under("other"));

    assertThat(problems.all())
        .extracting(ConfigProblems.Problem::path)
        .containsExactly(
            "auth.sasl.mechanism", "other.username", "other.password", "other.version");
    assertThat(problems.all().get(0).message()).contains("AWS_MSK_IAM_OAUTHBEARER");
  }

  @Test
  void printsThePasswordRedacted() {
    assertThat(new SaslConfig("PLAIN", "u", "hunter2", 0).toString())
        .doesNotContain("hunter2")
        .contains("[REDACTED]");
  }

  @Test
  void acceptsTheCollectorsProtocolVersions() {
    ConfigProblems problems = new ConfigProblems();
    for (String version : List.of("", "2.1.0", "3.7", "0.10.2.1")) {
      new KafkaConnection(List.of("b:9092"), "id", version, null, null).validate(problems);
    }
    assertThat(problems.all()).isEmpty();
  }

  private static KafkaConnection connection(TlsClientConfig tls, KafkaAuthConfig auth) {
    return new KafkaConnection(
        KafkaConnection.DEFAULT_BROKERS, KafkaConnection.DEFAULT_CLIENT_ID, "", tls, auth);
  }

  /** The Kafka client's own parsing of the properties: names and values it understands. */
  private static void assertAcceptedByTheClient(Properties properties) {
    Properties copy = new Properties();
    copy.putAll(properties);
    copy.put("key.serializer", ByteArraySerializer.class.getName());
    copy.put("value.serializer", ByteArraySerializer.class.getName());
    ProducerConfig parsed = new ProducerConfig(copy);
    assertThat(parsed.getString("security.protocol"))
        .isEqualTo(properties.getProperty("security.protocol"));
  }
}
