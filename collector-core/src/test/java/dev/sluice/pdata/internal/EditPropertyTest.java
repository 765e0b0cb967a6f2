package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.UnknownFieldSet;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.pdata.internal.RequestTree.Entry;
import dev.sluice.testkit.RandomRequests;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Random requests, cut into random slices and put back together, then random units dropped, random
 * units replaced and random resources and scopes replaced in one visit: what protobuf-java reads
 * from the output is, unit by unit, the original with the same changes made with its builders.
 *
 * <p>A replacement is the original message with an unknown field added (so any message type will
 * do), and the expected message gets the same field through protobuf-java.
 */
class EditPropertyTest {
  private static final int CASES = 150;
  private static final int MARK_FIELD = 1000;

  private final OtlpIndexer indexer = new OtlpIndexer();

  @ParameterizedTest
  @EnumSource(Signal.class)
  void dropsAndReplacementsComeOutAsProtobufJavaWouldMakeThem(Signal signal) throws Exception {
    for (int c = 0; c < CASES; c++) {
      long seed = 0xED17L * 1000 + c + signal.ordinal() * 100_000L;
      check(signal, seed);
    }
  }

  private void check(Signal signal, long seed) throws Exception {
    Random random = new Random(seed);
    Message request = RandomRequests.request(signal, random, RandomRequests.Sizes.DEFAULT, null);
    OtlpIndex index = indexer.index(signal, request.toByteArray());
    Batch batch = cutAndJoin(Batch.of(index), random);
    long units = index.unitCount();
    boolean[] drop = new boolean[(int) units];
    boolean[] replace = new boolean[(int) units];
    for (int u = 0; u < units; u++) {
      int roll = random.nextInt(10);
      drop[u] = roll < 3;
      replace[u] = roll >= 7;
    }
    boolean[] replaceResource = randomFlags(random, index.resourceCount());
    boolean[] replaceScope = randomFlags(random, index.scopeCount());

    int[] ordinal = {0};
    long dropped =
        batch.visit(
            item -> {
              int u = ordinal[0]++;
              if (drop[u]) {
                item.drop();
              } else if (replace[u]) {
                byte[] marked = marked(item.array(), item.offset(), item.length(), u);
                item.replace(marked, 0, marked.length);
              }
              if (replaceResource[item.resource()] && !item.resourceReplacedInThisVisit()) {
                item.childOf(true);
                byte[] marked = marked(item.childArray, item.childOffset, item.childLength, -1);
                item.replaceResource(marked, 0, marked.length);
              }
              if (replaceScope[item.scope()] && !item.scopeReplacedInThisVisit()) {
                item.childOf(false);
                byte[] marked = marked(item.childArray, item.childOffset, item.childLength, -2);
                item.replaceScope(marked, 0, marked.length);
              }
            });

    String name = signal + " seed " + seed;
    assertThat(ordinal[0]).as(name).isEqualTo(units);
    long droppedCount = 0;
    for (boolean d : drop) {
      droppedCount += d ? 1 : 0;
    }
    assertThat(dropped).as(name).isEqualTo(droppedCount);
    assertThat(batch.unitCount()).as(name).isEqualTo(units - droppedCount);
    Message output = RequestTree.parse(signal, OtlpMarshaler.toByteArray(batch));
    List<Entry> actual = RequestTree.flatten(signal, output);
    assertThat(actual)
        .as(name)
        .isEqualTo(expected(signal, request, drop, replace, replaceResource, replaceScope));
    batch.clear();
  }

  private static boolean[] randomFlags(Random random, int count) {
    boolean[] flags = new boolean[count];
    for (int i = 0; i < count; i++) {
      flags[i] = random.nextInt(3) == 0;
    }
    return flags;
  }

  /** Cuts the batch into random parts and puts them back in order into a new batch. */
  private static Batch cutAndJoin(Batch whole, Random random) {
    Batch joined = new Batch(whole.signal());
    while (!whole.isEmpty()) {
      whole.moveTo(joined, 1 + random.nextInt(5));
    }
    return joined;
  }

  /** The message with a varint unknown field {@value #MARK_FIELD} holding {@code mark} added. */
  private static byte[] marked(byte[] bytes, int offset, int length, int mark) {
    byte[] tag = {(byte) 0xC0, 0x3E}; // field 1000, varint
    byte[] out = Arrays.copyOfRange(bytes, offset, offset + length + tag.length + 5);
    System.arraycopy(tag, 0, out, length, tag.length);
    int p = length + tag.length;
    long value = mark & 0xFFFFFFFFL;
    while ((value & ~0x7FL) != 0) {
      out[p++] = (byte) ((value & 0x7F) | 0x80);
      value >>>= 7;
    }
    out[p++] = (byte) value;
    return Arrays.copyOf(out, p);
  }

  private static Message mark(Message message, int mark) {
    UnknownFieldSet fields =
        UnknownFieldSet.newBuilder(message.getUnknownFields())
            .mergeField(
                MARK_FIELD,
                UnknownFieldSet.Field.newBuilder().addVarint(mark & 0xFFFFFFFFL).build())
            .build();
    return message.toBuilder().setUnknownFields(fields).build();
  }

  /** The header with its child message (field 1) marked; a header without one gets an empty one. */
  private static Message markChild(Message header, int mark) {
    FieldDescriptor child = header.getDescriptorForType().findFieldByNumber(1);
    Message current = (Message) header.getField(child);
    return header.toBuilder().setField(child, mark(current, mark)).build();
  }

  private static long units(Signal signal, List<Message> scopeBlocks) {
    long units = 0;
    for (Message scope : scopeBlocks) {
      for (Message item : RequestTree.items(scope)) {
        units += RequestTree.units(signal, item);
      }
    }
    return units;
  }

  private static List<Entry> expected(
      Signal signal,
      Message request,
      boolean[] drop,
      boolean[] replace,
      boolean[] replaceResource,
      boolean[] replaceScope) {
    List<Entry> entries = new ArrayList<>();
    int unit = 0;
    int scopeNumber = 0;
    List<Message> resources = RequestTree.resourceBlocks(request);
    for (int r = 0; r < resources.size(); r++) {
      Message resource = resources.get(r);
      Message resourceHeader = RequestTree.header(resource);
      // A block is replaced by a visit that reaches one of its units: blocks without any keep
      // their header.
      if (replaceResource[r] && units(signal, RequestTree.scopeBlocks(resource)) > 0) {
        resourceHeader = markChild(resourceHeader, -1);
      }
      for (Message scope : RequestTree.scopeBlocks(resource)) {
        Message scopeHeader = RequestTree.header(scope);
        if (replaceScope[scopeNumber++] && units(signal, List.of(scope)) > 0) {
          scopeHeader = markChild(scopeHeader, -2);
        }
        List<Entry> original = new ArrayList<>();
        RequestTree.addEntries(
            signal,
            RequestTree.request(signal, List.of(RequestTree.block(resourceHeader, List.of(scope)))),
            original);
        for (Entry entry : original) {
          Entry withHeader = new Entry(resourceHeader, scopeHeader, entry.item(), entry.point());
          boolean isUnit = signal != Signal.METRICS || entry.point() != null;
          if (!isUnit) {
            entries.add(withHeader);
            continue;
          }
          int u = unit++;
          if (drop[u]) {
            continue;
          }
          if (replace[u]) {
            withHeader =
                signal == Signal.METRICS
                    ? new Entry(resourceHeader, scopeHeader, entry.item(), mark(entry.point(), u))
                    : new Entry(resourceHeader, scopeHeader, mark(entry.item(), u), null);
          }
          entries.add(withHeader);
        }
      }
    }
    return entries;
  }
}
