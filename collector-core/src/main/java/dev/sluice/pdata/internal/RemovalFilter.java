package dev.sluice.pdata.internal;

import java.util.ArrayList;
import java.util.function.Predicate;

/**
 * The predicates a typed editor was given to remove elements of a repeated message field of an item
 * (a span's events or links): each element is shown through one reused view, and goes when a
 * predicate accepts it. Cleared when the item is written.
 */
public final class RemovalFilter<V extends RepeatedView> implements MessageRewriter.ElementFilter {
  private final int field;
  private final V view;
  private final ArrayList<Predicate<? super V>> predicates = new ArrayList<>();

  public RemovalFilter(int field, V view) {
    this.field = field;
    this.view = view;
  }

  int field() {
    return field;
  }

  public void add(Predicate<? super V> remove) {
    predicates.add(remove);
  }

  boolean isEmpty() {
    return predicates.isEmpty();
  }

  /** Forgets the predicates and the bytes last shown. */
  void clear() {
    predicates.clear();
    view.release();
  }

  @Override
  public boolean keep(byte[] bytes, int offset, int length) {
    view.wrapElement(bytes, offset, offset + length);
    for (int i = 0; i < predicates.size(); i++) {
      if (predicates.get(i).test(view)) {
        return false;
      }
    }
    return true;
  }
}
