package dev.sluice.prometheus;

import dev.sluice.pdata.view.TextView;
import java.nio.charset.StandardCharsets;

/**
 * Prometheus label names of OTLP attribute keys, as the OpenTelemetry Collector v0.161's {@code
 * prometheus} and {@code prometheusremotewrite} exporters build them (otlptranslator v1.0.0's
 * {@code LabelNamer} as those exporters configure it: the {@code
 * pkg.translator.prometheus.PermissiveLabelSanitization} gate off, its default).
 *
 * <p>With the escaping strategies ({@link TranslationStrategy#escapes()}):
 *
 * <ul>
 *   <li>every character outside {@code [a-zA-Z0-9]} becomes {@code _}, and each run of such
 *       characters, underscores included, becomes one {@code _} ({@code http.request..method} ->
 *       {@code http_request_method}, {@code a__b} -> {@code a_b}, {@code 字} -> {@code _});
 *   <li>a key that starts and ends with {@code __} (four characters or more) is a reserved name:
 *       its inside is escaped the same way and the {@code __} kept at both ends ({@code __name__}
 *       stays, {@code __a..b__} -> {@code __a_b__});
 *   <li>an escaped name that starts with a digit gets {@code key_} in front ({@code 0day} -> {@code
 *       key_0day}); one that starts with a single {@code _} gets {@code key} in front ({@code _tmp}
 *       -> {@code key_tmp}, {@code __tmp} -> {@code key_tmp}, {@code ..} -> {@code key_});
 *   <li>an empty key, and a name of underscores only ({@code ____}), are refused.
 * </ul>
 *
 * <p>With the UTF-8 strategies the key is kept as it is; an empty key and one of underscores only
 * are refused. A refused key gives the empty name here; the Collector then drops the data point's
 * series (target_info, for a resource attribute), with an error logged.
 *
 * <p><b>Keys that meet.</b> Two attribute keys may give the same label ({@code a.b} and {@code
 * a_b}). The caller joins their values with {@code ;}: the {@code prometheusremotewrite} exporter
 * takes the data point's attributes in byte order of their original keys, skips empty values, and
 * appends a value only when it differs from the one already held ({@code a.b=x, a_b=y} -> {@code
 * a_b="x;y"}); for {@code target_info} the {@code prometheus} exporter joins every value in the
 * map's (random) order, and for a data point it fails the metric on the duplicate label. The
 * OpenTelemetry specification asks for the values in the lexicographic order of the original keys.
 *
 * <p><b>Where the OpenTelemetry specification says otherwise</b>: it allows label names that start
 * with {@code _}; the Collector's {@code key} prefix is its own.
 *
 * <p><b>Cost.</b> Cached by the key's bytes in a bounded map of 4096 names, cleared when full; a
 * cached key costs no allocation. Not thread-safe: one instance per thread.
 */
public final class LabelNames {
  private static final String SCOPE_PREFIX = ResourceLabels.SCOPE_ATTRIBUTE_PREFIX;

  private final TranslationStrategy strategy;
  private final NameCache cache;

  public LabelNames(TranslationStrategy strategy) {
    this(strategy, NameCache.DEFAULT_MAX_ENTRIES);
  }

  LabelNames(TranslationStrategy strategy, int maxCachedNames) {
    if (strategy == null) {
      throw new IllegalArgumentException("a translation strategy is required");
    }
    this.strategy = strategy;
    this.cache = new NameCache(maxCachedNames);
  }

  /** The label name of an attribute key; empty when the Collector would refuse it. */
  public String label(TextView key) {
    String cached = cache.newKey().append(key).find();
    if (cached != null) {
      return cached;
    }
    return cache.put(LabelNameRules.label(key.asString(), strategy.escapes()));
  }

  /**
   * {@link #label(TextView)} of a key given as UTF-8, {@code utf8[offset, offset + length)}, from
   * the same cache: for callers that hold keys as bytes of their own.
   */
  public String label(byte[] utf8, int offset, int length) {
    String cached = cache.newKey().append(utf8, offset, length).find();
    if (cached != null) {
      return cached;
    }
    return cache.put(
        LabelNameRules.label(
            new String(utf8, offset, length, StandardCharsets.UTF_8), strategy.escapes()));
  }

  /** {@link #label(TextView)} of a key given as text, from the same cache. */
  public String label(String key) {
    String text = key == null ? "" : key;
    String cached = cache.newKey().append(text).find();
    if (cached != null) {
      return cached;
    }
    return cache.put(LabelNameRules.label(text, strategy.escapes()));
  }

  /**
   * The label of a scope attribute: {@link #label(String) label}{@code ("otel_scope_" + key)}, as
   * both exporters name scope attributes, without building that text when it is cached. The scope
   * attributes {@code name}, {@code version} and {@code schema_url} are not made labels (see {@link
   * ResourceLabels#reservedScopeAttribute}).
   */
  public String scopeAttribute(TextView key) {
    String cached = cache.newKey().append(SCOPE_PREFIX).append(key).find();
    if (cached != null) {
      return cached;
    }
    return cache.put(LabelNameRules.label(SCOPE_PREFIX + key.asString(), strategy.escapes()));
  }

  /** Names the cache holds now: for tests. */
  int cachedNames() {
    return cache.size();
  }
}
