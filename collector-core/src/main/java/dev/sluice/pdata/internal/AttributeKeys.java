package dev.sluice.pdata.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The keys that a list of actions names (the attribute keys, {@code from_attribute} sources and
 * extract targets), for telling at a glance whether an attribute entry is one of them: most entries
 * are turned away by their key's length alone, the rest by their first byte before a full compare.
 * Immutable.
 */
public final class AttributeKeys {
  /** Key lengths below this are looked up in {@link #lengthMask}; longer ones are all compared. */
  private static final int MASKED_LENGTHS = Long.SIZE;

  private final byte[][] keys;
  // Bit n set: some key has n bytes (n below MASKED_LENGTHS).
  private final long lengthMask;
  private final boolean longKeys;

  public AttributeKeys(byte[][] keys) {
    this.keys = keys;
    long mask = 0;
    boolean anyLong = false;
    for (byte[] key : keys) {
      if (key.length < MASKED_LENGTHS) {
        mask |= 1L << key.length;
      } else {
        anyLong = true;
      }
    }
    this.lengthMask = mask;
    this.longKeys = anyLong;
  }

  /** The distinct byte strings among {@code constants} at the numbers {@code ids}. */
  public static AttributeKeys of(byte[][] constants, int[] ids) {
    List<byte[]> distinct = new ArrayList<>();
    for (int id : ids) {
      byte[] key = constants[id];
      boolean seen = false;
      for (byte[] other : distinct) {
        seen |= Arrays.equals(other, key);
      }
      if (!seen) {
        distinct.add(key);
      }
    }
    return new AttributeKeys(distinct.toArray(new byte[0][]));
  }

  /**
   * Keys already distinct, in their order: {@link #indexOf} answers with a position in {@code
   * keys}.
   */
  static AttributeKeys ofDistinct(byte[][] keys) {
    return new AttributeKeys(keys);
  }

  /** Whether some key is {@code length} bytes long. */
  boolean mayHaveLength(int length) {
    return length < MASKED_LENGTHS ? (lengthMask & (1L << length)) != 0 : longKeys;
  }

  /** Whether {@code bytes[offset, offset + length)} is one of the keys. */
  boolean contains(byte[] bytes, int offset, int length) {
    return indexOf(bytes, offset, length) >= 0;
  }

  /** The position of the key {@code bytes[offset, offset + length)} among the keys, or -1. */
  int indexOf(byte[] bytes, int offset, int length) {
    if (length < MASKED_LENGTHS ? (lengthMask & (1L << length)) == 0 : !longKeys) {
      return -1;
    }
    for (int k = 0; k < keys.length; k++) {
      byte[] key = keys[k];
      if (key.length == length
          && (length == 0 || key[0] == bytes[offset])
          && Arrays.equals(key, 0, length, bytes, offset, offset + length)) {
        return k;
      }
    }
    return -1;
  }
}
