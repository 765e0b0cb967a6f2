package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code sluice validate} on auth settings: references checked and located, secrets never shown.
 */
class AuthConfigValidationTest {
  private static final String TOKEN = "Sup3rSecretT0ken";
  private static final String PASSWORD = "Pa55w0rdNeverShown";

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @TempDir Path dir;

  private int validate(String... lines) throws Exception {
    Path config = dir.resolve("sluice.yaml");
    Files.writeString(config, String.join("\n", lines) + "\n");
    CommandLine commandLine = Main.commandLine();
    commandLine.setOut(new PrintWriter(out));
    commandLine.setErr(new PrintWriter(err));
    return commandLine.execute("validate", "--config", config.toString());
  }

  @Test
  void referencesMustNameAConfiguredListedAuthenticatorOfTheRightSide() throws Exception {
    int code =
        validate(
            "extensions:",
            "  health_check:",
            "  bearertokenauth/unlisted:",
            "    token: abc",
            "  basicauth/client:",
            "    client_auth:",
            "      username: agent",
            "      password: pw",
            "  basicauth/server:",
            "    htpasswd:",
            "      inline: 'agent:pw'",
            "receivers:",
            "  otlp:",
            "    protocols:",
            "      grpc:",
            "        auth:",
            "          authenticator: bearertokenauth/missing",
            "      http:",
            "        auth:",
            "          authenticator: basicauth/client",
            "  otlp/2:",
            "    protocols:",
            "      grpc:",
            "        endpoint: 127.0.0.1:0",
            "        auth:",
            "          authenticator: health_check",
            "exporters:",
            "  otlp:",
            "    endpoint: example.com:4317",
            "    auth:",
            "      authenticator: bearertokenauth/unlisted",
            "  otlphttp:",
            "    endpoint: https://example.com",
            "    auth:",
            "      authenticator: basicauth/server",
            "service:",
            "  extensions: [health_check, basicauth/client, basicauth/server]",
            "  pipelines:",
            "    traces:",
            "      receivers: [otlp, otlp/2]",
            "      exporters: [otlp, otlphttp]");

    assertThat(code).isEqualTo(2);
    assertThat(err.toString())
        .contains(
            ":17:11: receivers.otlp.protocols.grpc.auth.authenticator: references extension"
                + " \"bearertokenauth/missing\" which is not configured")
        .contains(
            ":20:11: receivers.otlp.protocols.http.auth.authenticator: extension"
                + " \"basicauth/client\" is not configured as a server authenticator")
        .contains(
            ":26:11: receivers.otlp/2.protocols.grpc.auth.authenticator: extension \"health_check\""
                + " is not an authenticator")
        .contains(
            ":31:7: exporters.otlp.auth.authenticator: references extension"
                + " \"bearertokenauth/unlisted\" which is not listed in service.extensions")
        .contains(
            ":35:7: exporters.otlphttp.auth.authenticator: extension \"basicauth/server\" is not"
                + " configured as a client authenticator");
  }

  @Test
  void anAuthSectionNeedsAnAuthenticator() throws Exception {
    int code =
        validate(
            "receivers:",
            "  otlp:",
            "    protocols:",
            "      http:",
            "        auth:",
            "exporters:",
            "  debug:",
            "service:",
            "  pipelines:",
            "    logs:",
            "      receivers: [otlp]",
            "      exporters: [debug]");

    assertThat(code).isEqualTo(2);
    assertThat(err.toString())
        .contains(
            ":5:9: receivers.otlp.protocols.http.auth.authenticator: is required: the id of an"
                + " authenticator extension");
  }

  @Test
  void aValidAuthConfigurationPasses() throws Exception {
    int code =
        validate(
            "extensions:",
            "  bearertokenauth:",
            "    token: abc",
            "receivers:",
            "  otlp:",
            "    protocols:",
            "      grpc:",
            "        auth:",
            "          authenticator: bearertokenauth",
            "exporters:",
            "  otlp:",
            "    endpoint: example.com:4317",
            "    auth:",
            "      authenticator: bearertokenauth",
            "service:",
            "  extensions: [bearertokenauth]",
            "  pipelines:",
            "    traces:",
            "      receivers: [otlp]",
            "      exporters: [otlp]");

    assertThat(err.toString()).isEmpty();
    assertThat(code).isZero();
  }

  @Test
  void validateNeverPrintsATokenOrPassword() throws Exception {
    Path tokenFile = dir.resolve("token");
    Files.writeString(tokenFile, "two words " + TOKEN + "\n");
    int code =
        validate(
            "extensions:",
            "  bearertokenauth/spaced:",
            "    token: 'Bearer " + TOKEN + "'",
            "  bearertokenauth/both:",
            "    token: " + TOKEN,
            "    tokens: [" + TOKEN + "2]",
            "  bearertokenauth/file:",
            "    filename: " + tokenFile,
            "  bearertokenauth/typo:",
            "    toekn: " + TOKEN,
            "  bearertokenauth/list:",
            "    token: [" + TOKEN + "]",
            "  basicauth/server:",
            "    htpasswd:",
            "      inline: |",
            "        alice:$y$j9T$salt$" + PASSWORD,
            "        bob " + PASSWORD,
            "        carol:{CRYPT}" + PASSWORD,
            "  basicauth/client:",
            "    client_auth:",
            "      username: 'user:" + PASSWORD + "'",
            "      password: \"" + PASSWORD + "\\n\"",
            "  basicauth/both:",
            "    htpasswd:",
            "      inline: 'dave:" + PASSWORD + "'",
            "    client_auth:",
            "      username: dave",
            "      password: " + PASSWORD,
            "receivers:",
            "  otlp:",
            "    protocols:",
            "      grpc:",
            "        auth:",
            "          authenticator: bearertokenauth/spaced",
            "exporters:",
            "  otlp:",
            "    endpoint: example.com:4317",
            "service:",
            "  extensions: [bearertokenauth/spaced, basicauth/server]",
            "  pipelines:",
            "    traces:",
            "      receivers: [otlp]",
            "      exporters: [otlp]");

    assertThat(code).isEqualTo(2);
    String printed = out + "\n" + err;
    // Every section had its problem reported...
    assertThat(printed)
        .contains("extensions.bearertokenauth/spaced.token:")
        .contains("extensions.bearertokenauth/both:")
        .contains("extensions.bearertokenauth/file.filename:")
        .contains("extensions.bearertokenauth/typo.toekn:")
        .contains("extensions.bearertokenauth/list.token:")
        .contains("extensions.basicauth/server.htpasswd.inline: line 1:")
        .contains("extensions.basicauth/server.htpasswd.inline: line 2:")
        .contains("extensions.basicauth/server.htpasswd.inline: line 3:")
        .contains("extensions.basicauth/client.client_auth.username:")
        .contains("extensions.basicauth/client.client_auth.password:")
        .contains("extensions.basicauth/both:");
    // ...and no secret appears in any of them.
    assertThat(printed).doesNotContain(TOKEN).doesNotContain(PASSWORD);
  }
}
