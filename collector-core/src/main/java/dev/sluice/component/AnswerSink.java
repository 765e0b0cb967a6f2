package dev.sluice.component;

/**
 * Told once how a request offered with {@link
 * RequestConsumer#consume(dev.sluice.pdata.codec.OtlpIndex, AnswerSink)} ended: at once, or later
 * on another thread (a durable pipeline answers once the request is in its write-ahead log). Must
 * not block.
 */
@FunctionalInterface
public interface AnswerSink {
  void answer(Admission admission);
}
