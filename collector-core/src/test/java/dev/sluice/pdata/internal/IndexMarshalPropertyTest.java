package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.testkit.RandomRequests;
import dev.sluice.testkit.RandomRequests.Sizes;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Seeded random requests of every signal: the indexer counts what protobuf-java sees, and a batch
 * holding a whole request marshals back to protobuf-java's bytes.
 *
 * <p>{@code -Dsluice.props.cases=N} runs N cases per signal, {@code -Dsluice.props.seed=S} starts
 * from another seed; a failure names the seed of its case.
 */
class IndexMarshalPropertyTest {
  static final int CASES = Integer.getInteger("sluice.props.cases", 300);
  static final long SEED = Long.getLong("sluice.props.seed", 0x5111CE0L);

  private final OtlpIndexer indexer = new OtlpIndexer();

  static long seed(Signal signal, int testCase) {
    return SEED * 31 + signal.ordinal() * 1_000_003L + testCase;
  }

  @ParameterizedTest
  @EnumSource(Signal.class)
  void indexCountsWhatProtobufJavaParses(Signal signal) throws Exception {
    long units = 0;
    for (int c = 0; c < CASES; c++) {
      long seed = seed(signal, c);
      Message request = RandomRequests.request(signal, new Random(seed), Sizes.DEFAULT, null);
      OtlpIndex index = indexer.index(signal, request.toByteArray());

      String context = signal + " seed " + seed;
      assertThat(index.unitCount()).as(context).isEqualTo(RequestTree.unitCount(signal, request));
      assertThat(index.itemCount()).as(context).isEqualTo(RequestTree.itemCount(request));
      assertThat(index.resourceCount())
          .as(context)
          .isEqualTo(RequestTree.resourceBlocks(request).size());
      assertThat(index.scopeCount()).as(context).isEqualTo(RequestTree.scopeBlockCount(request));
      assertThat(index.sourceLength()).as(context).isEqualTo(request.getSerializedSize());
      units += index.unitCount();
    }
    // The cases are not trivially small.
    assertThat(units).isGreaterThan(CASES * 5L);
  }

  @ParameterizedTest
  @EnumSource(Signal.class)
  void wholeRequestMarshalsToTheBytesProtobufJavaWrites(Signal signal) throws Exception {
    int identical = 0;
    for (int c = 0; c < CASES; c++) {
      long seed = seed(signal, c);
      Message request = RandomRequests.request(signal, new Random(seed), Sizes.DEFAULT, null);
      byte[] bytes = request.toByteArray();
      byte[] marshaled = OtlpMarshaler.toByteArray(Batch.of(indexer.index(signal, bytes)));

      String context = signal + " seed " + seed;
      // Sluice drops the request's own unknown fields; everything below it is kept.
      Message kept = RequestTree.withoutRequestUnknownFields(request);
      if (hasAdjacentEqualHeaders(kept)) {
        // Byte-equal neighbouring headers are coalesced into one block.
        Message coalesced = BatchModel.of(signal, request, new BatchModel.Stats()).marshal();
        assertThat(coalesced).as(context).isNotEqualTo(kept);
        assertThat(marshaled).as(context).isEqualTo(coalesced.toByteArray());
      } else {
        assertThat(marshaled).as(context).isEqualTo(kept.toByteArray());
        if (request.getUnknownFields().asMap().isEmpty()) {
          assertThat(marshaled).as(context).isEqualTo(bytes);
        }
        identical++;
      }
    }
    // Coalescing is the exception in these requests: the identity is what is being tested.
    assertThat(identical).isGreaterThan(CASES * 9 / 10);
  }

  @ParameterizedTest
  @EnumSource(Signal.class)
  void requestIndexedInsideALargerArrayMarshalsTheSame(Signal signal) throws Exception {
    for (int c = 0; c < CASES / 3; c++) {
      long seed = seed(signal, c);
      Random random = new Random(seed);
      Message request = RandomRequests.request(signal, random, Sizes.DEFAULT, null);
      byte[] bytes = request.toByteArray();
      int before = random.nextInt(40);
      byte[] buffer = new byte[before + bytes.length + random.nextInt(40)];
      random.nextBytes(buffer);
      System.arraycopy(bytes, 0, buffer, before, bytes.length);

      OtlpIndex index = indexer.index(signal, buffer, before, bytes.length);
      byte[] expected = OtlpMarshaler.toByteArray(Batch.of(indexer.index(signal, bytes)));
      assertThat(OtlpMarshaler.toByteArray(Batch.of(index)))
          .as(signal + " seed " + seed)
          .isEqualTo(expected);
    }
  }

  /** Whether two neighbouring resource blocks, or scope blocks in one, have equal header bytes. */
  static boolean hasAdjacentEqualHeaders(Message request) {
    ByteString previousResource = null;
    for (Message resource : RequestTree.resourceBlocks(request)) {
      ByteString header = RequestTree.headerBytes(resource);
      if (header.equals(previousResource)) {
        return true;
      }
      previousResource = header;
      List<Message> scopes = RequestTree.scopeBlocks(resource);
      for (int i = 1; i < scopes.size(); i++) {
        if (RequestTree.headerBytes(scopes.get(i))
            .equals(RequestTree.headerBytes(scopes.get(i - 1)))) {
          return true;
        }
      }
    }
    return false;
  }
}
