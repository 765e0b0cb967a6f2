package dev.sluice.exporter.prometheusremotewrite;

import dev.sluice.pdata.view.AnyValueView;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.TextView;
import dev.sluice.pdata.view.ValueText;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Attributes on their way to labels: keys and values (as Go's {@code AsString} writes them) copied
 * into one buffer, then ordered by key, since the Collector joins the values of keys that translate
 * to one label name in key order. Owned by one thread; kept between points.
 */
final class Pending {
  private static final byte[] TRUE = "true".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] FALSE = "false".getBytes(StandardCharsets.US_ASCII);

  final Buf bytes = new Buf(512);
  private int[] keyFrom = new int[16];
  private int[] keyLength = new int[16];
  private int[] valueFrom = new int[16];
  private int[] valueLength = new int[16];
  private int count;

  void clear() {
    count = 0;
    bytes.reset();
  }

  int count() {
    return count;
  }

  int keyFrom(int i) {
    return keyFrom[i];
  }

  int keyLength(int i) {
    return keyLength[i];
  }

  int valueFrom(int i) {
    return valueFrom[i];
  }

  int valueLength(int i) {
    return valueLength[i];
  }

  /**
   * Adds the cursor's current attribute unless its text is empty (the Collector leaves such
   * attributes out of the labels).
   */
  void addIfNotEmpty(AttributeCursor attribute) {
    int mark = bytes.size;
    TextView key = attribute.key();
    copy(key);
    int valueAt = bytes.size;
    writeGoString(attribute.value(), bytes);
    if (bytes.size == valueAt) {
      bytes.size = mark;
      return;
    }
    add(mark, key.length(), valueAt, bytes.size - valueAt);
  }

  /** Adds entry {@code i} of {@code other}. */
  void addFrom(Pending other, int i) {
    int mark = bytes.size;
    bytes.bytes(other.bytes.array, other.keyFrom[i], other.keyLength[i]);
    int valueAt = bytes.size;
    bytes.bytes(other.bytes.array, other.valueFrom[i], other.valueLength[i]);
    add(mark, other.keyLength[i], valueAt, other.valueLength[i]);
  }

  /** Whether an entry's key is {@code key}'s text. */
  boolean hasKey(TextView key) {
    for (int i = 0; i < count; i++) {
      if (key.contentEquals(bytes.array, keyFrom[i], keyLength[i])) {
        return true;
      }
    }
    return false;
  }

  /** Orders the entries by key, bytewise; equal keys keep their order. */
  void sortByKey() {
    byte[] b = bytes.array;
    for (int i = 1; i < count; i++) {
      int kf = keyFrom[i];
      int kl = keyLength[i];
      int vf = valueFrom[i];
      int vl = valueLength[i];
      int j = i - 1;
      while (j >= 0
          && Arrays.compareUnsigned(b, keyFrom[j], keyFrom[j] + keyLength[j], b, kf, kf + kl) > 0) {
        keyFrom[j + 1] = keyFrom[j];
        keyLength[j + 1] = keyLength[j];
        valueFrom[j + 1] = valueFrom[j];
        valueLength[j + 1] = valueLength[j];
        j--;
      }
      keyFrom[j + 1] = kf;
      keyLength[j + 1] = kl;
      valueFrom[j + 1] = vf;
      valueLength[j + 1] = vl;
    }
  }

  private void copy(TextView text) {
    bytes.ensure(text.length());
    text.copyTo(bytes.array, bytes.size);
    bytes.size += text.length();
  }

  private void add(int kf, int kl, int vf, int vl) {
    if (count == keyFrom.length) {
      int capacity = count * 2;
      keyFrom = Arrays.copyOf(keyFrom, capacity);
      keyLength = Arrays.copyOf(keyLength, capacity);
      valueFrom = Arrays.copyOf(valueFrom, capacity);
      valueLength = Arrays.copyOf(valueLength, capacity);
    }
    keyFrom[count] = kf;
    keyLength[count] = kl;
    valueFrom[count] = vf;
    valueLength[count] = vl;
    count++;
  }

  /**
   * Writes the value as Go's {@code AsString} does: strings, ints and bools here without
   * allocating, the rarer types through {@link ValueText#goString}.
   */
  static void writeGoString(AnyValueView value, Buf out) {
    switch (value.type()) {
      case STRING -> {
        TextView text = value.stringValue();
        out.ensure(text.length());
        text.copyTo(out.array, out.size);
        out.size += text.length();
      }
      case INT -> {
        out.ensure(ValueText.DECIMAL_MAX_BYTES);
        out.size = ValueText.decimal(value.intValue(), out.array, out.size);
      }
      case BOOL -> {
        byte[] text = value.boolValue() ? TRUE : FALSE;
        out.bytes(text, 0, text.length);
      }
      default -> {
        byte[] text = ValueText.goString(value).getBytes(StandardCharsets.UTF_8);
        out.bytes(text, 0, text.length);
      }
    }
  }
}
