package dev.sluice.exporter.loadbalancing;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.zip.CRC32;

/**
 * A consistent-hash ring placed as the Go collector's {@code loadbalancing} exporter places it, so
 * that a Sluice agent and a Go agent send the same key to the same backend of the same list.
 *
 * <p>The ring has {@value #POSITIONS} positions. Each backend takes {@value #POINTS_PER_BACKEND}
 * points: point {@code i} is at CRC-32 (IEEE) of the backend's name, as resolved, followed by the
 * one byte {@code i}, modulo {@value #POSITIONS}. Backends are taken in sorted order and a position
 * already taken stays with the backend that took it first. A key goes to the first point at or
 * after CRC-32 of the key's bytes modulo {@value #POSITIONS}, wrapping around.
 *
 * <p>Immutable; a change of membership builds a new ring, and only the keys whose points changed
 * owner move.
 */
final class HashRing {
  /** 360 degrees with two decimals, as in the Go collector. */
  static final int POSITIONS = 36_000;

  /** Points per backend, as in the Go collector. */
  static final int POINTS_PER_BACKEND = 100;

  private final List<String> backends;
  private final int[] positions;
  private final int[] owners;

  /**
   * @param backends the backends' names as resolved, sorted, without duplicates
   */
  HashRing(List<String> backends) {
    this.backends = List.copyOf(backends);
    long[] points = new long[backends.size() * POINTS_PER_BACKEND];
    int count = 0;
    Set<Integer> taken = new HashSet<>();
    CRC32 crc = new CRC32();
    for (int b = 0; b < backends.size(); b++) {
      byte[] name = backends.get(b).getBytes(StandardCharsets.UTF_8);
      for (int i = 0; i < POINTS_PER_BACKEND; i++) {
        crc.reset();
        crc.update(name);
        crc.update(i);
        int position = (int) (crc.getValue() % POSITIONS);
        if (taken.add(position)) {
          // Sorted by position; the owner rides in the low bits.
          points[count++] = ((long) position << 32) | b;
        }
      }
    }
    Arrays.sort(points, 0, count);
    positions = new int[count];
    owners = new int[count];
    for (int i = 0; i < count; i++) {
      positions[i] = (int) (points[i] >>> 32);
      owners[i] = (int) points[i];
    }
  }

  List<String> backends() {
    return backends;
  }

  int backendCount() {
    return backends.size();
  }

  int pointCount() {
    return positions.length;
  }

  /** The ring position of a key's bytes. */
  static int position(CRC32 crc, byte[] key, int offset, int length) {
    crc.reset();
    crc.update(key, offset, length);
    return (int) (crc.getValue() % POSITIONS);
  }

  /** The index (into {@link #backends()}) of the backend owning {@code position}; -1 if empty. */
  int ownerOf(int position) {
    if (positions.length == 0) {
      return -1;
    }
    return owners[firstPointAtOrAfter(position)];
  }

  /**
   * The owner of {@code position} among the backends {@code excluded} leaves (indexed as {@link
   * #backends()}): the next point on the ring whose backend is not excluded. -1 if none is left.
   */
  int ownerOf(int position, boolean[] excluded) {
    if (positions.length == 0) {
      return -1;
    }
    int start = firstPointAtOrAfter(position);
    for (int step = 0; step < positions.length; step++) {
      int owner = owners[(start + step) % positions.length];
      if (!excluded[owner]) {
        return owner;
      }
    }
    return -1;
  }

  private int firstPointAtOrAfter(int position) {
    int found = Arrays.binarySearch(positions, position);
    int index = found >= 0 ? found : -found - 1;
    return index == positions.length ? 0 : index;
  }
}
