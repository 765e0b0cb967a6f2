package dev.sluice.connector.spanmetrics;

import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.ResourceView;
import dev.sluice.pdata.view.TextView;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The resource of the block a visit is in, read once per block: its attributes in {@link
 * ValueCodec} form ({@link #attributes}: key, value, key, value...), its identity ({@link
 * #identity}: the entries that tell resources apart, sorted by key, so that the order they came in
 * does not matter), and where its service name and each dimension's value are. Reused block after
 * block; allocates only to grow.
 */
final class ResourceBlock {
  private static final byte[] SERVICE_NAME =
      KeyLayout.SERVICE_NAME.getBytes(StandardCharsets.UTF_8);

  final KeyBuffer attributes = new KeyBuffer();
  final KeyBuffer identity = new KeyBuffer();

  private final byte[][] dimensionNames;
  private final byte[][] keyAttributes;
  private final AttributeCursor cursor = new AttributeCursor();
  private final ValueCodec codec = new ValueCodec();

  // Entry i's key starts at entryKey[i] in `attributes`, its value runs from entryValue[i] to
  // entryEnd[i].
  private int[] entryKey = new int[16];
  private int[] entryValue = new int[16];
  private int[] entryEnd = new int[16];
  private int[] selected = new int[16];
  private int entries;
  private int serviceValue;
  private final int[] dimensionEntry;

  /**
   * @param dimensionNames the dimensions looked up in resources, by index
   * @param keyAttributes the attributes that make the identity; null for all
   */
  ResourceBlock(byte[][] dimensionNames, byte[][] keyAttributes) {
    this.dimensionNames = dimensionNames;
    this.keyAttributes = keyAttributes;
    this.dimensionEntry = new int[dimensionNames.length];
  }

  /**
   * Reads {@code resource}; false when it has no {@code service.name} (its spans are not counted,
   * as in the Collector).
   */
  boolean read(ResourceView resource) {
    resource.attributes(cursor);
    attributes.reset();
    entries = 0;
    serviceValue = -1;
    Arrays.fill(dimensionEntry, -1);
    while (cursor.next()) {
      if (entries == entryKey.length) {
        entryKey = Arrays.copyOf(entryKey, entries * 2);
        entryValue = Arrays.copyOf(entryValue, entries * 2);
        entryEnd = Arrays.copyOf(entryEnd, entries * 2);
        selected = Arrays.copyOf(selected, entries * 2);
      }
      TextView name = cursor.key();
      entryKey[entries] = attributes.length;
      ValueCodec.writeText(name, attributes);
      int value = attributes.length;
      entryValue[entries] = value;
      codec.write(cursor.value(), attributes);
      entryEnd[entries] = attributes.length;
      // The first of repeated keys counts, as a lookup in the Collector's map finds it.
      if (serviceValue < 0 && name.contentEquals(SERVICE_NAME)) {
        serviceValue = value;
      }
      for (int d = 0; d < dimensionEntry.length; d++) {
        if (dimensionEntry[d] < 0 && name.contentEquals(dimensionNames[d])) {
          dimensionEntry[d] = entries;
        }
      }
      entries++;
    }
    if (serviceValue < 0) {
      return false;
    }
    writeIdentity();
    return true;
  }

  private void writeIdentity() {
    identity.reset();
    int count = 0;
    for (int e = 0; e < entries; e++) {
      if (keyAttributes == null || isKeyAttribute(e)) {
        selected[count++] = e;
      }
    }
    // Insertion sort by key: a resource has a few dozen attributes at most.
    for (int i = 1; i < count; i++) {
      int e = selected[i];
      int j = i - 1;
      while (j >= 0 && compareKeys(selected[j], e) > 0) {
        selected[j + 1] = selected[j];
        j--;
      }
      selected[j + 1] = e;
    }
    for (int i = 0; i < count; i++) {
      int e = selected[i];
      identity.put(attributes.bytes, entryKey[e], entryEnd[e] - entryKey[e]);
    }
  }

  /** Writes the service name as a string value: one that is not a string is empty, as in Go. */
  void writeServiceName(KeyBuffer out) {
    byte[] b = attributes.bytes;
    if (b[serviceValue] == ValueCodec.Tag.STRING) {
      out.put(b, serviceValue, ValueCodec.skip(b, serviceValue) - serviceValue);
    } else {
      out.put(ValueCodec.Tag.STRING);
      out.putLength(0);
    }
  }

  /** Writes the value of dimension {@code name} when the resource has it; false when not. */
  boolean writeDimension(int name, KeyBuffer out) {
    int entry = dimensionEntry[name];
    if (entry < 0) {
      return false;
    }
    out.put(attributes.bytes, entryValue[entry], entryEnd[entry] - entryValue[entry]);
    return true;
  }

  private boolean isKeyAttribute(int entry) {
    long prefix = ValueCodec.readLength(attributes.bytes, entryKey[entry]);
    int from = (int) (prefix >>> 32);
    int length = (int) prefix;
    for (byte[] name : keyAttributes) {
      if (length == name.length
          && Arrays.equals(attributes.bytes, from, from + length, name, 0, length)) {
        return true;
      }
    }
    return false;
  }

  private int compareKeys(int a, int b) {
    long pa = ValueCodec.readLength(attributes.bytes, entryKey[a]);
    long pb = ValueCodec.readLength(attributes.bytes, entryKey[b]);
    int fa = (int) (pa >>> 32);
    int fb = (int) (pb >>> 32);
    return Arrays.compareUnsigned(
        attributes.bytes, fa, fa + (int) pa, attributes.bytes, fb, fb + (int) pb);
  }
}
