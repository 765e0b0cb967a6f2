package dev.sluice.component.telemetry;

import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The collector's own metrics, written in the Prometheus text format under the OpenTelemetry
 * Collector's names ({@code otelcol_receiver_accepted_spans_total}, ...) so that existing
 * dashboards work. Counters are {@link LongAdder}s: updating one on the data path costs no lock.
 */
public final class MetricRegistry {
  private final Map<String, Family> families = new ConcurrentHashMap<>();

  /** A monotonically increasing count. */
  public static final class Counter {
    private final LongAdder value = new LongAdder();

    public void add(long amount) {
      value.add(amount);
    }

    public void increment() {
      value.increment();
    }

    public long get() {
      return value.sum();
    }
  }

  /** Counts of observations per bucket, with their sum. */
  public static final class Histogram {
    private final double[] bounds;
    private final LongAdder[] buckets;
    private final DoubleAdder sum = new DoubleAdder();
    private final LongAdder count = new LongAdder();

    Histogram(double[] bounds) {
      this.bounds = bounds.clone();
      this.buckets = new LongAdder[bounds.length + 1];
      for (int i = 0; i < buckets.length; i++) {
        buckets[i] = new LongAdder();
      }
    }

    public void record(double value) {
      int i = 0;
      while (i < bounds.length && value > bounds[i]) {
        i++;
      }
      buckets[i].increment();
      sum.add(value);
      count.increment();
    }

    public long count() {
      return count.sum();
    }
  }

  private enum Type {
    COUNTER("counter"),
    GAUGE("gauge"),
    HISTOGRAM("histogram");

    final String text;

    Type(String text) {
      this.text = text;
    }
  }

  private static final class Family {
    final String name;
    final String help;
    final Type type;
    final Map<String, Object> series = new ConcurrentHashMap<>();

    Family(String name, String help, Type type) {
      this.name = name;
      this.help = help;
      this.type = type;
    }
  }

  /**
   * The counter with this name and labels, created on first use. Labels are name/value pairs:
   * {@code counter("otelcol_receiver_accepted_spans", "...", "receiver", "otlp")}. Prometheus
   * output adds {@code _total} to the name.
   */
  public Counter counter(String name, String help, String... labels) {
    return (Counter)
        family(name, help, Type.COUNTER)
            .series
            .computeIfAbsent(labelText(labels), k -> new Counter());
  }

  /** A gauge read from {@code value} whenever the metrics are written. */
  public void gauge(String name, String help, LongSupplier value, String... labels) {
    family(name, help, Type.GAUGE).series.put(labelText(labels), value);
  }

  /** The histogram with this name and labels, with the given upper bucket bounds. */
  public Histogram histogram(String name, String help, double[] bounds, String... labels) {
    return (Histogram)
        family(name, help, Type.HISTOGRAM)
            .series
            .computeIfAbsent(labelText(labels), k -> new Histogram(bounds));
  }

  private Family family(String name, String help, Type type) {
    Family family = families.computeIfAbsent(name, n -> new Family(n, help, type));
    if (family.type != type) {
      throw new IllegalArgumentException(
          name + " is a " + family.type.text + ", not a " + type.text);
    }
    return family;
  }

  /** Writes every metric in the Prometheus text exposition format (version 0.0.4). */
  public void writePrometheus(Writer out) throws IOException {
    List<String> names = new ArrayList<>(families.keySet());
    names.sort(null);
    for (String name : names) {
      Family family = families.get(name);
      String exposed = family.type == Type.COUNTER ? name + "_total" : name;
      out.write("# HELP " + exposed + " " + family.help + "\n");
      out.write("# TYPE " + exposed + " " + family.type.text + "\n");
      List<String> labelSets = new ArrayList<>(family.series.keySet());
      labelSets.sort(null);
      for (String labels : labelSets) {
        Object series = family.series.get(labels);
        switch (family.type) {
          case COUNTER:
            sample(out, exposed, labels, Long.toString(((Counter) series).get()));
            break;
          case GAUGE:
            sample(out, exposed, labels, Long.toString(((LongSupplier) series).getAsLong()));
            break;
          default:
            writeHistogram(out, exposed, labels, (Histogram) series);
        }
      }
    }
  }

  private static void writeHistogram(Writer out, String name, String labels, Histogram h)
      throws IOException {
    long cumulative = 0;
    for (int i = 0; i < h.buckets.length; i++) {
      cumulative += h.buckets[i].sum();
      String le = i < h.bounds.length ? formatDouble(h.bounds[i]) : "+Inf";
      String withLe = labels.isEmpty() ? "le=\"" + le + "\"" : labels + ",le=\"" + le + "\"";
      sample(out, name + "_bucket", withLe, Long.toString(cumulative));
    }
    sample(out, name + "_sum", labels, formatDouble(h.sum.sum()));
    sample(out, name + "_count", labels, Long.toString(h.count.sum()));
  }

  private static String formatDouble(double value) {
    return value == Math.rint(value) && Math.abs(value) < 1e15
        ? Long.toString((long) value)
        : Double.toString(value);
  }

  private static void sample(Writer out, String name, String labels, String value)
      throws IOException {
    out.write(name);
    if (!labels.isEmpty()) {
      out.write('{');
      out.write(labels);
      out.write('}');
    }
    out.write(' ');
    out.write(value);
    out.write('\n');
  }

  private static String labelText(String... labels) {
    if (labels.length % 2 != 0) {
      throw new IllegalArgumentException("labels come in name/value pairs");
    }
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < labels.length; i += 2) {
      if (i > 0) {
        text.append(',');
      }
      text.append(labels[i]).append("=\"");
      String value = labels[i + 1];
      for (int c = 0; c < value.length(); c++) {
        char ch = value.charAt(c);
        if (ch == '\\' || ch == '"') {
          text.append('\\').append(ch);
        } else if (ch == '\n') {
          text.append("\\n");
        } else {
          text.append(ch);
        }
      }
      text.append('"');
    }
    return text.toString();
  }
}
