package dev.sluice.receiver.kafka;

import dev.sluice.pdata.Signal;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Which topics the receiver subscribes to and which signal (and encoding) each topic's records are.
 * Only the signals that a pipeline takes from the receiver are subscribed. Topic names are matched
 * whole; a name starting with {@code ^} is a regular expression.
 */
final class TopicRoutes {
  /** A topic's signal and whether its records are OTLP/JSON. */
  record Route(Signal signal, boolean json) {}

  private record SignalMatch(Route route, Pattern include, Pattern exclude) {
    boolean matches(String topic) {
      return include.matcher(topic).matches()
          && (exclude == null || !exclude.matcher(topic).matches());
    }
  }

  private final List<SignalMatch> matches = new ArrayList<>();
  private final List<String> literalTopics = new ArrayList<>();
  private final Pattern subscription;
  private final boolean literalOnly;

  /** Topics seen so far, by name; only the poll thread asks. */
  private final Map<String, Route> cache = new HashMap<>();

  TopicRoutes(KafkaReceiverConfig config, Set<Signal> signals) {
    Map<Signal, KafkaReceiverConfig.SignalTopics> bySignal = new EnumMap<>(Signal.class);
    bySignal.put(Signal.TRACES, config.traces());
    bySignal.put(Signal.METRICS, config.metrics());
    bySignal.put(Signal.LOGS, config.logs());
    boolean literal = true;
    List<String> alternatives = new ArrayList<>();
    for (Map.Entry<Signal, KafkaReceiverConfig.SignalTopics> e : bySignal.entrySet()) {
      KafkaReceiverConfig.SignalTopics topics = e.getValue();
      if (!signals.contains(e.getKey()) || topics.topics().isEmpty()) {
        continue;
      }
      boolean json = KafkaReceiverConfig.OTLP_JSON.equals(config.encodingOf(topics));
      String include = alternation(topics.topics());
      String exclude =
          topics.excludeTopics().isEmpty() ? null : alternation(topics.excludeTopics());
      matches.add(
          new SignalMatch(
              new Route(e.getKey(), json),
              Pattern.compile(include),
              exclude == null ? null : Pattern.compile(exclude)));
      alternatives.add(exclude == null ? include : "(?!(?:" + exclude + ")$)(?:" + include + ")");
      for (String topic : topics.topics()) {
        if (isRegex(topic)) {
          literal = false;
        } else {
          literalTopics.add(topic);
        }
      }
      if (!topics.excludeTopics().isEmpty()) {
        literal = false;
      }
    }
    this.literalOnly = literal;
    this.subscription =
        alternatives.isEmpty()
            ? null
            : Pattern.compile(
                alternatives.stream().map(a -> "(?:" + a + ")").collect(Collectors.joining("|")));
  }

  /** Whether any signal of a pipeline has topics here. */
  boolean isEmpty() {
    return matches.isEmpty();
  }

  /** True when every topic is a plain name: subscribe to {@link #topics()}, not a pattern. */
  boolean literalOnly() {
    return literalOnly;
  }

  /** The plain topic names. */
  List<String> topics() {
    return List.copyOf(literalTopics);
  }

  /** The pattern that every subscribed topic's whole name matches. */
  Pattern pattern() {
    return subscription;
  }

  /** The topic's signal, the first in traces, metrics, logs order that claims it; null if none. */
  Route route(String topic) {
    Route route = cache.get(topic);
    if (route == null && !cache.containsKey(topic)) {
      for (SignalMatch match : matches) {
        if (match.matches(topic)) {
          route = match.route();
          break;
        }
      }
      cache.put(topic, route);
    }
    return route;
  }

  private static boolean isRegex(String topic) {
    return topic.startsWith("^");
  }

  private static String alternation(List<String> topics) {
    return topics.stream()
        .map(t -> "(?:" + (isRegex(t) ? t : Pattern.quote(t)) + ")")
        .collect(Collectors.joining("|"));
  }
}
