package dev.sluice.testkit;

import java.lang.reflect.Field;

/**
 * Allocation measurements under Jazzer. In fuzzing mode Jazzer hooks JDK methods (string
 * comparisons, formatting, regular expressions) and instruments every class for coverage, and both
 * allocate on the calling thread: inputs that the regression run measures within the bound measured
 * 200 KB (an error path formatting jackson's message) to 600 KB (an accepted 2.7 KB request) under
 * the fuzzer. So an input over the {@link AllocationBound} is measured again with the hooks paused,
 * and in fuzzing mode the bound gets {@link #FUZZING_SLACK_BYTES} more: fuzzing then finds costs
 * sized by numbers in the input (the megabytes of an array sized by a field number), and the
 * regression run (every committed input, in {@code mvn verify}) checks the exact bound.
 */
public final class FuzzerHooks {
  /** What the fuzzer's instrumentation may add to a measurement in fuzzing mode. */
  public static final long FUZZING_SLACK_BYTES = 4 << 20;

  private static final Field HOOKS_ENABLED = hooksEnabledField();
  private static final boolean FUZZING = !System.getenv().getOrDefault("JAZZER_FUZZ", "").isEmpty();

  private FuzzerHooks() {}

  private static Field hooksEnabledField() {
    try {
      return Class.forName("com.code_intelligence.jazzer.runtime.JazzerInternal")
          .getField("hooksEnabled");
    } catch (ReflectiveOperationException | LinkageError e) {
      return null;
    }
  }

  /** {@link AllocationBound#measure} with Jazzer's hooks paused for the call. */
  public static AllocationBound.Outcome measurePaused(AllocationBound.Call call) {
    if (HOOKS_ENABLED == null) {
      return AllocationBound.measure(call);
    }
    try {
      boolean enabled = HOOKS_ENABLED.getBoolean(null);
      HOOKS_ENABLED.setBoolean(null, false);
      try {
        return AllocationBound.measure(call);
      } finally {
        HOOKS_ENABLED.setBoolean(null, enabled);
      }
    } catch (IllegalAccessException e) {
      return AllocationBound.measure(call);
    }
  }

  /**
   * {@link AllocationBound.Outcome#assertWithin}, with {@link #FUZZING_SLACK_BYTES} more in fuzzing
   * mode.
   */
  public static void assertWithin(AllocationBound.Outcome outcome, String what, long sizeBytes) {
    long slack = FUZZING ? FUZZING_SLACK_BYTES : 0;
    if (outcome.allocatedBytes() > AllocationBound.limitFor(sizeBytes) + slack) {
      outcome.assertWithin(
          what + (FUZZING ? " (under the fuzzer, with its slack)" : ""), sizeBytes);
    }
  }
}
