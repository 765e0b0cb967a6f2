package dev.sluice.exporter.prometheusremotewrite;

import dev.sluice.exporter.prometheusremotewrite.Labels.Extras;
import dev.sluice.exporter.prometheusremotewrite.RemoteWriteFields.MetadataV2;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchView;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.DataPointView;
import dev.sluice.pdata.view.ExemplarView;
import dev.sluice.pdata.view.MetricType;
import dev.sluice.pdata.view.MetricView;
import dev.sluice.pdata.view.ResourceView;
import dev.sluice.pdata.view.ScopeView;
import dev.sluice.pdata.view.TextView;
import dev.sluice.prometheus.LabelNames;
import dev.sluice.prometheus.MetricNames;
import dev.sluice.prometheus.ResourceLabels;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Turns a batch of metrics into series by the OpenTelemetry Collector's rules for remote write (its
 * {@code prometheusremotewrite} translator): gauges and non-monotonic sums as gauges, monotonic
 * sums as counters with their exemplars, histograms as {@code _bucket} (cumulative, with {@code
 * le}, exemplars on the first bucket that holds them), {@code _sum} and {@code _count}, summaries
 * as {@code quantile} series, {@code _sum} and {@code _count}, exponential histograms as native
 * histograms (scale above 8 merged down to 8). Labels: the point's attributes (values of keys that
 * translate to one name joined with {@code ;}), {@code job} and {@code instance} from the service
 * attributes, the external labels where not already set, the scope labels; a point flagged as
 * having no recorded value is a stale marker. A {@code target_info} series per resource carries its
 * other attributes.
 *
 * <p>Delta sums and histograms, and exponential histograms of a scale below -4, cannot be written
 * to Prometheus: their points are counted in {@link #translate}'s result, and the rest of the batch
 * goes on. Reads the batch through its views only; owned by one thread, kept between batches.
 */
final class Translator {
  /** Prometheus' stale marker: a NaN that says the series ended. */
  static final long STALE_NAN = 0x7ff0000000000002L;

  private static final int NO_RECORDED_VALUE = 1;
  private static final int MAX_EXEMPLAR_RUNES = 128;
  private static final int MAX_CACHED_NAMES = 4096;
  private static final long NANOS_PER_MILLI = 1_000_000L;
  private static final byte[] JOB = utf8("job");
  private static final byte[] INSTANCE = utf8("instance");
  private static final byte[] LE = utf8("le");
  private static final byte[] QUANTILE = utf8("quantile");
  private static final byte[] SUM = utf8("_sum");
  private static final byte[] COUNT = utf8("_count");
  private static final byte[] BUCKET = utf8("_bucket");
  private static final byte[] TRACE_ID = utf8("trace_id");
  private static final byte[] SPAN_ID = utf8("span_id");
  private static final byte[] SERVICE_NAME = utf8("service.name");
  private static final byte[] SERVICE_NAMESPACE = utf8("service.namespace");
  private static final byte[] SERVICE_INSTANCE_ID = utf8("service.instance.id");
  private static final byte[] HEX = utf8("0123456789abcdef");
  private static final byte[] PROMETHEUS_TYPE = utf8("prometheus.type");
  private static final byte[] TARGET_INFO_HELP = utf8("Target metadata");

  private final TranslationSettings settings;
  private final MetricNames metricNames;
  private final LabelNames labelNames;
  private final Utf8Names utf8Names = new Utf8Names();
  private final Map<String, byte[][]> seriesNames = new IdentityHashMap<>();
  private final byte[][] externalNames;
  private final byte[][] externalValues;
  private final byte[] scopeNameLabel;
  private final byte[] scopeVersionLabel;
  private final byte[] targetInfoName;
  private final FloatText floats = new FloatText();

  private final BatchView view = new BatchView();
  private final BatchView.MetricVisitor visitor = this::metric;
  private final DataPointView point = new DataPointView();
  private final ExemplarView exemplar = new ExemplarView();
  private final AttributeCursor cursor = new AttributeCursor();
  private final Labels labels = new Labels();
  private final Labels service = new Labels();
  private final Labels scopeLabels = new Labels();
  private final Pending resourceEntries = new Pending();
  private final Pending pending = new Pending();
  private final Buf key = new Buf(512);
  private final Extras extras = new Extras();
  private final Buf scratch = new Buf(64);

  private SeriesTable table;
  // Remote write 2.0: series carry metadata (the family of the metric being read) and gauges keep
  // their exemplars.
  private final boolean v2;
  private int family = -1;
  private int targetFamily = -1;
  private final Map<String, byte[]> units = new HashMap<>();
  // Set by attributesToLabels when an attribute key has no label name (the Collector refuses it).
  private boolean refused;
  private long dropped;
  private String problem;
  private int[] targetSeries = new int[8];
  private long[] targetNewest = new long[8];
  private int targets;
  private int[] bucketSeries = new int[16];
  private final NativeHistograms nativeHistograms = new NativeHistograms();

  Translator(TranslationSettings settings, boolean v2) {
    this.settings = settings;
    this.v2 = v2;
    this.metricNames = new MetricNames(settings.namespace(), settings.strategy());
    LabelNames namer = new LabelNames(settings.strategy());
    this.labelNames = namer;
    int n = settings.externalLabels().size();
    externalNames = new byte[n][];
    externalValues = new byte[n][];
    int i = 0;
    for (Map.Entry<String, String> label : settings.externalLabels().entrySet()) {
      externalNames[i] = utf8(namer.label(label.getKey()));
      externalValues[i] = utf8(label.getValue());
      i++;
    }
    scopeNameLabel = utf8(namer.label("otel_scope_name"));
    scopeVersionLabel = utf8(namer.label("otel_scope_version"));
    String targetInfo = "target_info";
    targetInfoName =
        utf8(settings.namespace().isEmpty() ? targetInfo : settings.namespace() + "_" + targetInfo);
  }

  /**
   * Adds the batch's series to {@code into}; returns the data points that could not be written (see
   * the class comment), {@link #problem()} saying why for the first of them.
   */
  long translate(Batch batch, SeriesTable into) {
    table = into;
    dropped = 0;
    problem = null;
    targets = 0;
    family = -1;
    targetFamily = -1;
    try {
      view.forEachMetric(batch, visitor);
      for (int i = 0; i < targets; i++) {
        table.sample(targetSeries[i], millis(targetNewest[i]), 0, 1);
      }
    } finally {
      // The point and exemplar cursors keep the batch's last request until the next batch, as
      // the views' cursors do (BatchView): one request per sending thread, not more.
      table = null;
    }
    return dropped;
  }

  /** Why the first point not written in the last {@link #translate} was left out, or null. */
  String problem() {
    return problem;
  }

  private void metric(ResourceView resource, ScopeView scope, MetricView metric) {
    if (metric.dataPointCount() == 0) {
      return;
    }
    MetricType type = metric.type();
    boolean cumulative = metric.aggregationTemporality() == MetricView.TEMPORALITY_CUMULATIVE;
    boolean writable =
        switch (type) {
          case GAUGE, SUMMARY -> true;
          case SUM, HISTOGRAM, EXPONENTIAL_HISTOGRAM -> cumulative;
          default -> false;
        };
    if (!writable) {
      dropAll(
          resource,
          metric,
          (cumulative ? " is a " : " is a delta ")
              + type.name().toLowerCase()
              + ", which Prometheus cannot take");
      return;
    }
    byte[][] names = seriesNames(metricNames.name(metric));
    if (names[0].length == 0) {
      dropAll(resource, metric, " has no Prometheus name");
      return;
    }
    serviceLabels(resource);
    scopeLabels(scope);
    resourceEntries(resource);
    boolean counter = type == MetricType.SUM && metric.isMonotonic();
    if (v2 || settings.sendMetadata()) {
      family = family(metric, type, counter, names[0]);
    }
    long newest = 0;
    metric.dataPoints(point);
    while (point.next()) {
      newest = Math.max(newest, point.timeUnixNano());
      pointLabels();
      if (refused) {
        dropped++;
        if (problem == null) {
          problem =
              "a point of metric \""
                  + metric.name().asString()
                  + "\" has an attribute key that cannot be a label name";
        }
        continue;
      }
      long timestamp = millis(point.timeUnixNano());
      boolean stale = (point.flags() & NO_RECORDED_VALUE) != 0;
      switch (type) {
        case GAUGE, SUM -> number(names[0], timestamp, stale, counter);
        case HISTOGRAM -> histogram(names, timestamp, stale);
        case SUMMARY -> summary(names, timestamp, stale);
        default -> exponentialHistogram(names[0], timestamp, stale);
      }
    }
    targetInfo(resource, newest);
  }

  /**
   * Counts every point of a metric that cannot be written, says why ({@code "metric \"name\""} and
   * {@code why}) if it is the first, and still notes its resource's {@code target_info}.
   */
  private void dropAll(ResourceView resource, MetricView metric, String why) {
    long newest = 0;
    metric.dataPoints(point);
    while (point.next()) {
      newest = Math.max(newest, point.timeUnixNano());
      dropped++;
    }
    if (problem == null) {
      problem = "metric \"" + metric.name().asString() + "\"" + why;
    }
    targetInfo(resource, newest);
  }

  private void number(byte[] name, long timestamp, boolean stale, boolean counter) {
    long start = counter ? millis(point.startTimeUnixNano()) : 0;
    double value;
    if (point.isInt()) {
      value = point.intValue();
    } else {
      value = point.isDouble() ? point.doubleValue() : 0;
    }
    int s = series(extras.name(name));
    table.sample(s, timestamp, start, stale ? Double.longBitsToDouble(STALE_NAN) : value);
    // Remote write 2.0 carries a gauge's exemplars too, as the Collector sends them there.
    if (counter || v2) {
      point.exemplars(exemplar);
      while (exemplar.next()) {
        addExemplar(s);
      }
    }
  }

  private void histogram(byte[][] names, long timestamp, boolean stale) {
    double staleValue = Double.longBitsToDouble(STALE_NAN);
    long start = millis(point.startTimeUnixNano());
    if (point.hasSum()) {
      table.sample(
          series(extras.name(names[1])), timestamp, start, stale ? staleValue : point.sum());
    }
    long count = point.count();
    table.sample(series(extras.name(names[2])), timestamp, start, stale ? staleValue : count);
    int buckets = Math.min(point.explicitBoundsCount(), point.bucketCountsCount());
    if (bucketSeries.length < buckets + 1) {
      bucketSeries = new int[buckets + 1];
    }
    long cumulative = 0;
    for (int i = 0; i < buckets; i++) {
      cumulative += point.bucketCount(i);
      int s = series(extras.nameAnd(names[3], LE, floats.get(point.explicitBound(i))));
      table.sample(s, timestamp, start, stale ? staleValue : cumulative);
      bucketSeries[i] = s;
    }
    int inf = series(extras.nameAnd(names[3], LE, FloatText.positiveInfinity()));
    table.sample(inf, timestamp, start, stale ? staleValue : count);
    bucketSeries[buckets] = inf;
    point.exemplars(exemplar);
    while (exemplar.next()) {
      double value = exemplarValue();
      // The bucket of the smallest bound that holds the value (+Inf when none does).
      int target = buckets;
      double smallest = Double.POSITIVE_INFINITY;
      for (int i = 0; i < buckets; i++) {
        double bound = point.explicitBound(i);
        if (value <= bound && bound < smallest) {
          smallest = bound;
          target = i;
        }
      }
      addExemplar(bucketSeries[target]);
    }
  }

  private void summary(byte[][] names, long timestamp, boolean stale) {
    double staleValue = Double.longBitsToDouble(STALE_NAN);
    long start = millis(point.startTimeUnixNano());
    table.sample(series(extras.name(names[1])), timestamp, start, stale ? staleValue : point.sum());
    table.sample(
        series(extras.name(names[2])), timestamp, start, stale ? staleValue : point.count());
    int quantiles = point.quantileValuesCount();
    for (int i = 0; i < quantiles; i++) {
      int s = series(extras.nameAnd(names[0], QUANTILE, floats.get(point.quantile(i))));
      table.sample(s, timestamp, start, stale ? staleValue : point.quantileValue(i));
    }
  }

  private void exponentialHistogram(byte[] name, long timestamp, boolean stale) {
    int scale = point.scale();
    if (scale < NativeHistograms.MIN_SCALE) {
      dropped++;
      if (problem == null) {
        problem =
            "an exponential histogram of scale "
                + scale
                + " (Prometheus takes "
                + NativeHistograms.MIN_SCALE
                + " up)";
      }
      return;
    }
    int scaleDown = Math.max(0, scale - NativeHistograms.MAX_SCALE);
    int s = series(extras.name(name));
    Buf out = table.histogramStore();
    int from = out.size;
    nativeHistograms.write(point, stale, scaleDown, timestamp, out);
    table.histogram(s, from, timestamp, millis(point.startTimeUnixNano()));
    point.exemplars(exemplar);
    while (exemplar.next()) {
      addExemplar(s);
    }
  }

  private double exemplarValue() {
    if (exemplar.isInt()) {
      return exemplar.intValue();
    }
    return exemplar.isDouble() ? exemplar.doubleValue() : 0;
  }

  /**
   * Adds the exemplar the cursor is at to series {@code s}: {@code trace_id} and {@code span_id} in
   * hex, then its filtered attributes as they are, unless those would take the exemplar's labels
   * past 128 characters.
   */
  private void addExemplar(int s) {
    Buf out = table.exemplarLabels();
    int from = out.size;
    int runes = 0;
    if (exemplar.hasTraceId()) {
      int at = scratch.size = 0;
      scratch.ensure(32);
      hex(exemplar.traceIdHigh(), scratch.array, at);
      hex(exemplar.traceIdLow(), scratch.array, at + 16);
      Labels.writeLabel(out, TRACE_ID, scratch.array, 0, 32);
      runes += TRACE_ID.length + 32;
    }
    if (exemplar.hasSpanId()) {
      scratch.size = 0;
      scratch.ensure(16);
      hex(exemplar.spanIdLong(), scratch.array, 0);
      Labels.writeLabel(out, SPAN_ID, scratch.array, 0, 16);
      runes += SPAN_ID.length + 16;
    }
    int attributesFrom = out.size;
    exemplar.filteredAttributes(cursor);
    pending.clear();
    while (cursor.next()) {
      int mark = pending.bytes.size;
      TextView k = cursor.key();
      pending.bytes.ensure(k.length());
      k.copyTo(pending.bytes.array, mark);
      pending.bytes.size += k.length();
      int valueAt = pending.bytes.size;
      Pending.writeGoString(cursor.value(), pending.bytes);
      runes += runes(pending.bytes.array, mark, pending.bytes.size);
      byte[] b = pending.bytes.array;
      Labels.writeLabel(out, b, mark, valueAt - mark, b, valueAt, pending.bytes.size - valueAt);
    }
    if (runes > MAX_EXEMPLAR_RUNES) {
      out.size = attributesFrom;
    }
    table.exemplar(s, from, exemplarValue(), exemplarMillis(exemplar.timeUnixNano()));
  }

  /** The point's labels, before the series' own: attributes, service, external, scope. */
  private void pointLabels() {
    refused = false;
    labels.clear();
    pending.clear();
    for (int i = 0; i < resourceEntries.count(); i++) {
      pending.addFrom(resourceEntries, i);
    }
    point.attributes(cursor);
    while (cursor.next()) {
      if (resourceEntries.count() > 0 && resourceEntries.hasKey(cursor.key())) {
        continue;
      }
      pending.addIfNotEmpty(cursor);
    }
    attributesToLabels();
    for (int i = 0; i < service.count(); i++) {
      copyLabel(service, i);
    }
    for (int i = 0; i < externalNames.length; i++) {
      labels.putIfAbsent(externalNames[i], externalValues[i]);
    }
    for (int i = 0; i < scopeLabels.count(); i++) {
      copyLabel(scopeLabels, i);
    }
    labels.seal();
  }

  /** Translates {@link #pending}'s keys, in key order, into {@link #labels}. */
  private void attributesToLabels() {
    pending.sortByKey();
    byte[] b = pending.bytes.array;
    for (int i = 0; i < pending.count(); i++) {
      byte[] name = utf8Names.of(labelNames.label(b, pending.keyFrom(i), pending.keyLength(i)));
      if (name.length == 0) {
        refused = true;
        continue;
      }
      int from = labels.values.size;
      labels.values.bytes(b, pending.valueFrom(i), pending.valueLength(i));
      int existing = labels.indexOf(name);
      if (existing >= 0) {
        labels.join(existing, from);
      } else {
        labels.set(name, from);
      }
    }
  }

  private void copyLabel(Labels source, int i) {
    int from = labels.values.size;
    labels.values.bytes(source.values.array, source.valueFrom(i), source.valueLength(i));
    labels.set(source.name(i), from);
  }

  /** {@code job} and {@code instance} of the resource's service attributes. */
  private void serviceLabels(ResourceView resource) {
    service.clear();
    resource.attributes(cursor);
    if (cursor.find(SERVICE_NAME)) {
      int from = service.values.size;
      Pending.writeGoString(cursor.value(), service.values);
      if (service.values.size > from) {
        int nameEnd = service.values.size;
        if (cursor.find(SERVICE_NAMESPACE)) {
          // namespace/name: write the namespace after the name, then rotate them into place.
          Pending.writeGoString(cursor.value(), service.values);
          int namespaceLength = service.values.size - nameEnd;
          int nameLength = nameEnd - from;
          service.values.ensure(nameLength + namespaceLength + 1);
          byte[] b = service.values.array;
          int at = service.values.size;
          System.arraycopy(b, nameEnd, b, at, namespaceLength);
          b[at + namespaceLength] = '/';
          System.arraycopy(b, from, b, at + namespaceLength + 1, nameLength);
          service.values.size = at + namespaceLength + 1 + nameLength;
          from = at;
        }
        service.set(JOB, from);
      }
    }
    if (cursor.find(SERVICE_INSTANCE_ID)) {
      int from = service.values.size;
      Pending.writeGoString(cursor.value(), service.values);
      if (service.values.size > from) {
        service.set(INSTANCE, from);
      }
    }
  }

  private void scopeLabels(ScopeView scope) {
    scopeLabels.clear();
    if (!settings.scopeInfo()) {
      return;
    }
    setText(scopeLabels, scopeNameLabel, scope.name());
    setText(scopeLabels, scopeVersionLabel, scope.version());
    scope.attributes(cursor);
    while (cursor.next()) {
      TextView k = cursor.key();
      if (ResourceLabels.reservedScopeAttribute(k)) {
        continue;
      }
      byte[] name = utf8Names.of(labelNames.scopeAttribute(k));
      if (name.length == 0) {
        continue;
      }
      int from = scopeLabels.values.size;
      Pending.writeGoString(cursor.value(), scopeLabels.values);
      scopeLabels.set(name, from);
    }
  }

  private static void setText(Labels into, byte[] name, TextView text) {
    if (text.isEmpty()) {
      return;
    }
    int from = into.values.size;
    into.values.ensure(text.length());
    text.copyTo(into.values.array, from);
    into.values.size += text.length();
    into.set(name, from);
  }

  /** The resource attributes every series of this resource carries, when so configured. */
  private void resourceEntries(ResourceView resource) {
    resourceEntries.clear();
    if (!settings.resourceAttributes().any()) {
      return;
    }
    resource.attributes(cursor);
    while (cursor.next()) {
      if (settings.resourceAttributes().matches(cursor.key().asString())) {
        resourceEntries.addIfNotEmpty(cursor);
      }
    }
  }

  /**
   * Notes the resource's {@code target_info} series, sampled once per batch at the newest point of
   * its metrics: the resource's attributes other than the service ones, with {@code job} and {@code
   * instance}. A resource with no other attributes, or without a service name or instance, has
   * none.
   */
  private void targetInfo(ResourceView resource, long newestNanos) {
    if (!settings.targetInfo() || newestNanos == 0) {
      return;
    }
    labels.clear();
    pending.clear();
    resource.attributes(cursor);
    boolean others = false;
    while (cursor.next()) {
      TextView k = cursor.key();
      if (k.contentEquals(SERVICE_NAME)
          || k.contentEquals(SERVICE_NAMESPACE)
          || k.contentEquals(SERVICE_INSTANCE_ID)) {
        continue;
      }
      others = true;
      pending.addIfNotEmpty(cursor);
    }
    if (!others) {
      return;
    }
    refused = false;
    attributesToLabels();
    if (refused) {
      return;
    }
    serviceLabels(resource);
    for (int i = 0; i < service.count(); i++) {
      copyLabel(service, i);
    }
    for (int i = 0; i < externalNames.length; i++) {
      labels.putIfAbsent(externalNames[i], externalValues[i]);
    }
    if (labels.indexOf(JOB) < 0 && labels.indexOf(INSTANCE) < 0) {
      return;
    }
    labels.seal();
    int metricFamily = family;
    if ((v2 || settings.sendMetadata()) && targetFamily < 0) {
      targetFamily =
          table.family(
              MetadataV2.GAUGE,
              TARGET_INFO_HELP,
              0,
              TARGET_INFO_HELP.length,
              Buf.EMPTY,
              targetInfoName);
    }
    family = targetFamily;
    int s = series(extras.name(targetInfoName));
    family = metricFamily;
    for (int i = 0; i < targets; i++) {
      if (targetSeries[i] == s) {
        targetNewest[i] = Math.max(targetNewest[i], newestNanos);
        return;
      }
    }
    if (targets == targetSeries.length) {
      targetSeries = Arrays.copyOf(targetSeries, targets * 2);
      targetNewest = Arrays.copyOf(targetNewest, targets * 2);
    }
    targetSeries[targets] = s;
    targetNewest[targets] = newestNanos;
    targets++;
  }

  /**
   * The metric's metadata for remote write 2.0, as the Collector gives it: its type (a {@code
   * prometheus.type} of {@code unknown}, {@code info} or {@code stateset} in the metric's metadata
   * is kept where the Collector keeps it), description and unit.
   */
  private int family(MetricView metric, MetricType type, boolean counter, byte[] name) {
    int metadataType =
        switch (type) {
          case GAUGE -> prometheusType(metric, "unknown") ? 0 : MetadataV2.GAUGE;
          case SUM -> {
            if (counter) {
              yield MetadataV2.COUNTER;
            }
            if (prometheusType(metric, "info")) {
              yield MetadataV2.INFO;
            }
            yield prometheusType(metric, "stateset") ? MetadataV2.STATESET : MetadataV2.GAUGE;
          }
          case HISTOGRAM, EXPONENTIAL_HISTOGRAM -> MetadataV2.HISTOGRAM;
          case SUMMARY -> MetadataV2.SUMMARY;
          default -> 0;
        };
    String otlpUnit = metric.unit().asString();
    byte[] unit = units.get(otlpUnit);
    if (unit == null) {
      if (units.size() >= MAX_CACHED_NAMES) {
        units.clear();
      }
      unit = utf8(metricNames.unit(otlpUnit));
      units.put(otlpUnit, unit);
    }
    TextView description = metric.description();
    scratch.size = 0;
    scratch.ensure(description.length());
    description.copyTo(scratch.array, 0);
    return table.family(metadataType, scratch.array, 0, description.length(), unit, name);
  }

  private boolean prometheusType(MetricView metric, String value) {
    metric.metadata(cursor);
    return cursor.find(PROMETHEUS_TYPE) && cursor.value().stringValue().contentEquals(value);
  }

  private int series(Extras own) {
    key.reset();
    labels.encode(own, key);
    return table.series(key, family);
  }

  /**
   * The names of a metric's series, from its translated name: the name, then {@code _sum}, {@code
   * _count} and {@code _bucket} forms. Cached by the translated name's identity (the namer hands
   * out one string per name).
   */
  private byte[][] seriesNames(String name) {
    byte[][] names = seriesNames.get(name);
    if (names == null) {
      if (seriesNames.size() >= MAX_CACHED_NAMES) {
        seriesNames.clear();
      }
      byte[] base = utf8(name);
      names =
          base.length == 0
              ? new byte[][] {base}
              : new byte[][] {base, concat(base, SUM), concat(base, COUNT), concat(base, BUCKET)};
      seriesNames.put(name, names);
    }
    return names;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] joined = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, joined, a.length, b.length);
    return joined;
  }

  /** Unix nanoseconds to milliseconds, truncated toward zero as Go's integer division. */
  static long millis(long nanos) {
    return nanos / NANOS_PER_MILLI;
  }

  /** An exemplar's time in milliseconds, floored as Go's {@code timestamp.FromTime}. */
  static long exemplarMillis(long nanos) {
    return Math.floorDiv(nanos, NANOS_PER_MILLI);
  }

  private static void hex(long value, byte[] out, int at) {
    for (int i = 15; i >= 0; i--) {
      out[at + i] = HEX[(int) (value & 0xF)];
      value >>>= 4;
    }
  }

  /** UTF-8 characters in {@code b[from, to)}: bytes that do not continue a character. */
  private static int runes(byte[] b, int from, int to) {
    int n = 0;
    for (int i = from; i < to; i++) {
      if ((b[i] & 0xC0) != 0x80) {
        n++;
      }
    }
    return n;
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
