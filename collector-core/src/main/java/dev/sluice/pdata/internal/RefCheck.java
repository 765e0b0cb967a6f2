package dev.sluice.pdata.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A test mode that checks reference counts: with {@code -Dsluice.refcheck=true} every held request
 * ({@link OtlpIndex#hold}) and every store of replacement bytes is tracked from the moment it is
 * held (with the stack that held it) until its count reaches zero, and a release below zero is
 * recorded (with its stack) besides failing where it happens. The test suite reads the findings at
 * the end of each test and test class and fails on any.
 *
 * <p>Off by default: then every hook is one read of a constant.
 */
public final class RefCheck {
  /** The system property that turns the mode on. */
  public static final String PROPERTY = "sluice.refcheck";

  private static final boolean ENABLED = Boolean.getBoolean(PROPERTY);
  private static final Map<Object, Throwable> LIVE = new ConcurrentHashMap<>();
  private static final Queue<Throwable> RELEASED_TWICE = new ConcurrentLinkedQueue<>();

  private RefCheck() {}

  public static boolean enabled() {
    return ENABLED;
  }

  public static void created(Object counted) {
    if (ENABLED) {
      LIVE.put(counted, new Throwable("held here: " + counted));
    }
  }

  public static void freed(Object counted) {
    if (ENABLED) {
      LIVE.remove(counted);
    }
  }

  public static void releasedTwice(Object counted) {
    if (ENABLED) {
      RELEASED_TWICE.add(new Throwable("released more often than retained: " + counted));
    }
  }

  /** Releases below zero recorded since the last call, each with its stack; forgets them. */
  public static List<Throwable> takeReleasedTwice() {
    List<Throwable> found = new ArrayList<>();
    for (Throwable t = RELEASED_TWICE.poll(); t != null; t = RELEASED_TWICE.poll()) {
      found.add(t);
    }
    return found;
  }

  /** Held and not released yet: for each, the stack that held it. */
  public static List<Throwable> live() {
    return new ArrayList<>(LIVE.values());
  }

  /** Stops tracking everything live now: after a report, so the next test class starts clean. */
  public static void forgetLive() {
    LIVE.clear();
  }
}
