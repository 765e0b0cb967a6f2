package dev.sluice.testkit;

import java.lang.management.ManagementFactory;

/**
 * What one input may cost at the edge: a decoder handed {@code n} bytes allocates at most {@link
 * #PER_BYTE} {@code x n +} {@link #FIXED_BYTES} on the calling thread, whatever the bytes are and
 * whether it accepts or rejects them (error message included). For a decompressor {@code n} is the
 * compressed input plus the output it produced, which the receivers' size limits cap.
 *
 * <p>Measured with the JVM's per-thread allocation counter, so a call must do its work on the
 * calling thread. Warm a decoder up once before measuring: loading and initialising its classes
 * allocates too, once per JVM.
 */
public final class AllocationBound {

  /** Bytes that one byte of input may make the edge allocate. */
  public static final long PER_BYTE = 8;

  /** Bytes that any input may cost beyond its size: scratch state and error messages. */
  public static final long FIXED_BYTES = 64 * 1024;

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  private AllocationBound() {}

  /** The most that an input of {@code sizeBytes} may allocate. */
  public static long limitFor(long sizeBytes) {
    return PER_BYTE * sizeBytes + FIXED_BYTES;
  }

  /** A call to measure; it may throw whatever the code under test throws. */
  @FunctionalInterface
  public interface Call {
    void run() throws Exception;
  }

  /** What a call allocated on this thread, and what it threw (null when it returned). */
  public record Outcome(long allocatedBytes, Exception thrown) {

    /**
     * Fails unless the call allocated at most {@link #limitFor} {@code sizeBytes}; returns this.
     */
    public Outcome assertWithin(String what, long sizeBytes) {
      long limit = limitFor(sizeBytes);
      if (allocatedBytes > limit) {
        throw new AssertionError(
            what
                + ": allocated "
                + allocatedBytes
                + " bytes for "
                + sizeBytes
                + " bytes of input, over the bound of "
                + limit
                + (thrown == null ? "" : " (it threw " + thrown + ")"));
      }
      return this;
    }
  }

  /** Runs {@code call} on this thread and measures what it allocated. */
  public static Outcome measure(Call call) {
    long before = THREADS.getCurrentThreadAllocatedBytes();
    Exception thrown = null;
    try {
      call.run();
    } catch (Exception e) {
      thrown = e;
    }
    long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
    return new Outcome(allocated, thrown);
  }
}
