package dev.sluice.core.testkit;

import java.lang.reflect.Field;

/**
 * Measures a call with Jazzer's hooks paused. In fuzzing mode Jazzer hooks JDK methods (string
 * comparisons, formatting, regular expressions) to guide its mutations, and the hooks allocate
 * (they copy the strings compared): an error path that formats a message can measure 200 KB under
 * the fuzzer and 20 KB without it. An input over the {@link AllocationBound} is measured again this
 * way, so that what is checked is the code's own cost. Without Jazzer, a plain measurement.
 */
public final class FuzzerHooks {
  private static final Field HOOKS_ENABLED = hooksEnabledField();

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
}
