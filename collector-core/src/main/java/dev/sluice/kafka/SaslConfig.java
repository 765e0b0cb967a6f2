package dev.sluice.kafka;

import dev.sluice.component.ConfigProblems;
import dev.sluice.component.Secrets;
import dev.sluice.component.Validatable;
import java.util.List;

/**
 * SASL authentication ({@code auth.sasl}), with the OpenTelemetry Collector's keys: {@code PLAIN},
 * {@code SCRAM-SHA-256} or {@code SCRAM-SHA-512} with a username and a password. The Collector's
 * other mechanisms ({@code AWS_MSK_IAM_OAUTHBEARER}, {@code OIDCFILE}) are refused by name.
 *
 * @param mechanism the SASL mechanism, as Kafka names it
 * @param username the user
 * @param password the password; printed redacted
 * @param version the Collector's SASL handshake version (0 or 1); the Java client negotiates it
 *     with the broker, so it is checked for range and otherwise not used
 */
public record SaslConfig(String mechanism, String username, String password, int version)
    implements Validatable {
  public static final SaslConfig DEFAULT = new SaslConfig("", "", "", 0);

  static final String PLAIN = "PLAIN";
  static final String SCRAM_SHA_256 = "SCRAM-SHA-256";
  static final String SCRAM_SHA_512 = "SCRAM-SHA-512";
  static final List<String> MECHANISMS = List.of(PLAIN, SCRAM_SHA_256, SCRAM_SHA_512);

  @Override
  public void validate(ConfigProblems problems) {
    if (!MECHANISMS.contains(mechanism)) {
      problems.add(
          "mechanism",
          mechanism.isEmpty()
              ? "is required: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512"
              : "\""
                  + mechanism
                  + "\" is not supported by Sluice; use PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512");
      return;
    }
    if (username.isEmpty()) {
      problems.add("username", "is required for " + mechanism);
    }
    if (password.isEmpty()) {
      problems.add("password", "is required for " + mechanism);
    }
    if (version < 0 || version > 1) {
      problems.add("version", "must be 0 or 1, was " + version);
    }
  }

  @Override
  public String toString() {
    return "SaslConfig[mechanism="
        + mechanism
        + ", username="
        + username
        + ", password="
        + Secrets.redact(password)
        + ", version="
        + version
        + "]";
  }
}
