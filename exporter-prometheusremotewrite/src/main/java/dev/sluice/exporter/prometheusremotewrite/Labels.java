package dev.sluice.exporter.prometheusremotewrite;

import dev.sluice.exporter.prometheusremotewrite.RemoteWriteFields.Label;
import java.util.Arrays;

/**
 * The labels of one data point under construction: names (UTF-8, shared arrays from the name
 * caches, never copied) and values (copied into {@link #values}). The Collector builds them in a
 * map where a later write wins; {@link #set} and {@link #putIfAbsent} keep its order of writes.
 * Once complete, {@link #seal} orders them by name, as Prometheus wants a series' labels, and
 * encodes them; {@link #encode} writes them with the series' own labels ({@code __name__}, {@code
 * le}, {@code quantile}) merged in.
 */
final class Labels {
  /** The value bytes of every label here; a replaced value's bytes stay until {@link #clear}. */
  final Buf values = new Buf(256);

  // What seal() wrote: every label as a Label message, label i at [labelStart[i], labelStart[i+1]).
  private final Buf encoded = new Buf(256);
  private int[] labelStart = new int[17];

  private byte[][] names = new byte[16][];
  private int[] valueFrom = new int[16];
  private int[] valueLength = new int[16];
  private int count;

  void clear() {
    count = 0;
    values.reset();
  }

  int count() {
    return count;
  }

  byte[] name(int i) {
    return names[i];
  }

  int valueFrom(int i) {
    return valueFrom[i];
  }

  int valueLength(int i) {
    return valueLength[i];
  }

  int indexOf(byte[] name) {
    for (int i = 0; i < count; i++) {
      if (names[i] == name || Arrays.equals(names[i], name)) {
        return i;
      }
    }
    return -1;
  }

  /** The label {@code name} is the value written into {@link #values} since {@code from}. */
  void set(byte[] name, int from) {
    int i = indexOf(name);
    if (i < 0) {
      i = add(name);
    }
    valueFrom[i] = from;
    valueLength[i] = values.size - from;
  }

  /** As {@link #set}, unless a label {@code name} is there already (its value then stays). */
  void putIfAbsent(byte[] name, byte[] value) {
    if (indexOf(name) < 0) {
      int from = values.size;
      values.bytes(value, 0, value.length);
      set(name, from);
    }
  }

  /**
   * Attribute keys that translate to one label name make one label, their values joined with {@code
   * ;} in key order; a value equal to the one there already is not repeated. The value is the one
   * written into {@link #values} since {@code from}.
   */
  void join(int i, int from) {
    int length = values.size - from;
    if (length == valueLength[i]
        && Arrays.equals(
            values.array, valueFrom[i], valueFrom[i] + length, values.array, from, from + length)) {
      values.size = from;
      return;
    }
    int joined = valueLength[i] + 1 + length;
    values.ensure(joined);
    byte[] b = values.array;
    int at = values.size;
    System.arraycopy(b, valueFrom[i], b, at, valueLength[i]);
    b[at + valueLength[i]] = ';';
    System.arraycopy(b, from, b, at + valueLength[i] + 1, length);
    // The new value was written at `from`; the joined one goes after it and replaces both.
    values.size = at + joined;
    valueFrom[i] = at;
    valueLength[i] = joined;
  }

  private int add(byte[] name) {
    if (count == names.length) {
      int capacity = count * 2;
      names = Arrays.copyOf(names, capacity);
      valueFrom = Arrays.copyOf(valueFrom, capacity);
      valueLength = Arrays.copyOf(valueLength, capacity);
    }
    names[count] = name;
    return count++;
  }

  /** Orders the labels by name, bytewise as Go compares strings. */
  private void sort() {
    for (int i = 1; i < count; i++) {
      byte[] name = names[i];
      int from = valueFrom[i];
      int length = valueLength[i];
      int j = i - 1;
      while (j >= 0 && Arrays.compareUnsigned(names[j], name) > 0) {
        names[j + 1] = names[j];
        valueFrom[j + 1] = valueFrom[j];
        valueLength[j + 1] = valueLength[j];
        j--;
      }
      names[j + 1] = name;
      valueFrom[j + 1] = from;
      valueLength[j + 1] = length;
    }
  }

  /**
   * Orders the labels by name and encodes them once, as {@code Label} messages, for the series of
   * the point to share: {@link #encode} then copies runs of these bytes around the series' own
   * labels instead of writing each label again.
   */
  void seal() {
    sort();
    encoded.reset();
    if (labelStart.length < count + 1) {
      labelStart = new int[Math.max(count + 1, labelStart.length * 2)];
    }
    for (int i = 0; i < count; i++) {
      labelStart[i] = encoded.size;
      writeLabel(encoded, names[i], values.array, valueFrom[i], valueLength[i]);
    }
    labelStart[count] = encoded.size;
  }

  /**
   * Writes the labels {@link #seal} encoded and {@code extra} (the series' own labels, sorted by
   * name; they win over a label of the same name) into {@code out}, in name order, as {@code Label}
   * messages, each a {@code TimeSeries.labels} field.
   */
  void encode(Extras extra, Buf out) {
    int i = 0;
    for (int e = 0; e < extra.count; e++) {
      byte[] name = extra.names[e];
      // The labels before this extra go as one run of bytes.
      int run = i;
      while (run < count && Arrays.compareUnsigned(names[run], name) < 0) {
        run++;
      }
      copy(i, run, out);
      byte[] value = extra.values[e];
      writeLabel(out, name, value, 0, value.length);
      i = run < count && Arrays.equals(names[run], name) ? run + 1 : run;
    }
    copy(i, count, out);
  }

  /** The sealed bytes of labels {@code [from, to)}. */
  private void copy(int from, int to, Buf out) {
    if (from < to) {
      out.bytes(encoded.array, labelStart[from], labelStart[to] - labelStart[from]);
    }
  }

  static void writeLabel(Buf out, byte[] name, byte[] value, int from, int length) {
    writeLabel(out, name, 0, name.length, value, from, length);
  }

  /**
   * Writes a {@code Label} message as field 1, which is {@code labels} in both {@code TimeSeries}
   * and {@code Exemplar}; an empty value is left out, as proto3 writes it.
   */
  static void writeLabel(
      Buf out,
      byte[] name,
      int nameFrom,
      int nameLength,
      byte[] value,
      int valueFrom,
      int valueLength) {
    int payload = Buf.fieldSize(nameLength) + (valueLength > 0 ? Buf.fieldSize(valueLength) : 0);
    out.tag(RemoteWriteFields.TimeSeries.LABELS, Buf.LEN);
    out.varint(payload);
    out.field(Label.NAME, name, nameFrom, nameLength);
    if (valueLength > 0) {
      out.field(Label.VALUE, value, valueFrom, valueLength);
    }
  }

  /** A series' own labels, at most a few, sorted by name by the caller. */
  static final class Extras {
    final byte[][] names = new byte[2][];
    final byte[][] values = new byte[2][];
    int count;

    Extras name(byte[] metricName) {
      names[0] = NAME;
      values[0] = metricName;
      count = 1;
      return this;
    }

    /** {@code __name__} and one more label, which sorts after it ({@code le}, {@code quantile}). */
    Extras nameAnd(byte[] metricName, byte[] label, byte[] value) {
      name(metricName);
      names[1] = label;
      values[1] = value;
      count = 2;
      return this;
    }

    static final byte[] NAME = {'_', '_', 'n', 'a', 'm', 'e', '_', '_'};
  }
}
