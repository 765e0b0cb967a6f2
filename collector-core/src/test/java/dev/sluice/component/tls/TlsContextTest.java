package dev.sluice.component.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.component.TlsServerConfig;
import dev.sluice.testkit.TestCertificates;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.logging.Logger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link TlsMaterial#context}: the one way every server and client turns its material into a
 * transport's TLS context, and what a failure becomes.
 */
class TlsContextTest {
  private static final Logger LOGGER = Logger.getLogger(TlsContextTest.class.getName());
  private static final String PATH = "receivers.otlp.protocols.grpc.tls";
  private static final String ECDSA_AES_256 = "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384";
  private static TestCertificates certs;

  @BeforeAll
  static void generateCertificates() {
    certs = TestCertificates.shared();
  }

  private static TlsMaterial reloadingServer(List<String> cipherSuites) throws Exception {
    return TlsLoader.server(
        new TlsServerConfig(
            certs.serverCert().toString(),
            certs.serverKey().toString(),
            "",
            "1.2",
            "",
            cipherSuites,
            Duration.ofHours(1),
            false),
        PATH,
        LOGGER);
  }

  @Test
  void buildsAJdkContextFromTheMaterial() throws Exception {
    TlsMaterial tls = reloadingServer(List.of(ECDSA_AES_256));

    SSLContext context =
        tls.context(
            material -> {
              SSLContext jdk = SSLContext.getInstance("TLS");
              jdk.init(material.keyManagers().getKeyManagers(), null, null);
              return jdk;
            },
            jdk -> Arrays.asList(jdk.getSupportedSSLParameters().getCipherSuites()));

    assertThat(context.createSSLEngine().getUseClientMode()).isFalse();
    assertThat(tls.reloading()).isTrue();
    tls.close();
    assertThat(tls.reloading()).isFalse();
  }

  @Test
  void aContextThatCannotBeBuiltIsAConfigErrorNamingTheSectionAndStopsTheReloads()
      throws Exception {
    TlsMaterial tls = reloadingServer(List.of());

    assertThatThrownBy(
            () ->
                tls.context(
                    material -> {
                      throw new SSLException("no cipher suites in common with the provider");
                    },
                    context -> List.of()))
        .isInstanceOf(TlsConfigException.class)
        .hasMessage(PATH + ": cannot set up TLS: no cipher suites in common with the provider")
        .hasNoCause();
    assertThat(tls.reloading()).isFalse();
  }

  @Test
  void aContextThatDropsAConfiguredSuiteIsAConfigErrorAndStopsTheReloads() throws Exception {
    TlsMaterial tls = reloadingServer(List.of(ECDSA_AES_256));

    assertThatThrownBy(() -> tls.context(material -> "context", context -> List.of("OTHER")))
        .isInstanceOf(TlsConfigException.class)
        .hasMessage(
            PATH
                + ".cipher_suites: "
                + ECDSA_AES_256
                + " is not supported by this transport's TLS provider; it enables OTHER");
    assertThat(tls.reloading()).isFalse();
  }
}
