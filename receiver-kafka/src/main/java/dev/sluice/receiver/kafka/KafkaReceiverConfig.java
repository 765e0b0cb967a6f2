package dev.sluice.receiver.kafka;

import dev.sluice.component.ComponentConfig;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.OptionalSection;
import dev.sluice.component.TlsClientConfig;
import dev.sluice.component.Validatable;
import dev.sluice.kafka.KafkaAuthConfig;
import dev.sluice.kafka.KafkaConnection;
import dev.sluice.kafka.KafkaEncoding;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The {@code kafka} receiver's configuration, with the OpenTelemetry Collector's keys and defaults
 * ({@code receiver/kafkareceiver}); the bounds at the end are Sluice's own.
 *
 * @param brokers the bootstrap servers, {@code host:port}
 * @param clientId the consumer's {@code client.id}
 * @param protocolVersion accepted for compatibility: the Java client negotiates the protocol with
 *     each broker, so the value is only checked to look like a version
 * @param tls TLS to the brokers when present (even empty), unless {@code insecure: true}; null for
 *     plaintext
 * @param auth SASL when {@code auth.sasl} is present
 * @param traces the topics of spans ({@code otlp_spans} by default)
 * @param metrics the topics of metrics ({@code otlp_metrics} by default)
 * @param logs the topics of logs ({@code otlp_logs} by default)
 * @param encoding the encoding of a signal whose own {@code encoding} is empty: {@code otlp_proto}
 *     (the default) or {@code otlp_json}
 * @param groupId the consumer group
 * @param initialOffset where a group without a committed offset starts: {@code latest} (the
 *     default) or {@code earliest}
 * @param sessionTimeout how long the group waits for a silent member before rebalancing
 * @param heartbeatInterval how often the member tells the group it is alive
 * @param autocommit how offsets reach the broker (see {@link Autocommit})
 * @param messageMarking accepted for compatibility; Sluice marks a record only once the pipelines
 *     hold it or it can never succeed (see {@link MessageMarking})
 * @param headerExtraction record headers copied into resource attributes
 * @param minFetchSize the least bytes a fetch waits for ({@code fetch.min.bytes})
 * @param defaultFetchSize the most bytes fetched per partition at once ({@code
 *     max.partition.fetch.bytes})
 * @param maxFetchSize the most bytes one fetch returns ({@code fetch.max.bytes}); 0 (the
 *     Collector's default, no limit there) means {@link #DEFAULT_MAX_FETCH_BYTES} here, since what
 *     is fetched is held in memory
 * @param maxFetchWait how long a fetch waits for {@code min_fetch_size} bytes
 * @param maxPendingBytes Sluice's bound on the record bytes fetched and not yet accepted by the
 *     pipelines (waiting to be offered, offered without an answer, or refused and waiting to be
 *     offered again): at or above it, every partition is paused until answers bring it down
 * @param maxPollRecords the most records one poll returns ({@code max.poll.records})
 */
public record KafkaReceiverConfig(
    List<String> brokers,
    String clientId,
    String protocolVersion,
    @OptionalSection TlsClientConfig tls,
    KafkaAuthConfig auth,
    SignalTopics traces,
    SignalTopics metrics,
    SignalTopics logs,
    String encoding,
    String groupId,
    InitialOffset initialOffset,
    Duration sessionTimeout,
    Duration heartbeatInterval,
    Autocommit autocommit,
    MessageMarking messageMarking,
    HeaderExtraction headerExtraction,
    int minFetchSize,
    int defaultFetchSize,
    int maxFetchSize,
    Duration maxFetchWait,
    long maxPendingBytes,
    int maxPollRecords)
    implements ComponentConfig {
  static final String OTLP_PROTO = KafkaEncoding.OTLP_PROTO.configName();
  static final String OTLP_JSON = KafkaEncoding.OTLP_JSON.configName();

  /** What a {@code max_fetch_size} of 0 means: 8 MiB, far below the client's own 50 MiB. */
  static final int DEFAULT_MAX_FETCH_BYTES = 8 << 20;

  public static final KafkaReceiverConfig DEFAULT =
      new KafkaReceiverConfig(
          KafkaConnection.DEFAULT_BROKERS,
          KafkaConnection.DEFAULT_CLIENT_ID,
          "",
          null,
          KafkaAuthConfig.DEFAULT,
          new SignalTopics(List.of("otlp_spans"), List.of(), ""),
          new SignalTopics(List.of("otlp_metrics"), List.of(), ""),
          new SignalTopics(List.of("otlp_logs"), List.of(), ""),
          OTLP_PROTO,
          "otel-collector",
          InitialOffset.LATEST,
          Duration.ofSeconds(10),
          Duration.ofSeconds(3),
          new Autocommit(true, Duration.ofSeconds(1)),
          new MessageMarking(false, false, false),
          new HeaderExtraction(false, List.of()),
          1,
          1 << 20,
          0,
          Duration.ofMillis(250),
          32L << 20,
          500);

  /** Where a consumer group without a committed offset starts reading. */
  public enum InitialOffset {
    LATEST,
    EARLIEST
  }

  /**
   * One signal's topics.
   *
   * @param topics topic names; an entry starting with {@code ^} is a regular expression that a
   *     whole topic name must match
   * @param excludeTopics names (or, starting with {@code ^}, regular expressions) of topics not to
   *     read even though {@code topics} matches them
   * @param encoding this signal's encoding; empty takes the receiver's {@code encoding}
   */
  public record SignalTopics(List<String> topics, List<String> excludeTopics, String encoding)
      implements Validatable {
    @Override
    public void validate(ConfigProblems problems) {
      checkTopics(topics, "topics", problems);
      checkTopics(excludeTopics, "exclude_topics", problems);
      if (!encoding.isEmpty()) {
        KafkaEncoding.validate(encoding, "encoding", problems);
      }
    }
  }

  /**
   * How offsets reach the broker. Sluice never lets the client commit its read position on its own
   * (that would commit records the pipelines do not hold yet): it commits the offsets it marked.
   *
   * @param enable commit marked offsets every {@code interval} (and at every rebalance and stop);
   *     false commits them as soon as they advance
   * @param interval how often marked offsets are committed when {@code enable} is true
   */
  public record Autocommit(boolean enable, Duration interval) implements Validatable {
    @Override
    public void validate(ConfigProblems problems) {
      if (enable && interval.compareTo(Duration.ofMillis(1)) < 0) {
        problems.add("interval", "must be at least 1ms");
      }
    }
  }

  /**
   * The Collector's marking switches, accepted so that its configurations load. Sluice marks a
   * record only when the pipelines accepted it, when it is malformed and can never succeed, or when
   * it is set aside (the pipelines kept refusing it on its own while taking other records); a
   * record refused because the pipelines are full is offered again, never marked. So {@code after:
   * false} (the Collector marks before the pipeline has the data) behaves as {@code after: true};
   * {@code on_error: true} (the Collector marks records whose delivery failed) does not skip
   * refused records; and {@code on_permanent_error: false} (the Collector then stalls the partition
   * on a malformed record) still marks malformed ones, counted and logged.
   */
  public record MessageMarking(boolean after, boolean onError, boolean onPermanentError) {}

  /**
   * Record headers copied into every resource of the record's request.
   *
   * @param extractHeaders whether to copy them
   * @param headers the header names to copy; each becomes the string resource attribute {@code
   *     kafka.header.<name>}, replacing one the resource had
   */
  public record HeaderExtraction(boolean extractHeaders, List<String> headers) {}

  @Override
  public void validate(ConfigProblems problems) {
    connection().validate(problems);
    KafkaEncoding.validate(encoding, "encoding", problems);
    if (groupId.isEmpty()) {
      problems.add("group_id", "must not be empty");
    }
    if (sessionTimeout.compareTo(Duration.ofMillis(1)) < 0) {
      problems.add("session_timeout", "must be positive");
    }
    if (heartbeatInterval.compareTo(Duration.ofMillis(1)) < 0) {
      problems.add("heartbeat_interval", "must be positive");
    } else if (heartbeatInterval.compareTo(sessionTimeout) >= 0) {
      problems.add("heartbeat_interval", "must be shorter than session_timeout");
    }
    if (minFetchSize < 1) {
      problems.add("min_fetch_size", "must be at least 1");
    }
    if (defaultFetchSize < 1) {
      problems.add("default_fetch_size", "must be at least 1");
    }
    if (maxFetchSize < 0) {
      problems.add("max_fetch_size", "must not be negative (0 means the default)");
    }
    if (maxFetchWait.isNegative()) {
      problems.add("max_fetch_wait", "must not be negative");
    }
    if (maxPendingBytes < 1) {
      problems.add("max_pending_bytes", "must be at least 1");
    }
    if (maxPollRecords < 1) {
      problems.add("max_poll_records", "must be at least 1");
    }
    if (traces.topics().isEmpty() && metrics.topics().isEmpty() && logs.topics().isEmpty()) {
      problems.add("traces.topics", "at least one signal must have topics");
    }
  }

  /** How the consumer reaches the brokers: the keys shared with the {@code kafka} exporter. */
  KafkaConnection connection() {
    return new KafkaConnection(brokers, clientId, protocolVersion, tls, auth);
  }

  /** The encoding of a signal's records. */
  String encodingOf(SignalTopics topics) {
    return topics.encoding().isEmpty() ? encoding : topics.encoding();
  }

  /** What {@code max_fetch_size} means for the client. */
  int fetchMaxBytes() {
    return maxFetchSize == 0 ? DEFAULT_MAX_FETCH_BYTES : maxFetchSize;
  }

  private static void checkTopics(List<String> topics, String key, ConfigProblems problems) {
    for (int i = 0; i < topics.size(); i++) {
      String topic = topics.get(i);
      String at = key + "[" + i + "]";
      if (topic.isEmpty()) {
        problems.add(at, "must not be empty");
      } else if (topic.startsWith("^")) {
        try {
          Pattern.compile(topic);
        } catch (PatternSyntaxException e) {
          problems.add(at, "invalid regular expression: " + e.getDescription());
        }
      }
    }
  }
}
