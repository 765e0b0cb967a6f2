package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.ItemVisitor;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.MarshalContext;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.pdata.edit.AttributeActions;
import dev.sluice.pdata.edit.AttributeValue;
import dev.sluice.testkit.AllocationBound;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The pool of replacement storage: what it keeps is bounded, and a stream of edited requests takes
 * its storage from it instead of allocating.
 */
class StoragePoolTest {
  private final OtlpIndexer indexer = new OtlpIndexer();

  @Test
  void capacitiesArePowersOfTwoUpToTheLargestPooledSize() {
    assertThat(StoragePool.capacityFor(1)).isEqualTo(StoragePool.MIN_BYTES);
    assertThat(StoragePool.capacityFor(StoragePool.MIN_BYTES + 1))
        .isEqualTo(2 * StoragePool.MIN_BYTES);
    assertThat(StoragePool.capacityFor(StoragePool.MAX_POOLED_BYTES))
        .isEqualTo(StoragePool.MAX_POOLED_BYTES);
    assertThat(StoragePool.capacityFor(StoragePool.MAX_POOLED_BYTES + 1))
        .isEqualTo(StoragePool.MAX_POOLED_BYTES + 1);
  }

  @Test
  void keepsAtMostItsSlotsOfEachSizeAndNothingLarger() {
    drain();
    int size = 4 * StoragePool.MIN_BYTES;
    List<byte[]> given = new ArrayList<>();
    for (int i = 0; i < StoragePool.SLOTS_PER_SIZE + 3; i++) {
      byte[] bytes = new byte[size];
      given.add(bytes);
      StoragePool.giveBytes(bytes);
    }
    StoragePool.giveBytes(new byte[2 * StoragePool.MAX_POOLED_BYTES]);
    StoragePool.giveBytes(new byte[size + 1]);
    StoragePool.giveInts(new int[size / Integer.BYTES]);

    assertThat(StoragePool.heldBytes())
        .isEqualTo((long) size * (StoragePool.SLOTS_PER_SIZE + 1))
        .isLessThanOrEqualTo(StoragePool.MAX_HELD_BYTES);
    for (int i = 0; i < StoragePool.SLOTS_PER_SIZE; i++) {
      byte[] taken = StoragePool.takeBytes(size);
      assertThat(given.subList(0, StoragePool.SLOTS_PER_SIZE)).anyMatch(b -> b == taken);
    }
    // The slots of that size are empty now: a new array.
    byte[] fresh = StoragePool.takeBytes(size);
    assertThat(given).noneMatch(b -> b == fresh);
    assertThat(StoragePool.takeInts(size / Integer.BYTES)).hasSize(size / Integer.BYTES);
    assertThat(StoragePool.heldBytes()).isZero();
  }

  @Test
  void keepsNoMoreThanItsWeightAcrossSizes() {
    drain();
    long offered = 0;
    for (int size = StoragePool.MAX_POOLED_BYTES; size >= 64 * 1024; size /= 2) {
      for (int i = 0; i < StoragePool.SLOTS_PER_SIZE; i++) {
        StoragePool.giveBytes(new byte[size]);
        offered += size;
      }
    }

    assertThat(offered).isGreaterThan(StoragePool.MAX_HELD_BYTES);
    // Filled to its weight (within the largest array) and no further.
    assertThat(StoragePool.heldBytes())
        .isLessThanOrEqualTo(StoragePool.MAX_HELD_BYTES)
        .isGreaterThan(StoragePool.MAX_HELD_BYTES - StoragePool.MAX_POOLED_BYTES);
    drain();
    assertThat(StoragePool.heldBytes()).isZero();
    // What was taken out makes room again.
    StoragePool.giveBytes(new byte[StoragePool.MAX_POOLED_BYTES]);
    assertThat(StoragePool.heldBytes()).isEqualTo(StoragePool.MAX_POOLED_BYTES);
    drain();
  }

  @Test
  void aStreamOfEditedRequestsTakesItsStorageFromThePool() throws Exception {
    byte[] request = OtlpTestData.realisticTraces(1, 1000).toByteArray();
    byte[] replacement = new byte[600];
    ItemVisitor keepAQuarterReplaced =
        item -> {
          if (item.item() % 4 == 0) {
            System.arraycopy(item.array(), item.offset(), replacement, 0, item.length());
            item.replace(replacement, 0, item.length());
          } else {
            item.drop();
          }
        };
    OtlpIndex index = indexer.index(Signal.TRACES, request);
    for (int i = 0; i < 50; i++) {
      edit(index, keepAQuarterReplaced);
    }

    long allocated =
        AllocationBound.measure(() -> edit(index, keepAQuarterReplaced)).allocatedBytes();

    // A quarter of the request replaced: ~100 KB of storage, taken from the pool. What is left is
    // the overlay, its small tables and the slices the drops cut (one per kept span).
    assertThat(allocated).isLessThan(request.length / 8);
  }

  @Test
  void anOverlayFreedDuringAVisitIsWrittenAfreshWhenTheVisitEditsItsRequestAgain()
      throws Exception {
    EditOwnershipTest.Account account = new EditOwnershipTest.Account();
    OtlpIndex index =
        indexer.index(Signal.TRACES, OtlpTestData.realisticTraces(1, 20).toByteArray());
    account.admit(index);
    Batch batch = Batch.of(index);
    index.releaseHold();
    AttributeActions first =
        AttributeActions.builder().upsert("first", AttributeValue.string("1")).build();
    batch.visit(ActionVisitors.items(first));
    // The same request again, not yet edited, after the edited slice.
    Batch again = Batch.of(index);
    batch.addAll(again);
    AttributeActions second =
        AttributeActions.builder().upsert("second", AttributeValue.string("2")).build();
    int[] seen = new int[1];

    batch.visit(
        item -> {
          if (seen[0]++ < 20) {
            ActionVisitors.apply(
                item, second); // writes into the overlay, then every slice of it is dropped
            item.drop();
          } else {
            ActionVisitors.apply(item, second);
          }
        });

    var spans =
        io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest.parseFrom(
                OtlpMarshaler.toByteArray(batch))
            .getResourceSpans(0)
            .getScopeSpans(0)
            .getSpansList();
    assertThat(spans).hasSize(20);
    for (var span : spans) {
      assertThat(span.getAttributesList()).anyMatch(kv -> kv.getKey().equals("second"));
      assertThat(span.getAttributesList()).noneMatch(kv -> kv.getKey().equals("first"));
    }
    batch.clear();
    assertThat(account.released.get()).isEqualTo(1);
    assertThat(account.bytes.get()).isZero();
  }

  private final MarshalContext context = new MarshalContext();

  private void edit(OtlpIndex index, ItemVisitor visitor) {
    Batch batch = Batch.of(index);
    batch.visit(visitor);
    assertThat(OtlpMarshaler.marshal(batch, context)).isPositive();
    batch.clear();
  }

  private static void drain() {
    for (int size = StoragePool.MIN_BYTES; size <= StoragePool.MAX_POOLED_BYTES; size *= 2) {
      for (int i = 0; i < StoragePool.SLOTS_PER_SIZE; i++) {
        StoragePool.takeBytes(size);
        StoragePool.takeInts(size / Integer.BYTES);
      }
    }
  }
}
