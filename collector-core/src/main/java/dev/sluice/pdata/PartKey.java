package dev.sluice.pdata;

/**
 * Where an item goes when a batch is split by {@link Batch#partitionInto}: a part index in {@code
 * [0, parts)}, read from the item's views ({@link BatchItem#span()}, {@link BatchItem#logRecord()},
 * {@link BatchItem#dataPoint()}, {@link BatchItem#metric()}, {@link BatchItem#resourceView()},
 * {@link BatchItem#scopeView()}).
 *
 * <p>The item is shown for the duration of the call only, and it is read-only: its edits ({@code
 * drop}, {@code replace...}) throw {@link IllegalStateException}. A key may be called from several
 * threads at once when they split the same batch, so it should keep no state of its own.
 */
@FunctionalInterface
public interface PartKey {
  int partOf(BatchItem item);
}
