package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.MalformedOtlpException.Kind;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.testkit.AllocationBound;
import dev.sluice.testkit.FuzzerHooks;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;

/**
 * Coverage-guided fuzzing of the indexer, all three signals (the first byte of an input picks the
 * signal, the rest is the request). For every input: only {@link MalformedOtlpException} escapes;
 * indexing allocates within {@link AllocationBound}, accepted or not; what Sluice accepts,
 * protobuf-java parses, and the whole request marshaled back parses to the same message (adjacent
 * blocks with equal headers merged on both sides, as the marshaler merges them); what Sluice
 * refuses and protobuf-java parses is refused by one of Sluice's own checks.
 *
 * <p>Regression inputs: {@code
 * src/test/resources/dev/sluice/pdata/internal/OtlpIndexerFuzzTestInputs/}. Fuzzing: {@code
 * bench/fuzz.sh OtlpIndexerFuzzTest#index 10m}.
 */
class OtlpIndexerFuzzTest {
  /** Checks of Sluice's own: a request refused for one of these may still parse elsewhere. */
  static final Set<Kind> EXTRA_CHECKS =
      EnumSet.of(
          Kind.WIRE_TYPE,
          Kind.OVER_32_BITS,
          Kind.LONG_VARINT,
          Kind.INVALID_UTF8,
          Kind.ID_LENGTH,
          Kind.DATA_MESSAGES,
          Kind.NESTING_DEPTH,
          Kind.LIMIT);

  private static final OtlpIndexer INDEXER = new OtlpIndexer();

  @BeforeAll
  static void warmUp() throws Exception {
    // Loads and initialises the indexer's classes, which allocates once per JVM.
    for (Signal signal : Signal.values()) {
      byte[] valid = validRequest(signal);
      OtlpMarshaler.toByteArray(Batch.of(INDEXER.index(signal, valid)));
      try {
        INDEXER.index(signal, new byte[] {0x0A, 0x05, 0x12});
      } catch (MalformedOtlpException expected) {
        // The error path's classes, too.
      }
    }
  }

  static byte[] validRequest(Signal signal) {
    switch (signal) {
      case TRACES:
        return OtlpTestData.realisticTraces(1, 2).toByteArray();
      case METRICS:
        return OtlpTestData.metrics(new int[] {1}).toByteArray();
      default:
        return OtlpTestData.logs(new int[] {1}, 2).toByteArray();
    }
  }

  @FuzzTest
  void index(byte[] input) throws Exception {
    if (input.length == 0) {
      return;
    }
    Signal signal = Signal.values()[(input[0] & 0xFF) % Signal.values().length];
    byte[] request = Arrays.copyOfRange(input, 1, input.length);
    check(signal, request);
  }

  /** Every check for one request; used by the fuzz target and by unit tests of found inputs. */
  static void check(Signal signal, byte[] request) throws Exception {
    OtlpIndex[] index = new OtlpIndex[1];
    AllocationBound.Outcome outcome =
        AllocationBound.measure(() -> index[0] = INDEXER.index(signal, request));
    if (outcome.allocatedBytes() > AllocationBound.limitFor(request.length)) {
      // The first pass through a path loads classes and links its string concatenations, once per
      // JVM, and the fuzzer's hooks allocate on every call: measure again with the hooks paused,
      // on new indexers whose tables have not grown for larger inputs, the first one taking the
      // one-time costs.
      for (int pass = 0; pass < 2; pass++) {
        OtlpIndexer fresh = new OtlpIndexer();
        fresh.index(signal, validRequest(signal));
        outcome = FuzzerHooks.measurePaused(() -> index[0] = fresh.index(signal, request));
      }
    }
    FuzzerHooks.assertWithin(outcome, signal + " indexing", request.length);

    Message parsed = null;
    InvalidProtocolBufferException parseError = null;
    try {
      parsed = RequestTree.parse(signal, request);
    } catch (InvalidProtocolBufferException e) {
      parseError = e;
    }

    if (outcome.thrown() != null) {
      if (!(outcome.thrown() instanceof MalformedOtlpException)) {
        throw outcome.thrown();
      }
      MalformedOtlpException refused = (MalformedOtlpException) outcome.thrown();
      assertThat(refused.getMessage().length())
          .as("message length")
          .isLessThanOrEqualTo(MalformedOtlpException.MAX_MESSAGE_CHARS + 32);
      if (parsed != null) {
        assertThat(refused.kind())
            .as("Sluice refused what protobuf-java parses: %s", refused.getMessage())
            .isIn(EXTRA_CHECKS);
      }
      return;
    }

    assertThat(parseError).as("protobuf-java refuses what Sluice accepted (%s)", index[0]).isNull();
    byte[] marshaled = OtlpMarshaler.toByteArray(Batch.of(index[0]));
    Message reparsed = RequestTree.parse(signal, marshaled);
    assertThat(merged(signal, reparsed)).isEqualTo(merged(signal, parsed));
  }

  /**
   * The request with adjacent equal-header blocks merged and its own unknown fields dropped. Twice:
   * a resource block without scope blocks between two blocks of the same resource keeps their scope
   * blocks apart in the first merge, which makes them neighbours.
   */
  private static Message merged(Signal signal, Message request) {
    Message once = BatchModel.of(signal, request, new BatchModel.Stats()).marshal();
    return BatchModel.of(signal, once, new BatchModel.Stats()).marshal();
  }
}
