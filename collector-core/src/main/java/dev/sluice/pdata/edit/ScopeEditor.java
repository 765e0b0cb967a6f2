package dev.sluice.pdata.edit;

import dev.sluice.pdata.internal.HeaderEdits;
import dev.sluice.pdata.internal.Internal;

/**
 * Changes the attributes of the instrumentation scope of the item a visit is at, for every item of
 * its scope block in the batch ({@link HeaderEditor} says how): {@link BatchItem#editScope()} hands
 * it out.
 */
public final class ScopeEditor extends HeaderEditor<ScopeEditor> {

  @Internal
  public ScopeEditor(HeaderEdits header) {
    super(header, "ScopeEditor");
  }

  @Override
  ScopeEditor self() {
    return this;
  }
}
