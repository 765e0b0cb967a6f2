package dev.sluice.pdata.internal;

import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.ItemVisitor;
import dev.sluice.pdata.edit.AttributeActions;
import dev.sluice.pdata.edit.AttributeValue;

/** Visitors that apply attribute actions through the typed editors, for tests. */
public final class ActionVisitors {
  private ActionVisitors() {}

  /** Applies {@code actions} to the attributes of each span, log record or data point visited. */
  public static ItemVisitor items(AttributeActions actions) {
    return item -> apply(item, actions);
  }

  /** As {@link #items}, for one upsert of a string. */
  public static ItemVisitor upsert(String key, String value) {
    return items(AttributeActions.builder().upsert(key, AttributeValue.string(value)).build());
  }

  /** As {@link #items}, for one delete by key. */
  public static ItemVisitor delete(String key) {
    return items(AttributeActions.builder().delete(key, null).build());
  }

  /** Applies {@code actions} to the item's own attributes. */
  public static void apply(BatchItem item, AttributeActions actions) {
    switch (item.signal()) {
      case TRACES -> item.editSpan().apply(actions);
      case LOGS -> item.editLogRecord().apply(actions);
      case METRICS -> item.editDataPoint().apply(actions);
    }
  }
}
