package dev.sluice.processor.transform;

import dev.sluice.ottl.ErrorMode;
import dev.sluice.ottl.OttlCondition;
import dev.sluice.ottl.OttlContext;
import dev.sluice.ottl.OttlStatement;
import java.util.List;

/**
 * One group of statements, compiled for its context: run over each item of the context when any of
 * its conditions holds (or it has none), in order. Immutable and shared.
 *
 * @param sharedCache whether its {@code cache} is the one the signal's groups of the same context
 *     with {@code shared_cache: true} share for a batch, rather than its own for each item
 */
record StatementGroup(
    OttlContext context,
    ErrorMode errorMode,
    List<OttlCondition> conditions,
    List<OttlStatement> statements,
    boolean sharedCache) {
  StatementGroup {
    conditions = List.copyOf(conditions);
    statements = List.copyOf(statements);
  }
}
