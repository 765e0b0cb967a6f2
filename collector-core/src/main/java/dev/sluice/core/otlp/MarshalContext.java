package dev.sluice.core.otlp;

import dev.sluice.core.wire.ProtoWriter;
import java.util.Arrays;

/**
 * The reusable state of one marshaling thread: the sizes found by the sizing pass, in visit order,
 * and the output buffer. Keep one per exporter thread; after the first batches it has the capacity
 * it needs and marshaling allocates nothing.
 */
public final class MarshalContext {
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
