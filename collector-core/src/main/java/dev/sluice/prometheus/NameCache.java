package dev.sluice.prometheus;

import dev.sluice.pdata.view.TextView;
import java.util.Arrays;

/**
 * A bounded map from a key of bytes to a translated name, for {@link MetricNames} and {@link
 * LabelNames}. The caller writes the key into the cache's reusable scratch array ({@link #newKey},
 * {@link #append}), looks it up ({@link #find}) without allocating, and on a miss stores the name
 * ({@link #put}), which copies the key. When {@code maxEntries} names are held the next store
 * clears the map first. Keys longer than {@link #MAX_KEY_BYTES} are never stored, so the map holds
 * at most {@code maxEntries x MAX_KEY_BYTES} bytes of keys.
 *
 * <p>Text goes in as UTF-8. A view's text is valid UTF-8; a {@code String}'s lone surrogates are
 * written as the three bytes a surrogate code point would take, which valid UTF-8 never holds, so
 * two different texts never make the same key. {@link #SEPARATOR} (never a byte of UTF-8) divides a
 * key's fields.
 *
 * <p>Not thread-safe: one per owner.
 */
final class NameCache {
  /** Names held before the map is cleared, unless the owner says otherwise. */
  static final int DEFAULT_MAX_ENTRIES = 4096;

  /** Longer keys are translated each time, not kept: a bound on the memory held. */
  static final int MAX_KEY_BYTES = 1024;

  /** A byte that UTF-8 never holds: divides the fields of a key. */
  static final int SEPARATOR = 0xFF;

  private static final int INITIAL_KEY_BYTES = 128;
  private static final int HASH_MULTIPLIER = 31;
  private static final int MIX = 0x85EBCA6B;

  private final int maxEntries;
  private final int mask;
  private final byte[][] keys;
  private final int[] hashes;
  private final String[] values;
  private int size;

  private byte[] key = new byte[INITIAL_KEY_BYTES];
  private int keyLength;
  private int keyHash;

  NameCache(int maxEntries) {
    if (maxEntries < 1) {
      throw new IllegalArgumentException("a name cache holds at least one name: " + maxEntries);
    }
    this.maxEntries = maxEntries;
    // At most half full, so a probe always ends at an empty slot.
    int capacity = Integer.highestOneBit(2 * maxEntries - 1) << 1;
    this.mask = capacity - 1;
    this.keys = new byte[capacity][];
    this.hashes = new int[capacity];
    this.values = new String[capacity];
  }

  /** Starts a new key in the scratch array. */
  NameCache newKey() {
    keyLength = 0;
    return this;
  }

  NameCache append(TextView text) {
    ensureRoom(text.length());
    keyLength += text.copyTo(key, keyLength);
    return this;
  }

  NameCache append(byte[] utf8, int offset, int length) {
    ensureRoom(length);
    System.arraycopy(utf8, offset, key, keyLength, length);
    keyLength += length;
    return this;
  }

  NameCache append(CharSequence text) {
    int count = text.length();
    ensureRoom(3 * count);
    for (int i = 0; i < count; i++) {
      char c = text.charAt(i);
      if (c < 0x80) {
        key[keyLength++] = (byte) c;
      } else if (c < 0x800) {
        key[keyLength++] = (byte) (0xC0 | (c >>> 6));
        key[keyLength++] = (byte) (0x80 | (c & 0x3F));
      } else if (Character.isHighSurrogate(c)
          && i + 1 < count
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        int codePoint = Character.toCodePoint(c, text.charAt(++i));
        key[keyLength++] = (byte) (0xF0 | (codePoint >>> 18));
        key[keyLength++] = (byte) (0x80 | ((codePoint >>> 12) & 0x3F));
        key[keyLength++] = (byte) (0x80 | ((codePoint >>> 6) & 0x3F));
        key[keyLength++] = (byte) (0x80 | (codePoint & 0x3F));
      } else {
        // Other BMP characters, and lone surrogates (see the class comment).
        key[keyLength++] = (byte) (0xE0 | (c >>> 12));
        key[keyLength++] = (byte) (0x80 | ((c >>> 6) & 0x3F));
        key[keyLength++] = (byte) (0x80 | (c & 0x3F));
      }
    }
    return this;
  }

  NameCache appendByte(int value) {
    ensureRoom(1);
    key[keyLength++] = (byte) value;
    return this;
  }

  /** The name stored under the key written since {@link #newKey}, or null. */
  String find() {
    int h = 0;
    for (int i = 0; i < keyLength; i++) {
      h = HASH_MULTIPLIER * h + key[i];
    }
    h ^= h >>> 16;
    h *= MIX;
    h ^= h >>> 13;
    keyHash = h;
    for (int slot = h & mask; keys[slot] != null; slot = (slot + 1) & mask) {
      if (hashes[slot] == h
          && keys[slot].length == keyLength
          && Arrays.equals(keys[slot], 0, keyLength, key, 0, keyLength)) {
        return values[slot];
      }
    }
    return null;
  }

  /**
   * Stores {@code name} under the key that {@link #find} just missed, clearing the map first when
   * it is full; returns {@code name}.
   */
  String put(String name) {
    if (keyLength > MAX_KEY_BYTES) {
      return name;
    }
    if (size >= maxEntries) {
      clear();
    }
    int slot = keyHash & mask;
    while (keys[slot] != null) {
      slot = (slot + 1) & mask;
    }
    keys[slot] = Arrays.copyOf(key, keyLength);
    hashes[slot] = keyHash;
    values[slot] = name;
    size++;
    return name;
  }

  /** Names held now. */
  int size() {
    return size;
  }

  private void clear() {
    Arrays.fill(keys, null);
    Arrays.fill(values, null);
    size = 0;
  }

  private void ensureRoom(int bytes) {
    if (keyLength + bytes > key.length) {
      key = Arrays.copyOf(key, Math.max(2 * key.length, keyLength + bytes));
    }
  }
}
