package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.MarshalContext;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.pdata.internal.RequestTree.Entry;
import dev.sluice.testkit.RandomRequests;
import dev.sluice.testkit.RandomRequests.Sizes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Seeded random requests cut into parts with {@link Batch#moveTo} at random unit counts (zero,
 * inside metrics between data points, more than is left), the parts merged again in order in random
 * groupings with {@link Batch#addAll}, {@link Batch#add} and {@link Batch#moveTo}, every batch
 * marshaled and parsed with protobuf-java.
 *
 * <p>Each batch is checked against protobuf-java's view of the requests: flattened to (resource
 * header, scope header, item, data point) entries, the parts and the merged batches hold exactly
 * the entries of the requests, in order; against its unit count; and against {@link BatchModel},
 * which says which blocks the marshaler writes, coalesced ones included.
 */
class SplitMergePropertyTest {
  /** Cases per signal: 200 for the general property, 100 each for the focused ones. */
  private static final int CASES = IndexMarshalPropertyTest.CASES * 2 / 3;

  private static final int FOCUSED_CASES = IndexMarshalPropertyTest.CASES / 3;

  private final OtlpIndexer indexer = new OtlpIndexer();

  // Shared by every batch of a test, starting small: reusing a context must not matter.
  private final MarshalContext context = new MarshalContext(new ProtoWriter(16));

  @ParameterizedTest
  @EnumSource(Signal.class)
  void splitAndMergedBatchesHoldEveryUnitOnceInOrder(Signal signal) throws Exception {
    BatchModel.Stats stats = new BatchModel.Stats();
    long entries = 0;
    for (int c = 0; c < CASES; c++) {
      long seed = IndexMarshalPropertyTest.seed(signal, c) + 77;
      entries += run(signal, seed, Sizes.DEFAULT, false, stats).size();
    }
    // The cases cut slices, and metrics between their data points.
    assertThat(entries).isGreaterThan(CASES * 10L);
    assertThat(stats.sliceCuts).isGreaterThan(CASES);
    if (signal == Signal.METRICS) {
      assertThat(stats.metricCuts).isGreaterThan(CASES / 2);
    }
  }

  @ParameterizedTest
  @EnumSource(Signal.class)
  void partsWithEqualHeadersCoalesceIntoOneBlock(Signal signal) throws Exception {
    // No resource blocks without scope blocks: then no two neighbouring blocks of an output may
    // have equal headers, whatever the cuts.
    Sizes sizes = Sizes.REPEATING.withEmptyBlockChances(0, 0.1);
    BatchModel.Stats stats = new BatchModel.Stats();
    for (int c = 0; c < FOCUSED_CASES; c++) {
      long seed = IndexMarshalPropertyTest.seed(signal, c) + 991;
      run(signal, seed, sizes, true, stats);
    }
    // Blocks of different requests, and different blocks of one request, were written as one.
    assertThat(stats.coalescedResourceBlocks).isGreaterThan(FOCUSED_CASES);
    assertThat(stats.coalescedScopeBlocks).isGreaterThan(FOCUSED_CASES / 2);
  }

  @ParameterizedTest
  @EnumSource(Signal.class)
  void unknownFieldsInHeadersItemsAndDataPointsSurviveSplitAndMerge(Signal signal)
      throws Exception {
    Sizes sizes = Sizes.DEFAULT.withUnknownFieldChance(1);
    BatchModel.Stats stats = new BatchModel.Stats();
    for (int c = 0; c < FOCUSED_CASES; c++) {
      long seed = IndexMarshalPropertyTest.seed(signal, c) + 4242;
      List<Entry> output = run(signal, seed, sizes, c % 2 == 0, stats);
      // The comparison in run() includes unknown fields; check that there were some to compare.
      for (Entry entry : output) {
        assertThat(entry.resourceHeader().getUnknownFields().asMap()).isNotEmpty();
        assertThat(entry.scopeHeader().getUnknownFields().asMap()).isNotEmpty();
        assertThat(entry.item().getUnknownFields().asMap()).isNotEmpty();
        if (entry.point() != null) {
          assertThat(entry.point().getUnknownFields().asMap()).isNotEmpty();
        }
      }
    }
    if (signal == Signal.METRICS) {
      assertThat(stats.metricCuts).isGreaterThan(FOCUSED_CASES / 2);
    }
  }

  /** A piece of the input, in order: a part cut with moveTo, or a whole request to add(). */
  private record Piece(Batch batch, BatchModel model, OtlpIndex index, Message request) {}

  /**
   * Runs one case; returns the entries of the merged batches. Every check of the batches is here.
   */
  private List<Entry> run(
      Signal signal, long seed, Sizes sizes, boolean sharedHeaders, BatchModel.Stats stats)
      throws Exception {
    Random random = new Random(seed);
    String name = signal + " seed " + seed;
    // Without resource blocks that lack scope blocks, neighbouring scope slices of one resource
    // block are always adjacent, so no two neighbouring scope blocks may have equal headers either.
    boolean scopesAdjacent = sizes.emptyResourceChance() == 0;
    RandomRequests.Headers shared =
        sharedHeaders ? RandomRequests.headers(random, sizes, 1 + random.nextInt(3)) : null;
    int requestCount = 1 + random.nextInt(3);
    List<Message> requests = new ArrayList<>();
    List<OtlpIndex> indexes = new ArrayList<>();
    List<Entry> expected = new ArrayList<>();
    for (int i = 0; i < requestCount; i++) {
      Message request = RandomRequests.request(signal, random, sizes, shared);
      requests.add(request);
      indexes.add(indexer.index(signal, request.toByteArray()));
      RequestTree.addEntries(signal, request, expected);
    }

    // Cut every source, made of one or several requests, into parts.
    List<Piece> pieces = new ArrayList<>();
    List<Entry> partEntries = new ArrayList<>();
    int next = 0;
    while (next < requestCount) {
      if (random.nextInt(4) == 0) {
        pieces.add(new Piece(null, null, indexes.get(next), requests.get(next)));
        RequestTree.addEntries(signal, requests.get(next), partEntries);
        next++;
        continue;
      }
      Batch source = Batch.of(indexes.get(next));
      BatchModel sourceModel = BatchModel.of(signal, requests.get(next), stats);
      next++;
      while (next < requestCount && random.nextInt(3) == 0) {
        source.add(indexes.get(next));
        sourceModel.add(requests.get(next));
        next++;
      }
      assertThat(source.unitCount()).as(name).isEqualTo(sourceModel.unitCount());
      for (int round = 0; !source.isEmpty(); round++) {
        long available = source.unitCount();
        long max = round < 100 ? cutSize(random, available) : Long.MAX_VALUE;
        Batch part = new Batch(signal);
        BatchModel partModel = new BatchModel(signal, stats);
        long moved = source.moveTo(part, max);
        long modelMoved = sourceModel.moveTo(partModel, max);

        String step = name + ", moveTo(part, " + max + ") with " + available + " units left";
        assertThat(moved).as(step).isEqualTo(Math.min(max, available)).isEqualTo(modelMoved);
        assertThat(part.unitCount()).as(step).isEqualTo(moved).isLessThanOrEqualTo(max);
        assertThat(source.unitCount()).as(step).isEqualTo(available - moved);
        assertThat(source.sliceCount()).as(step).isEqualTo(sourceModel.sliceCount());
        Message output = check(signal, part, partModel, step, scopesAdjacent);
        assertThat(RequestTree.unitCount(signal, output)).as(step).isLessThanOrEqualTo(max);
        RequestTree.addEntries(signal, output, partEntries);
        pieces.add(new Piece(part, partModel, null, null));
      }
      assertThat(source.unitCount()).as(name).isZero();
    }
    assertThat(partEntries).as(name + ": the parts").isEqualTo(expected);

    // Merge consecutive pieces in random groups.
    List<Entry> mergedEntries = new ArrayList<>();
    int p = 0;
    while (p < pieces.size()) {
      int end = Math.min(pieces.size(), p + 1 + random.nextInt(4));
      Batch merged = new Batch(signal);
      BatchModel mergedModel = new BatchModel(signal, stats);
      // Sometimes the front of what is merged so far moves on to another batch, which ends up
      // holding the whole group: batches whose head has moved keep receiving slices.
      Batch front = null;
      BatchModel frontModel = null;
      for (int q = p; q < end; q++) {
        Piece piece = pieces.get(q);
        if (piece.index() != null) {
          merged.add(piece.index());
          mergedModel.add(piece.request());
        } else {
          if (random.nextBoolean()) {
            merged.addAll(piece.batch());
            mergedModel.addAll(piece.model());
          } else {
            long all = random.nextBoolean() ? Long.MAX_VALUE : piece.batch().unitCount();
            piece.batch().moveTo(merged, all);
            piece.model().moveTo(mergedModel, all);
          }
          assertThat(piece.batch().isEmpty()).as(name).isTrue();
          assertThat(piece.batch().unitCount()).as(name).isZero();
        }
        if (random.nextInt(3) == 0) {
          if (front == null) {
            front = new Batch(signal);
            frontModel = new BatchModel(signal, stats);
          }
          long units = random.nextInt((int) merged.unitCount() + 2);
          assertThat(merged.moveTo(front, units))
              .as(name)
              .isEqualTo(mergedModel.moveTo(frontModel, units));
        }
      }
      if (front != null) {
        front.addAll(merged);
        frontModel.addAll(mergedModel);
        merged = front;
        mergedModel = frontModel;
      }
      Message output =
          check(signal, merged, mergedModel, name + ", pieces " + p + ".." + end, scopesAdjacent);
      RequestTree.addEntries(signal, output, mergedEntries);
      p = end;
    }
    assertThat(mergedEntries).as(name + ": the merged batches").isEqualTo(expected);
    return mergedEntries;
  }

  /** Zero, a few units, any number up to what is left, all of it, or more than is left. */
  private static long cutSize(Random random, long available) {
    switch (random.nextInt(12)) {
      case 0:
        return 0;
      case 1:
        return available;
      case 2:
        return available + 1 + random.nextInt(10);
      case 3:
        return Long.MAX_VALUE;
      case 4:
      case 5:
      case 6:
      case 7:
        return 1 + random.nextInt(3);
      default:
        return random.nextInt((int) Math.min(available + 2, 1000));
    }
  }

  /**
   * Marshals the batch and checks the output: it parses, counts the batch's units, is what the
   * model says, and has no two neighbouring resource blocks (and, if {@code scopesAdjacent}, scope
   * blocks) with equal headers. Returns it parsed.
   */
  private Message check(
      Signal signal, Batch batch, BatchModel model, String name, boolean scopesAdjacent)
      throws Exception {
    int size = OtlpMarshaler.marshal(batch, context);
    byte[] bytes = Arrays.copyOf(context.output().array(), size);
    if (batch.sliceCount() > 4) {
      // A fresh context writes the same bytes as the reused one.
      assertThat(OtlpMarshaler.toByteArray(batch)).as(name).isEqualTo(bytes);
    }

    Message output = RequestTree.parse(signal, bytes);
    assertThat(batch.unitCount())
        .as(name)
        .isEqualTo(RequestTree.unitCount(signal, output))
        .isEqualTo(model.unitCount());
    assertThat(batch.sliceCount()).as(name).isEqualTo(model.sliceCount());
    assertThat(batch.isEmpty()).as(name).isEqualTo(model.sliceCount() == 0);
    assertThat(output).as(name).isEqualTo(model.marshal());

    ByteString previous = null;
    for (Message resource : RequestTree.resourceBlocks(output)) {
      ByteString header = RequestTree.headerBytes(resource);
      assertThat(header).as(name + ": neighbouring resource headers").isNotEqualTo(previous);
      previous = header;
      if (scopesAdjacent) {
        ByteString previousScope = null;
        for (Message scope : RequestTree.scopeBlocks(resource)) {
          ByteString scopeHeader = RequestTree.headerBytes(scope);
          assertThat(scopeHeader)
              .as(name + ": neighbouring scope headers")
              .isNotEqualTo(previousScope);
          previousScope = scopeHeader;
        }
      }
    }
    return output;
  }
}
