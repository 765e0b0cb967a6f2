package dev.sluice.exporter.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

/**
 * Where keyed records land. The expected partitions were produced by the Collector's own code path:
 * franz-go v1.22.3's {@code StickyKeyPartitioner(SaramaCompatHasher(fnv32a))}, as the Collector's
 * Kafka exporter configures it by default, run on the same keys.
 */
class GoPartitioningTest {
  private static final byte[] TRACE_KEY =
      "0af7651916cd43dd8448eb211c80319c".getBytes(StandardCharsets.US_ASCII);

  @Test
  void placesAHexTraceIdWhereTheCollectorsKafkaExporterDoes() {
    assertThat(GoPartitioning.partition(TRACE_KEY, 3)).isEqualTo(1);
    assertThat(GoPartitioning.partition(TRACE_KEY, 4)).isEqualTo(3);
    assertThat(GoPartitioning.partition(TRACE_KEY, 7)).isEqualTo(5);
    assertThat(GoPartitioning.partition(TRACE_KEY, 12)).isEqualTo(7);
  }

  @Test
  void placesTheEmptyKeyOfAnInvalidTraceIdAsTheCollectorDoes() {
    assertThat(GoPartitioning.partition(new byte[0], 4)).isEqualTo(3);
  }

  @Test
  void differsFromTheJavaClientsDefaultMurmur2ForSomePartitionCounts() {
    int javaDefaultWithSeven = Utils.toPositive(Utils.murmur2(TRACE_KEY)) % 7;

    assertThat(javaDefaultWithSeven).isEqualTo(1);
    assertThat(GoPartitioning.partition(TRACE_KEY, 7)).isEqualTo(5);
  }

  @Test
  void negatesANegativeRemainderAsSaramaDoes() {
    // FNV-1a of "a" is 0xe40c292c, negative as an int: the remainder is negative, then negated.
    byte[] key = {'a'};
    assertThat(GoPartitioning.fnv1a(key)).isEqualTo(0xe40c292c);
    assertThat(GoPartitioning.partition(key, 10)).isEqualTo(Math.abs(0xe40c292c % 10));
  }

  @Test
  void writesTraceIdsAsThirtyTwoLowerCaseHexCharacters() {
    assertThat(
            new String(
                KeyedParts.hexTraceId(0x0af7651916cd43ddL, 0x8448eb211c80319cL),
                StandardCharsets.US_ASCII))
        .isEqualTo("0af7651916cd43dd8448eb211c80319c");
    assertThat(KeyedParts.hexTraceId(0, 0)).isEmpty();
  }
}
