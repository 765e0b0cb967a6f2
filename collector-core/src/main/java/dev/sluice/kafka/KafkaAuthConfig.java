package dev.sluice.kafka;

import dev.sluice.component.OptionalSection;

/**
 * Authentication to the brokers ({@code auth}): SASL when {@code sasl} is present. The Collector's
 * {@code kerberos}, {@code plain_text} (deprecated) and {@code tls} (deprecated, use the top-level
 * {@code tls}) are not keys here, so a file that uses them is refused at the key.
 */
public record KafkaAuthConfig(@OptionalSection SaslConfig sasl) {
  public static final KafkaAuthConfig DEFAULT = new KafkaAuthConfig(null);
}
