package dev.sluice.exporter.kafka;

import java.util.Arrays;

/**
 * Numbers distinct 128-bit keys (trace IDs, resource hashes) in the order they are first seen: open
 * addressing over two {@code long} arrays, reused from batch to batch. Clearing is a generation
 * step, not a fill, so a batch costs what it holds.
 */
final class KeyTable {
  private static final int INITIAL_CAPACITY = 64;
  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  private long[] highs = new long[INITIAL_CAPACITY];
  private long[] lows = new long[INITIAL_CAPACITY];
  private int[] numbers = new int[INITIAL_CAPACITY];
  private int[] generations = new int[INITIAL_CAPACITY];
  private long[] orderHighs = new long[INITIAL_CAPACITY];
  private long[] orderLows = new long[INITIAL_CAPACITY];
  private int generation = 1;
  private int count;

  /** The most slots kept between batches; a table an outsized batch grew starts small again. */
  private static final int MAX_RETAINED_CAPACITY = 1 << 16;

  /** Forgets every key, and the room an outsized batch made. */
  void release() {
    if (highs.length > MAX_RETAINED_CAPACITY) {
      highs = new long[INITIAL_CAPACITY];
      lows = new long[INITIAL_CAPACITY];
      numbers = new int[INITIAL_CAPACITY];
      generations = new int[INITIAL_CAPACITY];
      orderHighs = new long[INITIAL_CAPACITY];
      orderLows = new long[INITIAL_CAPACITY];
      generation = 1;
      count = 0;
      return;
    }
    clear();
  }

  /** Forgets every key. */
  void clear() {
    count = 0;
    generation++;
    if (generation == Integer.MAX_VALUE) {
      Arrays.fill(generations, 0);
      generation = 1;
    }
  }

  /** Distinct keys since {@link #clear()}. */
  int count() {
    return count;
  }

  /** The high half of key number {@code number}. */
  long high(int number) {
    return orderHighs[number];
  }

  /** The low half of key number {@code number}. */
  long low(int number) {
    return orderLows[number];
  }

  /** The key's number, a new one if it was not seen since {@link #clear()}. */
  int numberOf(long high, long low) {
    if ((count + 1) * 2 > highs.length) {
      grow();
    }
    int mask = highs.length - 1;
    int slot = slot(high, low, mask);
    while (generations[slot] == generation) {
      if (highs[slot] == high && lows[slot] == low) {
        return numbers[slot];
      }
      slot = (slot + 1) & mask;
    }
    generations[slot] = generation;
    highs[slot] = high;
    lows[slot] = low;
    numbers[slot] = count;
    if (count == orderHighs.length) {
      orderHighs = Arrays.copyOf(orderHighs, count * 2);
      orderLows = Arrays.copyOf(orderLows, count * 2);
    }
    orderHighs[count] = high;
    orderLows[count] = low;
    return count++;
  }

  /** The key's number; -1 when it was not seen since {@link #clear()}. */
  int find(long high, long low) {
    int mask = highs.length - 1;
    int slot = slot(high, low, mask);
    while (generations[slot] == generation) {
      if (highs[slot] == high && lows[slot] == low) {
        return numbers[slot];
      }
      slot = (slot + 1) & mask;
    }
    return -1;
  }

  private static int slot(long high, long low, int mask) {
    long mixed = (high ^ Long.rotateLeft(low, 31)) * GOLDEN;
    return (int) (mixed >>> 32) & mask;
  }

  private void grow() {
    long[] oldHighs = highs;
    long[] oldLows = lows;
    int[] oldNumbers = numbers;
    int[] oldGenerations = generations;
    int capacity = oldHighs.length * 2;
    highs = new long[capacity];
    lows = new long[capacity];
    numbers = new int[capacity];
    generations = new int[capacity];
    int mask = capacity - 1;
    for (int i = 0; i < oldHighs.length; i++) {
      if (oldGenerations[i] == generation) {
        int slot = slot(oldHighs[i], oldLows[i], mask);
        while (generations[slot] == generation) {
          slot = (slot + 1) & mask;
        }
        generations[slot] = generation;
        highs[slot] = oldHighs[i];
        lows[slot] = oldLows[i];
        numbers[slot] = oldNumbers[i];
      }
    }
  }
}
