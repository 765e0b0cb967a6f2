package dev.sluice.collector;

/**
 * What a {@link Profile} makes of the heap it is given: the bound on request bytes held in
 * pipelines, and how many sending threads an exporter's queue runs at most.
 *
 * @param maxPipelineBytes the pipeline bound when {@code --max-pipeline-mib} does not set it
 * @param maxSendingThreads the cap on each exporter's {@code sending_queue.num_consumers}
 */
record Sizing(long maxPipelineBytes, int maxSendingThreads) {
  /** The default pipeline bound: a third of the heap leaves room for copies in flight. */
  static final int DEFAULT_HEAP_DIVISOR = 3;

  /**
   * A sidecar's heap is small, so what it holds besides the pipelines (requests being received,
   * each sending thread's marshal and compression buffers, the collector's own objects) is a larger
   * share of it: the pipelines get a quarter.
   */
  static final int SIDECAR_HEAP_DIVISOR = 4;

  /**
   * The sidecar's pipeline bound never goes below this, so that a request of the receivers' default
   * largest size (4 MiB) can still be admitted.
   */
  static final long SIDECAR_MIN_PIPELINE_BYTES = 4L << 20;

  /**
   * Sending threads per exporter in a sidecar. At 10,000 spans/s in batches of the batch
   * processor's default timeout one thread is busy a few percent of the time; a second covers a
   * slow send without queueing. Each thread keeps its own marshal and compression buffers (about 1
   * MiB for a batch of 2,000 spans, 4 MiB for 8,192), and a thread stack.
   */
  static final int SIDECAR_SENDING_THREADS = 2;

  Sizing {
    if (maxPipelineBytes <= 0 || maxSendingThreads <= 0) {
      throw new IllegalArgumentException(
          "sizes must be positive: " + maxPipelineBytes + ", " + maxSendingThreads);
    }
  }

  static Sizing of(Profile profile, long maxHeapBytes) {
    return switch (profile) {
      case DEFAULT -> new Sizing(maxHeapBytes / DEFAULT_HEAP_DIVISOR, Integer.MAX_VALUE);
      case SIDECAR ->
          new Sizing(
              Math.max(SIDECAR_MIN_PIPELINE_BYTES, maxHeapBytes / SIDECAR_HEAP_DIVISOR),
              SIDECAR_SENDING_THREADS);
    };
  }

  /** The sizing of this JVM's profile and heap. */
  static Sizing current() {
    return of(Profile.current(), Runtime.getRuntime().maxMemory());
  }
}
