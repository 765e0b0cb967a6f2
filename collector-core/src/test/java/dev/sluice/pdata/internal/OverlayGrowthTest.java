package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * How replacement storage grows: from what the replaced units project for the whole request, so
 * that a visit replacing every unit does not double its way up from the smallest storage, within
 * the bounds that keep a visit replacing a few units from holding storage for all of them.
 */
class OverlayGrowthTest {
  private static final int SPANS = 1000;

  private final OtlpIndex index = request();

  private static OtlpIndex request() {
    try {
      return new OtlpIndexer()
          .index(Signal.TRACES, OtlpTestData.realisticTraces(2, SPANS / 2).toByteArray());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private byte[] span(int unit) {
    int start = index.itemStart(unit);
    // The item field's tag and one- or two-byte length, then the span.
    byte[] source = index.source();
    int p = start + 1;
    while (source[p] < 0) {
      p++;
    }
    return Arrays.copyOfRange(source, p + 1, index.itemEnd(unit));
  }

  @Test
  void firstReplacementEarlyInALargeRequestTakesNoMoreThanTheFirstProjectionBound() {
    Overlay overlay = new Overlay(index, null);
    byte[] span = span(0);

    overlay.replaceUnit(0, -1, span, 0, span.length);

    // A thousand such spans would take far more; the first storage stops at the bound.
    assertThat((long) span.length * SPANS).isGreaterThan(Overlay.MAX_FIRST_PROJECTED_BYTES);
    assertThat(overlay.bytes()).hasSize(Overlay.MAX_FIRST_PROJECTED_BYTES);
  }

  @Test
  void firstReplacementOfTheLastUnitTakesTheSmallestStorage() {
    Overlay overlay = new Overlay(index, null);
    byte[] span = span(SPANS - 1);

    overlay.replaceUnit(SPANS - 1, -1, span, 0, span.length);

    assertThat(overlay.bytes()).hasSize(StoragePool.MIN_BYTES);
  }

  @Test
  void replacingEveryUnitTakesStorageTwiceInsteadOfDoublingUp() {
    Overlay overlay = new Overlay(index, null);
    Map<byte[], Boolean> storages = new IdentityHashMap<>();

    for (int unit = 0; unit < SPANS; unit++) {
      byte[] span = span(unit);
      overlay.replaceUnit(unit, -1, span, 0, span.length);
      storages.put(overlay.bytes(), true);
    }

    // The bounded first storage, then one projected for the rest (doubling took ten).
    assertThat(storages).hasSizeLessThanOrEqualTo(3);
    for (int unit = 0; unit < SPANS; unit++) {
      int start = overlay.unitOffset(unit);
      assertThat(Arrays.copyOfRange(overlay.bytes(), start, start + overlay.unitLength(unit)))
          .isEqualTo(
              Arrays.copyOfRange(index.source(), index.itemStart(unit), index.itemEnd(unit)));
    }
  }

  @Test
  void laterProjectionIsBoundedByTheRequestsSize() {
    Overlay overlay = new Overlay(index, null);
    byte[] large = new byte[8 * span(0).length];
    int unit = 0;
    while (overlay.bytes().length <= Overlay.MAX_FIRST_PROJECTED_BYTES) {
      overlay.replaceUnit(unit++, -1, large, 0, large.length);
    }

    // Eight times the spans' size for every unit would project past the request's size.
    assertThat((long) overlay.size() * SPANS / unit).isGreaterThan(index.sourceLength());
    assertThat(overlay.bytes()).hasSize(StoragePool.capacityFor(index.sourceLength()));
  }
}
