package dev.sluice.connector.spanmetrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The search for a duration's explicit bucket, held to the definition read straight: the first
 * bucket whose upper bound is at least the value, else the last (above every bound).
 */
class BucketSearchTest {
  private static int firstBoundAtLeast(double[] bounds, double value) {
    int i = 0;
    while (i < bounds.length && bounds[i] < value) {
      i++;
    }
    return i;
  }

  @Test
  void findsTheBucketTheDefinitionGivesForEveryCountOfBounds() {
    SplittableRandom random = new SplittableRandom(29);
    int checked = 0;
    for (int length = 0; length <= 40; length++) {
      for (int round = 0; round < 50; round++) {
        double[] bounds = new double[length];
        for (int i = 0; i < length; i++) {
          // Few distinct values, so that some bounds repeat.
          bounds[i] = random.nextInt(length + 3) * 0.5;
        }
        Arrays.sort(bounds);
        for (double bound : bounds) {
          for (double value : new double[] {bound, Math.nextDown(bound), Math.nextUp(bound)}) {
            assertThat(Aggregator.bucket(bounds, value))
                .as("%s in %s", value, Arrays.toString(bounds))
                .isEqualTo(firstBoundAtLeast(bounds, value));
            checked++;
          }
        }
        for (double value :
            new double[] {
              Double.NEGATIVE_INFINITY,
              -1,
              0,
              Double.POSITIVE_INFINITY,
              random.nextDouble() * length
            }) {
          assertThat(Aggregator.bucket(bounds, value))
              .as("%s in %s", value, Arrays.toString(bounds))
              .isEqualTo(firstBoundAtLeast(bounds, value));
          checked++;
        }
      }
    }
    assertThat(checked).isGreaterThan(50_000);
  }

  @Test
  void theDefaultBucketsPutEachBoundInItsOwnBucket() {
    double[] bounds = Aggregator.DEFAULT_BOUNDS_MS;
    for (int i = 0; i < bounds.length; i++) {
      assertThat(Aggregator.bucket(bounds, bounds[i])).isEqualTo(i);
      assertThat(Aggregator.bucket(bounds, bounds[i] + 0.001)).isEqualTo(i + 1);
    }
    assertThat(Aggregator.bucket(bounds, 0)).isZero();
  }
}
