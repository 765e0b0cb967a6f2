package dev.sluice.component;

import dev.sluice.pdata.codec.OtlpIndex;

/**
 * Where a receiver hands validated requests: the pipelines that include the receiver for the
 * request's signal. Thread-safe.
 */
public interface RequestConsumer {
  /**
   * Offers a request. On {@link Admission#ACCEPTED} the pipelines own the request's bytes, which
   * the receiver must not change again; otherwise nothing was kept.
   */
  Admission consume(OtlpIndex request);

  /**
   * Offers a request whose answer may come later: {@code answer} is told exactly once, on this
   * thread before the call returns or afterwards on another one. The request's bytes are the
   * pipelines' from the call on, whatever the answer (they must not change again). Receivers use
   * this form; by default it answers at once with {@link #consume(OtlpIndex)}.
   */
  default void consume(OtlpIndex request, AnswerSink answer) {
    answer.answer(consume(request));
  }

  /**
   * What a request offered now would most likely get, judged before it has been read: its size is
   * not known yet, so this says whether there is room at all. Receivers ask it at a request's
   * headers, to refuse without reading the body when the answer would be a refusal anyway; {@link
   * #consume} still decides. Cheap, allocation-free and thread-safe. By default there is always
   * room.
   */
  default Admission admission() {
    return Admission.ACCEPTED;
  }

  /** How long a refused sender should wait before retrying, in milliseconds. */
  long retryDelayMillis();
}
