package dev.sluice.core.testkit;

import java.lang.reflect.Field;

/**
 * Allocation measurements under Jazzer. In fuzzing mode Jazzer hooks JDK methods (string
 * comparisons, formatting, regular expressions) and instruments every class for coverage, and both
 * allocate on the calling thread: an error path that formats a message (jackson's) measures about
 * 200 KB under the fuzzer and 20 KB in the regression run. So an input over the {@link
 * AllocationBound} is measured again with the hooks paused, and in fuzzing mode the bound gets
 * {@link #FUZZING_SLACK_BYTES} more: enough for the instrumentation, far too little to hide the
 * megabytes that a cost sized by the input takes. The regression run (every committed input, in
 * {@code mvn verify}) checks the exact bound.
 */
public final class FuzzerHooks {
  /** What the fuzzer's instrumentation may add to a measurement in fuzzing mode. */
  public static final long FUZZING_SLACK_BYTES = 512 * 1024;

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
