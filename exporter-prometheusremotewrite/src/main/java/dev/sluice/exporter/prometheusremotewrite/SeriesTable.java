package dev.sluice.exporter.prometheusremotewrite;

import dev.sluice.exporter.prometheusremotewrite.RemoteWriteFields.Exemplar;
import dev.sluice.exporter.prometheusremotewrite.RemoteWriteFields.Histogram;
import dev.sluice.exporter.prometheusremotewrite.RemoteWriteFields.MetadataV2;
import dev.sluice.exporter.prometheusremotewrite.RemoteWriteFields.MetricMetadata;
import dev.sluice.exporter.prometheusremotewrite.RemoteWriteFields.Sample;
import dev.sluice.exporter.prometheusremotewrite.RemoteWriteFields.TimeSeries;
import dev.sluice.exporter.prometheusremotewrite.RemoteWriteFields.TimeSeriesV2;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The series one batch makes, each with its samples, exemplars and native histograms, in flat
 * arrays that are kept between batches. A series is its label set, encoded once as {@code Label}
 * messages in canonical order (sorted by name): equal label sets have equal bytes, so finding a
 * series is a hash and a compare of bytes. Every data point of a series in the batch lands in the
 * one series, whatever resource or scope block it came in, and its samples are written in timestamp
 * order, as remote-write receivers require.
 *
 * <p>Owned by one thread; {@link #clear} forgets a batch and keeps the arrays.
 */
final class SeriesTable {
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long MIX = 0x9E3779B97F4A7C15L;

  private final Buf labelStore = new Buf(4096);
  private int series;
  private int[] labelFrom = new int[64];
  private int[] labelLength = new int[64];
  private int[] seriesHash = new int[64];
  private int[] firstSample = new int[64];
  private int[] lastSample = new int[64];
  private int[] firstExemplar = new int[64];
  private int[] lastExemplar = new int[64];
  private int[] firstHistogram = new int[64];
  private int[] lastHistogram = new int[64];
  private int[] seriesFamily = new int[64];
  // Series id + 1 by hash; 0 is an empty slot.
  private int[] slots = new int[128];

  private int samples;
  private long[] sampleTimestamp = new long[256];
  private double[] sampleValue = new double[256];
  private long[] sampleStart = new long[256];
  private int[] sampleNext = new int[256];

  // Metric families (remote write 2.0's metadata): type, help text and unit, per metric.
  private final Buf familyText = new Buf(1024);
  private int families;
  private int[] familyType = new int[16];
  private int[] helpFrom = new int[16];
  private int[] helpLength = new int[16];
  private int[] unitFrom = new int[16];
  private int[] unitLength = new int[16];
  // The family's metric name, as the translator's name cache hands it out (one array per name).
  private byte[][] familyName = new byte[16][];
  // How far back family() looks for a family of the same name: metrics of one name come together.
  private static final int RECENT_FAMILIES = 16;

  private final Buf exemplarLabels = new Buf(1024);
  private int exemplars;
  private int[] exemplarLabelFrom = new int[16];
  private int[] exemplarLabelLength = new int[16];
  private double[] exemplarValue = new double[16];
  private long[] exemplarTimestamp = new long[16];
  private int[] exemplarNext = new int[16];

  private final Buf histogramStore = new Buf(1024);
  private int histograms;
  private int[] histogramFrom = new int[16];
  private int[] histogramLength = new int[16];
  private long[] histogramTimestamp = new long[16];
  private long[] histogramStart = new long[16];
  private int[] histogramNext = new int[16];

  // Scratch for ordering one series' entries by timestamp.
  private int[] order = new int[16];
  // Scratch for one series' or exemplar's symbol references.
  private int[] refs = new int[32];

  void clear() {
    Arrays.fill(slots, 0);
    series = 0;
    samples = 0;
    exemplars = 0;
    histograms = 0;
    Arrays.fill(familyName, 0, families, null);
    families = 0;
    familyText.reset();
    labelStore.reset();
    exemplarLabels.reset();
    histogramStore.reset();
  }

  /** Memory held for the next batch, at most {@code maxRetainedBytes} per store. */
  void release(int maxRetainedBytes) {
    clear();
    labelStore.release(maxRetainedBytes);
    exemplarLabels.release(maxRetainedBytes);
    histogramStore.release(maxRetainedBytes);
    if (slots.length * 4 > maxRetainedBytes) {
      slots = new int[128];
    }
  }

  int seriesCount() {
    return series;
  }

  boolean isEmpty() {
    return series == 0;
  }

  /**
   * A metric family: its metadata type ({@code RemoteWriteFields.MetadataV2}), help text and unit,
   * for the series {@link #series} adds under it.
   */
  int family(int type, byte[] help, int helpOffset, int helpLen, byte[] unit, byte[] name) {
    // One family per name in a batch: the first metric of a name gives its metadata.
    for (int f = families - 1; f >= 0 && f >= families - RECENT_FAMILIES; f--) {
      if (familyName[f] == name) {
        return f;
      }
    }
    if (families == familyType.length) {
      int capacity = families * 2;
      familyType = Arrays.copyOf(familyType, capacity);
      helpFrom = Arrays.copyOf(helpFrom, capacity);
      helpLength = Arrays.copyOf(helpLength, capacity);
      unitFrom = Arrays.copyOf(unitFrom, capacity);
      unitLength = Arrays.copyOf(unitLength, capacity);
      familyName = Arrays.copyOf(familyName, capacity);
    }
    int f = families++;
    familyType[f] = type;
    helpFrom[f] = familyText.size;
    helpLength[f] = helpLen;
    familyText.bytes(help, helpOffset, helpLen);
    unitFrom[f] = familyText.size;
    unitLength[f] = unit.length;
    familyText.bytes(unit, 0, unit.length);
    familyName[f] = name;
    return f;
  }

  int familyCount() {
    return families;
  }

  /** Bytes of family {@code f} as a remote write 1.0 {@code MetricMetadata} payload. */
  int metadataSize(int f) {
    return Buf.varintFieldSize(familyType[f])
        + Buf.fieldSize(familyName[f].length)
        + (helpLength[f] > 0 ? Buf.fieldSize(helpLength[f]) : 0)
        + (unitLength[f] > 0 ? Buf.fieldSize(unitLength[f]) : 0);
  }

  /** Writes family {@code f} as a remote write 1.0 {@code MetricMetadata} payload. */
  void writeMetadata(int f, Buf out) {
    out.varintField(MetricMetadata.TYPE, familyType[f]);
    out.field(MetricMetadata.METRIC_FAMILY_NAME, familyName[f], 0, familyName[f].length);
    if (helpLength[f] > 0) {
      out.field(MetricMetadata.HELP, familyText.array, helpFrom[f], helpLength[f]);
    }
    if (unitLength[f] > 0) {
      out.field(MetricMetadata.UNIT, familyText.array, unitFrom[f], unitLength[f]);
    }
  }

  /** Where {@link #family}'s help text may be written before calling it with these bytes. */
  Buf familyText() {
    return familyText;
  }

  /**
   * The series whose labels are {@code key}'s bytes, added under {@code family} if new (a series
   * keeps the family of the metric that first made it).
   */
  int series(Buf key, int family) {
    int hash = hash(key.array, 0, key.size);
    int mask = slots.length - 1;
    int slot = hash & mask;
    while (slots[slot] != 0) {
      int s = slots[slot] - 1;
      if (seriesHash[s] == hash
          && labelLength[s] == key.size
          && Arrays.equals(
              labelStore.array, labelFrom[s], labelFrom[s] + key.size, key.array, 0, key.size)) {
        return s;
      }
      slot = (slot + 1) & mask;
    }
    int s = series;
    if (s == labelFrom.length) {
      growSeries();
    }
    labelFrom[s] = labelStore.size;
    labelLength[s] = key.size;
    labelStore.bytes(key.array, 0, key.size);
    seriesHash[s] = hash;
    firstSample[s] = -1;
    lastSample[s] = -1;
    firstExemplar[s] = -1;
    lastExemplar[s] = -1;
    firstHistogram[s] = -1;
    lastHistogram[s] = -1;
    seriesFamily[s] = family;
    series++;
    slots[slot] = s + 1;
    if (series * 2 > slots.length) {
      rehash();
    }
    return s;
  }

  /** A sample of series {@code s}; {@code startMillis} is 0 where the point has no start. */
  void sample(int s, long timestampMillis, long startMillis, double value) {
    if (samples == sampleNext.length) {
      int capacity = samples * 2;
      sampleTimestamp = Arrays.copyOf(sampleTimestamp, capacity);
      sampleValue = Arrays.copyOf(sampleValue, capacity);
      sampleStart = Arrays.copyOf(sampleStart, capacity);
      sampleNext = Arrays.copyOf(sampleNext, capacity);
    }
    int i = samples++;
    sampleTimestamp[i] = timestampMillis;
    sampleStart[i] = startMillis;
    sampleValue[i] = value;
    sampleNext[i] = -1;
    if (lastSample[s] < 0) {
      firstSample[s] = i;
    } else {
      sampleNext[lastSample[s]] = i;
    }
    lastSample[s] = i;
  }

  /** Where the next exemplar's labels go, as {@code Label} messages; then {@link #exemplar}. */
  Buf exemplarLabels() {
    return exemplarLabels;
  }

  /** An exemplar of series {@code s}, its labels written since {@code labelsFrom}. */
  void exemplar(int s, int labelsFrom, double value, long timestampMillis) {
    if (exemplars == exemplarNext.length) {
      int capacity = exemplars * 2;
      exemplarLabelFrom = Arrays.copyOf(exemplarLabelFrom, capacity);
      exemplarLabelLength = Arrays.copyOf(exemplarLabelLength, capacity);
      exemplarValue = Arrays.copyOf(exemplarValue, capacity);
      exemplarTimestamp = Arrays.copyOf(exemplarTimestamp, capacity);
      exemplarNext = Arrays.copyOf(exemplarNext, capacity);
    }
    int i = exemplars++;
    exemplarLabelFrom[i] = labelsFrom;
    exemplarLabelLength[i] = exemplarLabels.size - labelsFrom;
    exemplarValue[i] = value;
    exemplarTimestamp[i] = timestampMillis;
    exemplarNext[i] = -1;
    if (lastExemplar[s] < 0) {
      firstExemplar[s] = i;
    } else {
      exemplarNext[lastExemplar[s]] = i;
    }
    lastExemplar[s] = i;
  }

  /** Where the next native histogram's payload goes; then {@link #histogram}. */
  Buf histogramStore() {
    return histogramStore;
  }

  /** A native histogram of series {@code s}, its payload written since {@code from}. */
  void histogram(int s, int from, long timestampMillis, long startMillis) {
    if (histograms == histogramNext.length) {
      int capacity = histograms * 2;
      histogramFrom = Arrays.copyOf(histogramFrom, capacity);
      histogramLength = Arrays.copyOf(histogramLength, capacity);
      histogramTimestamp = Arrays.copyOf(histogramTimestamp, capacity);
      histogramStart = Arrays.copyOf(histogramStart, capacity);
      histogramNext = Arrays.copyOf(histogramNext, capacity);
    }
    int i = histograms++;
    histogramFrom[i] = from;
    histogramLength[i] = histogramStore.size - from;
    histogramTimestamp[i] = timestampMillis;
    histogramStart[i] = startMillis;
    histogramNext[i] = -1;
    if (lastHistogram[s] < 0) {
      firstHistogram[s] = i;
    } else {
      histogramNext[lastHistogram[s]] = i;
    }
    lastHistogram[s] = i;
  }

  /** Whether series {@code s} got a sample or a histogram (an exemplar alone is not sent). */
  boolean hasData(int s) {
    return firstSample[s] >= 0 || firstHistogram[s] >= 0;
  }

  /** Bytes of series {@code s} as a {@code TimeSeries} message, without its own tag and length. */
  int timeSeriesSize(int s) {
    int size = labelLength[s];
    for (int i = firstSample[s]; i >= 0; i = sampleNext[i]) {
      size += Buf.fieldSize(sampleSize(i));
    }
    for (int i = firstExemplar[s]; i >= 0; i = exemplarNext[i]) {
      size += Buf.fieldSize(exemplarSize(i));
    }
    for (int i = firstHistogram[s]; i >= 0; i = histogramNext[i]) {
      size += Buf.fieldSize(histogramSize(i));
    }
    return size;
  }

  /** Writes series {@code s} as a remote write 1.0 {@code TimeSeries} payload. */
  void writeTimeSeries(int s, Buf out) {
    out.bytes(labelStore.array, labelFrom[s], labelLength[s]);
    int n = ordered(firstSample[s], sampleNext, sampleTimestamp);
    for (int k = 0; k < n; k++) {
      int i = order[k];
      out.tag(TimeSeries.SAMPLES, Buf.LEN);
      out.varint(sampleSize(i));
      out.doubleField(Sample.VALUE, sampleValue[i]);
      out.varintField(Sample.TIMESTAMP, sampleTimestamp[i]);
    }
    n = ordered(firstExemplar[s], exemplarNext, exemplarTimestamp);
    for (int k = 0; k < n; k++) {
      int i = order[k];
      out.tag(TimeSeries.EXEMPLARS, Buf.LEN);
      out.varint(exemplarSize(i));
      out.bytes(exemplarLabels.array, exemplarLabelFrom[i], exemplarLabelLength[i]);
      out.doubleField(Exemplar.VALUE, exemplarValue[i]);
      out.varintField(Exemplar.TIMESTAMP, exemplarTimestamp[i]);
    }
    n = ordered(firstHistogram[s], histogramNext, histogramTimestamp);
    for (int k = 0; k < n; k++) {
      int i = order[k];
      out.field(TimeSeries.HISTOGRAMS, histogramStore.array, histogramFrom[i], histogramLength[i]);
    }
  }

  /**
   * Writes series {@code s} as a remote write 2.0 {@code TimeSeries} payload into {@code out}, its
   * label names and values, help text and unit as references into {@code symbols}.
   */
  void writeTimeSeriesV2(int s, Buf out, Symbols symbols) {
    int n = refs(labelStore.array, labelFrom[s], labelLength[s], symbols, 0);
    writeRefs(out, TimeSeriesV2.LABELS_REFS, n);
    int count = ordered(firstSample[s], sampleNext, sampleTimestamp);
    for (int k = 0; k < count; k++) {
      int i = order[k];
      int size =
          Buf.doubleFieldSize(sampleValue[i])
              + Buf.varintFieldSize(sampleTimestamp[i])
              + Buf.varintFieldSize(sampleStart[i]);
      out.tag(TimeSeriesV2.SAMPLES, Buf.LEN);
      out.varint(size);
      out.doubleField(Sample.VALUE, sampleValue[i]);
      out.varintField(Sample.TIMESTAMP, sampleTimestamp[i]);
      out.varintField(Sample.START_TIMESTAMP, sampleStart[i]);
    }
    count = ordered(firstHistogram[s], histogramNext, histogramTimestamp);
    for (int k = 0; k < count; k++) {
      int i = order[k];
      long start = histogramStart[i];
      int extra = start != 0 ? 2 + Buf.varintSize(start) : 0;
      out.tag(TimeSeriesV2.HISTOGRAMS, Buf.LEN);
      out.varint(histogramLength[i] + extra);
      out.bytes(histogramStore.array, histogramFrom[i], histogramLength[i]);
      if (start != 0) {
        // Field 17 takes a two-byte tag.
        out.tag(Histogram.START_TIMESTAMP, Buf.VARINT);
        out.varint(start);
      }
    }
    count = ordered(firstExemplar[s], exemplarNext, exemplarTimestamp);
    for (int k = 0; k < count; k++) {
      int i = order[k];
      int refCount =
          refs(exemplarLabels.array, exemplarLabelFrom[i], exemplarLabelLength[i], symbols, 0);
      int refsSize = packedSize(refCount);
      int size =
          (refCount > 0 ? Buf.fieldSize(refsSize) : 0)
              + Buf.doubleFieldSize(exemplarValue[i])
              + Buf.varintFieldSize(exemplarTimestamp[i]);
      out.tag(TimeSeriesV2.EXEMPLARS, Buf.LEN);
      out.varint(size);
      writeRefs(out, Exemplar.LABELS, refCount);
      out.doubleField(Exemplar.VALUE, exemplarValue[i]);
      out.varintField(Exemplar.TIMESTAMP, exemplarTimestamp[i]);
    }
    int f = seriesFamily[s];
    int help = symbols.ref(familyText.array, helpFrom[f], helpLength[f]);
    int unit = symbols.ref(familyText.array, unitFrom[f], unitLength[f]);
    int size =
        Buf.varintFieldSize(familyType[f]) + Buf.varintFieldSize(help) + Buf.varintFieldSize(unit);
    out.tag(TimeSeriesV2.METADATA, Buf.LEN);
    out.varint(size);
    out.varintField(MetadataV2.TYPE, familyType[f]);
    out.varintField(MetadataV2.HELP_REF, help);
    out.varintField(MetadataV2.UNIT_REF, unit);
  }

  /**
   * Reads the {@code Label} messages in {@code b[from, from + length)} into {@link #refs} from
   * index {@code at} on, name and value references in turn; returns the count of references.
   */
  private int refs(byte[] b, int from, int length, Symbols symbols, int at) {
    int p = from;
    int end = from + length;
    int n = at;
    while (p < end) {
      p++; // the Label field's one-byte tag
      long prefix = readVarint(b, p);
      p = (int) (prefix >>> 32);
      int labelEnd = p + (int) prefix;
      int nameFrom = p;
      int nameLength = 0;
      int valueFrom = p;
      int valueLength = 0;
      while (p < labelEnd) {
        int tag = b[p++];
        long len = readVarint(b, p);
        p = (int) (len >>> 32);
        if (tag == ((RemoteWriteFields.Label.NAME << 3) | Buf.LEN)) {
          nameFrom = p;
          nameLength = (int) len;
        } else {
          valueFrom = p;
          valueLength = (int) len;
        }
        p += (int) len;
      }
      if (n + 2 > refs.length) {
        refs = Arrays.copyOf(refs, Math.max(n + 2, refs.length * 2));
      }
      refs[n++] = symbols.ref(b, nameFrom, nameLength);
      refs[n++] = symbols.ref(b, valueFrom, valueLength);
    }
    return n;
  }

  private int packedSize(int n) {
    int size = 0;
    for (int i = 0; i < n; i++) {
      size += Buf.varintSize(refs[i]);
    }
    return size;
  }

  private void writeRefs(Buf out, int field, int n) {
    if (n == 0) {
      return;
    }
    out.tag(field, Buf.LEN);
    out.varint(packedSize(n));
    for (int i = 0; i < n; i++) {
      out.varint(refs[i]);
    }
  }

  /**
   * A varint we wrote at {@code b[p]}: its value in the low 32 bits, the position after it above.
   */
  private static long readVarint(byte[] b, int p) {
    int value = 0;
    int shift = 0;
    while (true) {
      byte x = b[p++];
      value |= (x & 0x7F) << shift;
      if (x >= 0) {
        return ((long) p << 32) | (value & 0xFFFFFFFFL);
      }
      shift += 7;
    }
  }

  /** Samples written for series {@code s} (stale markers included). */
  int sampleCount(int s) {
    int n = 0;
    for (int i = firstSample[s]; i >= 0; i = sampleNext[i]) {
      n++;
    }
    return n;
  }

  int histogramCount(int s) {
    int n = 0;
    for (int i = firstHistogram[s]; i >= 0; i = histogramNext[i]) {
      n++;
    }
    return n;
  }

  private int sampleSize(int i) {
    return Buf.doubleFieldSize(sampleValue[i]) + Buf.varintFieldSize(sampleTimestamp[i]);
  }

  private int exemplarSize(int i) {
    return exemplarLabelLength[i]
        + Buf.doubleFieldSize(exemplarValue[i])
        + Buf.varintFieldSize(exemplarTimestamp[i]);
  }

  private int histogramSize(int i) {
    return histogramLength[i];
  }

  /**
   * Puts the chain starting at {@code first} into {@link #order}, sorted by timestamp; entries of
   * equal timestamps keep the order they came in. Returns how many.
   */
  private int ordered(int first, int[] next, long[] timestamps) {
    int n = 0;
    for (int i = first; i >= 0; i = next[i]) {
      if (n == order.length) {
        order = Arrays.copyOf(order, n * 2);
      }
      int j = n - 1;
      long t = timestamps[i];
      while (j >= 0 && timestamps[order[j]] > t) {
        order[j + 1] = order[j];
        j--;
      }
      order[j + 1] = i;
      n++;
    }
    return n;
  }

  private void growSeries() {
    int capacity = series * 2;
    labelFrom = Arrays.copyOf(labelFrom, capacity);
    labelLength = Arrays.copyOf(labelLength, capacity);
    seriesHash = Arrays.copyOf(seriesHash, capacity);
    seriesFamily = Arrays.copyOf(seriesFamily, capacity);
    firstSample = Arrays.copyOf(firstSample, capacity);
    lastSample = Arrays.copyOf(lastSample, capacity);
    firstExemplar = Arrays.copyOf(firstExemplar, capacity);
    lastExemplar = Arrays.copyOf(lastExemplar, capacity);
    firstHistogram = Arrays.copyOf(firstHistogram, capacity);
    lastHistogram = Arrays.copyOf(lastHistogram, capacity);
  }

  private void rehash() {
    int[] grown = new int[slots.length * 2];
    int mask = grown.length - 1;
    for (int s = 0; s < series; s++) {
      int slot = seriesHash[s] & mask;
      while (grown[slot] != 0) {
        slot = (slot + 1) & mask;
      }
      grown[slot] = s + 1;
    }
    slots = grown;
  }

  /**
   * A hash of bytes, eight at a time: series keys run to hundreds of bytes, and a batch makes
   * thousands of series (symbols use it too).
   */
  static int hash(byte[] bytes, int from, int length) {
    long h = length * MIX;
    int i = from;
    int end = from + length;
    for (; i + Long.BYTES <= end; i += Long.BYTES) {
      h = (h ^ (long) LONGS.get(bytes, i)) * MIX;
      h ^= h >>> 29;
    }
    long tail = 0;
    for (; i < end; i++) {
      tail = (tail << 8) | (bytes[i] & 0xFF);
    }
    h = (h ^ tail) * MIX;
    return (int) (h ^ (h >>> 32));
  }
}
