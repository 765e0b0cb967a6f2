package dev.sluice.testkit;

import dev.sluice.pdata.internal.RefCheck;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test that released a request (or replacement bytes) more often than it retained them, and
 * a test class that left any held request unreleased. Active in every module whose tests have this
 * test kit on the class path, when {@code -Dsluice.refcheck=true} is set (the parent pom sets it)
 * and JUnit's extension autodetection is on (the parent pom sets that too); registered through
 * {@code META-INF/services/org.junit.jupiter.api.extension.Extension}.
 *
 * <p>Leaks are looked for at the end of each test class, after its own {@code @AfterAll}: work
 * still finishing on other threads (an exporter draining) gets {@link #SETTLE_MILLIS} to release.
 */
public final class RefCheckExtension implements AfterEachCallback, AfterAllCallback {
  /** How long a test class's leftovers may take to be released by threads still winding down. */
  static final long SETTLE_MILLIS = 5_000;

  private static final int MAX_REPORTED = 5;

  @Override
  public void afterEach(ExtensionContext context) {
    checkReleasedTwice();
  }

  @Override
  public void afterAll(ExtensionContext context) throws InterruptedException {
    checkReleasedTwice();
    checkLeaks(context.getDisplayName(), SETTLE_MILLIS);
  }

  /** Throws when a release below zero was recorded since the last check. */
  public static void checkReleasedTwice() {
    if (!RefCheck.enabled()) {
      return;
    }
    List<Throwable> found = RefCheck.takeReleasedTwice();
    if (!found.isEmpty()) {
      AssertionError error =
          new AssertionError(found.size() + " release(s) below zero; the first one here");
      error.initCause(found.get(0));
      throw error;
    }
  }

  /**
   * Throws when anything held is still not released after {@code settleMillis}; then forgets it.
   */
  public static void checkLeaks(String where, long settleMillis) throws InterruptedException {
    if (!RefCheck.enabled()) {
      return;
    }
    boolean released =
        Await.within(Duration.ofMillis(settleMillis), () -> RefCheck.live().isEmpty());
    List<Throwable> live = RefCheck.live();
    if (released || live.isEmpty()) {
      return;
    }
    RefCheck.forgetLive();
    AssertionError error =
        new AssertionError(
            where
                + " left "
                + live.size()
                + " held request(s) or replacement stores never released; held at:");
    for (Throwable held : live.subList(0, Math.min(MAX_REPORTED, live.size()))) {
      error.addSuppressed(held);
    }
    throw error;
  }
}
