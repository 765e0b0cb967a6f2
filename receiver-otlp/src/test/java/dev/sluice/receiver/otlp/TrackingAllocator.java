package dev.sluice.receiver.otlp;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.UnpooledHeapByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * Heap buffers that remember themselves, so that a test can tell, deterministically and at once,
 * that every buffer a pipeline allocated was released (Netty's leak detector reports only when a
 * leaked buffer is collected). Derived buffers share their parent's count, so the roots suffice.
 */
final class TrackingAllocator extends AbstractByteBufAllocator {
  private final List<ByteBuf> allocated = new ArrayList<>();

  TrackingAllocator() {
    super(false);
  }

  @Override
  protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
    ByteBuf buffer = new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity);
    allocated.add(buffer);
    return buffer;
  }

  @Override
  protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
    return newHeapBuffer(initialCapacity, maxCapacity);
  }

  @Override
  public CompositeByteBuf compositeHeapBuffer(int maxNumComponents) {
    CompositeByteBuf buffer = super.compositeHeapBuffer(maxNumComponents);
    allocated.add(buffer);
    return buffer;
  }

  @Override
  public CompositeByteBuf compositeDirectBuffer(int maxNumComponents) {
    return compositeHeapBuffer(maxNumComponents);
  }

  @Override
  public boolean isDirectBufferPooled() {
    return false;
  }

  /** The buffers allocated since the last call that are still held; forgets all of them. */
  List<ByteBuf> unreleased() {
    List<ByteBuf> held = new ArrayList<>();
    for (ByteBuf buffer : allocated) {
      if (buffer.refCnt() > 0) {
        held.add(buffer);
      }
    }
    allocated.clear();
    return held;
  }
}
