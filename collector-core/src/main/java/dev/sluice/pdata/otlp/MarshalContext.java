package dev.sluice.pdata.otlp;

import dev.sluice.pdata.wire.ProtoWriter;
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
    this(new ProtoWriter(64 * 1024));
  }

  public MarshalContext(ProtoWriter output) {
    this.output = output;
  }

  /** Where {@link OtlpMarshaler#marshal} writes; valid until the next call. */
  public ProtoWriter output() {
    return output;
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
