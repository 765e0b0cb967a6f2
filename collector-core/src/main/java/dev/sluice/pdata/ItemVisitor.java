package dev.sluice.pdata;

/** Shown each span, log record or data point of a batch in turn: see {@link Batch#visit}. */
@FunctionalInterface
public interface ItemVisitor {
  /** {@code item} is valid only during this call; it is the same object for every item. */
  void visit(BatchItem item);
}
