package dev.sluice.exporter.loadbalancing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;

class HashRingTest {
  private static final List<String> GO_ENDPOINTS =
      List.of("endpoint-1", "endpoint-2", "endpoint-3");
  private static final int KEYS = 10_000;

  private final CRC32 crc = new CRC32();

  private String ownerOf(HashRing ring, byte[] key) {
    return ring.backends().get(ring.ownerOf(HashRing.position(crc, key, 0, key.length)));
  }

  /**
   * The expected backends were derived apart from this code, from the Go exporter's
   * consistent_hashing.go as read: Python's zlib.crc32 (IEEE) over each endpoint's bytes plus the
   * byte i for i in 0..99, modulo 36000, first taker keeps a position, sorted; the key's CRC-32
   * modulo 36000 looked up with a port of Go's bsearch (checked to equal the ceiling for every one
   * of the 36000 positions of this ring).
   */
  @Test
  void placesKeysWhereTheGoExporterPlacesThem() {
    HashRing ring = new HashRing(GO_ENDPOINTS);

    assertThat(ring.pointCount()).isEqualTo(300);
    byte[] w3c = HexFormat.of().parseHex("4bf92f3577b34da6a3ce929d0e0e4736");
    assertThat(HashRing.position(crc, w3c, 0, 16)).isEqualTo(4869);
    assertThat(ownerOf(ring, w3c)).isEqualTo("endpoint-2");
    byte[] counting = HexFormat.of().parseHex("0102030405060708090a0b0c0d0e0f10");
    assertThat(HashRing.position(crc, counting, 0, 16)).isEqualTo(20689);
    assertThat(ownerOf(ring, counting)).isEqualTo("endpoint-1");
    assertThat(ownerOf(ring, new byte[16])).isEqualTo("endpoint-2");
    assertThat(ownerOf(ring, "checkout".getBytes(StandardCharsets.UTF_8))).isEqualTo("endpoint-1");
    assertThat(ownerOf(ring, new byte[0])).isEqualTo("endpoint-3");
  }

  @Test
  void addingOneBackendToFiveMovesOnlyTheKeysTheNewOneTakes() {
    List<String> five = backends(5);
    List<String> six = new ArrayList<>(five);
    six.add("10.0.0.6:4317");
    HashRing before = new HashRing(five);
    HashRing after = new HashRing(six);

    int moved = 0;
    for (byte[] key : keys()) {
      String was = ownerOf(before, key);
      String is = ownerOf(after, key);
      if (!was.equals(is)) {
        moved++;
        assertThat(is).isEqualTo("10.0.0.6:4317");
      }
    }

    System.out.printf("adding a sixth backend to five moved %d of %d keys%n", moved, KEYS);
    // About 1/6 of the keys: those the new backend's points now own, and no others.
    assertThat(moved / (double) KEYS).isBetween(0.08, 0.28);
  }

  @Test
  void removingOneBackendOfFiveMovesOnlyItsKeys() {
    List<String> five = backends(5);
    List<String> four = new ArrayList<>(five);
    String gone = four.remove(2);
    HashRing before = new HashRing(five);
    HashRing after = new HashRing(four);

    int moved = 0;
    for (byte[] key : keys()) {
      String was = ownerOf(before, key);
      String is = ownerOf(after, key);
      if (!was.equals(is)) {
        moved++;
        assertThat(was).isEqualTo(gone);
      } else {
        assertThat(was).isNotEqualTo(gone);
      }
    }

    System.out.printf("removing one backend of five moved %d of %d keys%n", moved, KEYS);
    assertThat(moved / (double) KEYS).isBetween(0.1, 0.3);
  }

  @Test
  void leavingABackendOutSendsEachOfItsKeysWhereRemovingItWould() {
    List<String> five = backends(5);
    List<String> four = new ArrayList<>(five);
    four.remove(1);
    HashRing ring = new HashRing(five);
    HashRing without = new HashRing(four);
    boolean[] leftOut = new boolean[5];
    leftOut[1] = true;

    int checked = 0;
    for (byte[] key : keys()) {
      int position = HashRing.position(crc, key, 0, key.length);
      String next = ring.backends().get(ring.ownerOf(position, leftOut));
      // Equal unless the removed backend had taken a position first that another also hashes to.
      if (next.equals(without.backends().get(without.ownerOf(position)))) {
        checked++;
      }
      assertThat(next).isNotEqualTo(five.get(1));
    }
    assertThat(checked).isGreaterThan(KEYS * 99 / 100);
  }

  @Test
  void noBackendIsLeftWhenAllAreLeftOut() {
    HashRing ring = new HashRing(backends(2));

    assertThat(ring.ownerOf(123, new boolean[] {true, true})).isEqualTo(-1);
    assertThat(new HashRing(List.of()).ownerOf(123)).isEqualTo(-1);
  }

  private static List<String> backends(int count) {
    List<String> names = new ArrayList<>();
    for (int i = 1; i <= count; i++) {
      names.add("10.0.0." + i + ":4317");
    }
    return names;
  }

  private static List<byte[]> keys() {
    Random random = new Random(42);
    List<byte[]> keys = new ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      byte[] key = new byte[16];
      random.nextBytes(key);
      keys.add(key);
    }
    return keys;
  }
}
