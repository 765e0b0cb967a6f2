package dev.sluice.prometheus;

import dev.sluice.pdata.view.MetricType;
import dev.sluice.pdata.view.MetricView;
import dev.sluice.prometheus.MetricNameRules.Kind;

/**
 * Prometheus metric names of OTLP metrics, as the OpenTelemetry Collector v0.161's {@code
 * prometheus} and {@code prometheusremotewrite} exporters build them (otlptranslator v1.0.0's
 * {@code MetricNamer}). The name is the base name: histogram and summary series suffixes ({@code
 * _bucket}, {@code _sum}, {@code _count}) and {@code _created} are the caller's to append.
 *
 * <p>With {@link TranslationStrategy#UNDERSCORE_ESCAPING_WITH_SUFFIXES} (the default):
 *
 * <ul>
 *   <li>the name is split into tokens at every character outside {@code [a-zA-Z0-9:]}, underscores
 *       included, so runs of invalid characters and of underscores both become one {@code _} and
 *       none is left at either end ({@code http.server..duration_} -> {@code
 *       http_server_duration});
 *   <li>the unit adds its words (see {@code Units}): the main unit ({@code s} -> {@code seconds},
 *       {@code By} -> {@code bytes}, {@code %} -> {@code percent}, unknown units as written,
 *       escaped) unless one of the name's tokens already is that word, anywhere in the name; then
 *       the "per" unit ({@code By/s} -> {@code bytes_per_second}, {@code 1/s} -> {@code
 *       per_second}), which is added even when the name already holds it, since it is compared with
 *       single tokens ({@code requests_per_second} with unit {@code 1/s} gives {@code
 *       requests_per_second_per_second}); units in braces add nothing, nor does {@code 1};
 *   <li>a monotonic sum (of either temporality) loses every {@code total} token and gets one at the
 *       end ({@code total_requests} -> {@code requests_total}); a non-monotonic sum gets none;
 *   <li>a gauge whose unit is exactly {@code 1} likewise gets {@code ratio} at the end; a sum or
 *       histogram of unit {@code 1} gets no unit word at all;
 *   <li>the namespace goes in front with {@code _}, as configured (it is not escaped);
 *   <li>a name that starts with a digit gets {@code _} in front.
 * </ul>
 *
 * <p>{@link TranslationStrategy#UNDERSCORE_ESCAPING_WITHOUT_SUFFIXES}: each run of characters
 * outside {@code [a-zA-Z0-9_:]} becomes one {@code _} and runs at either end are dropped, but
 * underscores themselves are kept as they are ({@code a__b} stays {@code a__b}); the namespace is
 * escaped the same way and goes in front; without a namespace, a leading digit gets {@code _}.
 *
 * <p>{@link TranslationStrategy#NO_UTF8_ESCAPING_WITH_SUFFIXES}: the name is kept (the namespace
 * and {@code _} in front). A {@code ratio} or {@code total} suffix, or the "per" unit's words, at
 * the end after any one delimiter character are taken off and put back in their place: main unit
 * word, "per" words, {@code _total} or {@code _ratio}. The main unit word is added unless the name
 * already ends with it ({@code cpu_seconds} with unit {@code s} stays {@code cpu_seconds}, and so
 * does {@code response_milliseconds}); unit words are not escaped. {@link
 * TranslationStrategy#NO_TRANSLATION}: the namespace and {@code _} in front, nothing else.
 *
 * <p><b>Refused names.</b> Where the Collector refuses a name it drops the metric, with an error
 * logged; here the name is then empty ({@code ""}) and the caller drops and counts the metric.
 * Escaping refuses an empty result ({@code @#$}), and a result of underscores only unless the OTLP
 * name was exactly that ({@code @_#_} is refused, {@code ___} is kept without suffixes). The UTF-8
 * strategies give an empty name only for an empty OTLP name (which Prometheus refuses) or where
 * Go's trimming of a suffix would cut a multi-byte character in two, leaving the Collector a name
 * that is not UTF-8 ({@code ...ßtotal} as a counter).
 *
 * <p><b>Where the OpenTelemetry specification says otherwise</b> (its Prometheus compatibility
 * page), this class does as the Collector does: the specification turns unit {@code 1} into {@code
 * _ratio} for every metric type, adds {@code _total} only when the name does not already end in it,
 * adds a unit only when the name does not already contain it, and collapses runs of {@code _} in
 * every case; the Collector does as described above.
 *
 * <p><b>Cost.</b> Results are cached by the metric's name and unit bytes and by what of its type
 * the name depends on (gauge, monotonic sum, or other), in a bounded map that is cleared when it
 * holds 4096 names; a cached metric costs no allocation, whether it is asked for through a view or
 * through {@code String}s. Names and units of more than about 1 KiB together are translated each
 * time and not kept. Not thread-safe: one instance per thread, as an encoder's state.
 */
public final class MetricNames {
  private final String namespace;
  private final TranslationStrategy strategy;
  private final NameCache cache;

  /**
   * @param namespace the exporter's {@code namespace}, put in front of every name as it is; empty
   *     or null for none
   */
  public MetricNames(String namespace, TranslationStrategy strategy) {
    this(namespace, strategy, NameCache.DEFAULT_MAX_ENTRIES);
  }

  MetricNames(String namespace, TranslationStrategy strategy, int maxCachedNames) {
    if (strategy == null) {
      throw new IllegalArgumentException("a translation strategy is required");
    }
    this.namespace = namespace == null ? "" : namespace;
    this.strategy = strategy;
    this.cache = new NameCache(maxCachedNames);
  }

  /** The metric's base name; empty when the Collector would refuse it (see the class comment). */
  public String name(MetricView metric) {
    Kind kind = kind(metric.type(), metric.isMonotonic());
    cache.newKey().append(metric.name()).appendByte(NameCache.SEPARATOR).append(metric.unit());
    String cached = cache.appendByte(kind.ordinal()).find();
    if (cached != null) {
      return cached;
    }
    return cache.put(
        MetricNameRules.name(
            namespace, strategy, metric.name().asString(), metric.unit().asString(), kind));
  }

  /**
   * The base name of a metric given by its values: {@code monotonic} counts only for a {@link
   * MetricType#SUM}. The same as {@link #name(MetricView)} for the same values, from the same
   * cache.
   */
  public String name(String otlpName, String unit, MetricType type, boolean monotonic) {
    String name = otlpName == null ? "" : otlpName;
    String unitText = unit == null ? "" : unit;
    Kind kind = kind(type, monotonic);
    cache.newKey().append(name).appendByte(NameCache.SEPARATOR).append(unitText);
    String cached = cache.appendByte(kind.ordinal()).find();
    if (cached != null) {
      return cached;
    }
    return cache.put(MetricNameRules.name(namespace, strategy, name, unitText, kind));
  }

  /**
   * The unit as Prometheus metadata gives it (remote write 2.0's {@code unit}), as the Collector's
   * {@code UnitNamer} writes it: the main unit's word and {@code per_} the "per" unit's ({@code
   * m/s} is {@code meters_per_second}, {@code ms} is {@code milliseconds}, {@code 1} and units in
   * braces are nothing), escaped unless the strategy keeps UTF-8, without a leading or trailing
   * {@code _}. Not cached: asked once per metric.
   */
  public String unit(String otlpUnit) {
    String unit = otlpUnit == null ? "" : otlpUnit;
    String main = Units.main(unit);
    String per = Units.per(unit);
    if (strategy.escapes()) {
      main = MetricNameRules.cleanUnit(main);
      per = MetricNameRules.cleanUnit(per);
    }
    String joined;
    if (!main.isEmpty() && !per.isEmpty()) {
      joined = main + "_" + per;
    } else {
      joined = main.isEmpty() ? per : main;
    }
    if (joined.startsWith("_")) {
      joined = joined.substring(1);
    }
    if (joined.endsWith("_")) {
      joined = joined.substring(0, joined.length() - 1);
    }
    return joined;
  }

  /** Names the cache holds now: for tests. */
  int cachedNames() {
    return cache.size();
  }

  private static Kind kind(MetricType type, boolean monotonic) {
    if (type == MetricType.GAUGE) {
      return Kind.GAUGE;
    }
    return type == MetricType.SUM && monotonic ? Kind.MONOTONIC_SUM : Kind.OTHER;
  }
}
