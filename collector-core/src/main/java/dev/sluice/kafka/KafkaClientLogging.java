package dev.sluice.kafka;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The Kafka client's logs, which reach java.util.logging through SLF4J: every client it makes logs
 * its whole configuration at INFO, so its loggers start at WARNING, unless the logging
 * configuration names a level for {@code org.apache.kafka} itself.
 */
public final class KafkaClientLogging {
  private static final String CLIENT_LOGGERS = "org.apache.kafka";

  /** Held: java.util.logging keeps loggers only weakly, and a collected one forgets its level. */
  private static final Logger LOGGER = Logger.getLogger(CLIENT_LOGGERS);

  static {
    if (LOGGER.getLevel() == null) {
      LOGGER.setLevel(Level.WARNING);
    }
  }

  private KafkaClientLogging() {}

  /** Applies the default level; call before making a client. */
  public static void init() {
    // The static initializer did the work.
  }
}
