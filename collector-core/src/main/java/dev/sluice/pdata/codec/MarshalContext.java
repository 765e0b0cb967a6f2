package dev.sluice.pdata.codec;

import dev.sluice.pdata.internal.Internal;
import dev.sluice.pdata.internal.ProtoWriter;
import java.util.Arrays;

/**
 * The reusable state of one marshaling thread: the sizes found by the sizing pass, in visit order,
 * and the output buffer. Keep one per exporter thread; after the first batches it has the capacity
 * it needs and marshaling allocates nothing.
 */
public final class MarshalContext {
  /**
   * The most output capacity {@link #release()} keeps: a default batch of 8192 spans of about 430
   * bytes fits, so steady sending allocates nothing, while the array of an outsized batch (a large
   * request passed through whole) is dropped after it is sent instead of staying with each sending
   * thread, outside the pipeline's memory bound.
   */
  public static final int MAX_RETAINED_OUTPUT_BYTES = 8 << 20;

  private final ProtoWriter output;
  int[] plan = new int[64];
  int planSize;

  public MarshalContext() {
    this(64 * 1024);
  }

  /** A context whose output starts with room for {@code initialBytes}; it grows as needed. */
  public MarshalContext(int initialBytes) {
    this(new ProtoWriter(initialBytes));
  }

  @Internal
  public MarshalContext(ProtoWriter output) {
    this.output = output;
  }

  /** Where {@link OtlpMarshaler#marshal} writes; valid until the next call. */
  @Internal
  public ProtoWriter output() {
    return output;
  }

  /**
   * The output's array: the last {@link OtlpMarshaler#marshal} wrote {@code [0, size)} of it, size
   * being what that call returned. Valid until the next call or {@link #release()}.
   */
  public byte[] outputArray() {
    return output.array();
  }

  /** A copy of what the last {@link OtlpMarshaler#marshal} wrote. */
  public byte[] toByteArray() {
    return output.toByteArray();
  }

  /** Call when the output has been sent: see {@link #MAX_RETAINED_OUTPUT_BYTES}. */
  public void release() {
    output.release(MAX_RETAINED_OUTPUT_BYTES);
  }

  /** Appends a (slice end, size) pair to the plan; returns where its size goes. */
  int addStep(int sliceEnd) {
    if (planSize + 2 > plan.length) {
      plan = Arrays.copyOf(plan, plan.length * 2);
    }
    plan[planSize] = sliceEnd;
    plan[planSize + 1] = 0;
    planSize += 2;
    return planSize - 1;
  }
}
