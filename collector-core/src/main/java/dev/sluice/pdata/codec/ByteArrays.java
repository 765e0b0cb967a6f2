package dev.sluice.pdata.codec;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Byte arrays that are about to be overwritten whole, such as a request's bytes copied out of the
 * network buffers.
 *
 * <p>{@code new byte[n]} zeroes the array first, and for a request of a few hundred kilobytes that
 * is a pass over memory that is not yet in any cache, as long as the copy that follows. The JDK's
 * own {@code jdk.internal.misc.Unsafe.allocateUninitializedArray} skips it; it can be used when
 * {@code java.base} exports {@code jdk.internal.misc} to this code, which the collector's jar asks
 * for in its manifest ({@code Add-Exports}), and otherwise arrays are made the usual way. Netty
 * does the same for its heap buffers.
 *
 * <p>An array from {@link #forOverwrite} holds whatever memory held before: the caller fills every
 * byte of it before anyone reads it, or drops it.
 */
public final class ByteArrays {
  /** Below this size zeroing costs little; Netty uses the same threshold for its heap buffers. */
  static final int MIN_UNINITIALIZED_BYTES = 1024;

  private static final MethodHandle ALLOCATE_UNINITIALIZED = allocateUninitialized();

  private ByteArrays() {}

  /**
   * A new array of {@code length} bytes that the caller overwrites whole before it is read; not
   * zeroed when {@link #uninitializedAvailable()}.
   */
  public static byte[] forOverwrite(int length) {
    if (length < MIN_UNINITIALIZED_BYTES || ALLOCATE_UNINITIALIZED == null) {
      return new byte[length];
    }
    try {
      return (byte[]) ALLOCATE_UNINITIALIZED.invokeExact(length);
    } catch (Throwable e) {
      throw new IllegalStateException("allocateUninitializedArray failed", e);
    }
  }

  /** Whether {@link #forOverwrite} skips zeroing (the export is in place). */
  public static boolean uninitializedAvailable() {
    return ALLOCATE_UNINITIALIZED != null;
  }

  private static MethodHandle allocateUninitialized() {
    Module base = Object.class.getModule();
    if (!base.isExported("jdk.internal.misc", ByteArrays.class.getModule())) {
      return null;
    }
    try {
      Class<?> unsafeClass = Class.forName("jdk.internal.misc.Unsafe");
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      Object unsafe =
          lookup.findStatic(unsafeClass, "getUnsafe", MethodType.methodType(unsafeClass)).invoke();
      MethodHandle allocate =
          lookup
              .findVirtual(
                  unsafeClass,
                  "allocateUninitializedArray",
                  MethodType.methodType(Object.class, Class.class, int.class))
              .bindTo(unsafe);
      MethodHandle bytes =
          MethodHandles.insertArguments(allocate, 0, byte.class)
              .asType(MethodType.methodType(byte[].class, int.class));
      byte[] probe = (byte[]) bytes.invokeExact(MIN_UNINITIALIZED_BYTES);
      return probe.length == MIN_UNINITIALIZED_BYTES ? bytes : null;
    } catch (Throwable e) {
      return null;
    }
  }
}
