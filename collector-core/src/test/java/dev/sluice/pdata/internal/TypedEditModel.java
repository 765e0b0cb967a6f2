package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchItem;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.pdata.view.AttributeCursor;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * What the typed-edit property tests share: random strings and attribute values with their
 * protobuf-java form, the model of attribute puts and removes on a protobuf-java list, how an edit
 * picks a key (one the item has, or one of a few others), cutting a batch into slices, handing each
 * item its edits, and checking what the edited batch writes.
 */
final class TypedEditModel {
  private TypedEditModel() {}

  static final List<String> TEXTS =
      List.of("", "x", "GET /users/{id}", "é", "中文", "😀", "a😀b", "k=v,l=w", "production");

  /** Keys an edit names besides those the item has. */
  static final List<String> OTHER_KEYS = List.of("", "a", "http.route", "service.name", "é");

  static Arbitrary<String> texts() {
    return Arbitraries.oneOf(
        Arbitraries.of(TEXTS), Arbitraries.strings().withCharRange(' ', '~').ofMaxLength(12));
  }

  /** Picks a key: the item's own keys first, then {@link #OTHER_KEYS}. */
  static Arbitrary<Integer> keyPicks() {
    return Arbitraries.integers().between(0, 7);
  }

  /** A value of one of the five types a typed editor puts. */
  record Value(int type, String text, long number, double real, byte[] bytes) {
    static final int STRING = 0;
    static final int BOOL = 1;
    static final int INT = 2;
    static final int DOUBLE = 3;
    static final int BYTES = 4;

    boolean flag() {
      return (number & 1) == 1;
    }

    AnyValue proto() {
      AnyValue.Builder value = AnyValue.newBuilder();
      switch (type) {
        case STRING -> value.setStringValue(text);
        case BOOL -> value.setBoolValue(flag());
        case INT -> value.setIntValue(number);
        case DOUBLE -> value.setDoubleValue(real);
        default -> value.setBytesValue(ByteString.copyFrom(bytes));
      }
      return value.build();
    }
  }

  static Arbitrary<Value> values() {
    return Combinators.combine(
            Arbitraries.integers().between(0, 4),
            texts(),
            Arbitraries.longs(),
            Arbitraries.oneOf(
                Arbitraries.doubles(),
                Arbitraries.of(Double.NaN, Double.NEGATIVE_INFINITY, -0.0, 0.0)),
            Arbitraries.bytes().array(byte[].class).ofMaxSize(4))
        .as(Value::new);
  }

  /** The keys of {@code attributes}, in order, each once. */
  static List<String> keys(List<KeyValue> attributes) {
    List<String> keys = new ArrayList<>();
    for (KeyValue entry : attributes) {
      if (!keys.contains(entry.getKey())) {
        keys.add(entry.getKey());
      }
    }
    return keys;
  }

  /** The keys of the attributes a cursor points at, in order, each once. */
  static List<String> keys(AttributeCursor cursor) {
    List<String> keys = new ArrayList<>();
    while (cursor.next()) {
      String key = cursor.key().asString();
      if (!keys.contains(key)) {
        keys.add(key);
      }
    }
    return keys;
  }

  static String key(int pick, List<String> itemKeys) {
    return pick < itemKeys.size()
        ? itemKeys.get(pick)
        : OTHER_KEYS.get((pick - itemKeys.size()) % OTHER_KEYS.size());
  }

  /**
   * A put as pdata makes it: the key's first entry takes the value in place and later entries with
   * the key go; a key not there is appended.
   */
  static void put(List<KeyValue> attributes, String key, AnyValue value) {
    KeyValue entry = KeyValue.newBuilder().setKey(key).setValue(value).build();
    int first = -1;
    for (int i = 0; i < attributes.size(); i++) {
      if (attributes.get(i).getKey().equals(key)) {
        if (first < 0) {
          first = i;
          attributes.set(i, entry);
        } else {
          attributes.remove(i--);
        }
      }
    }
    if (first < 0) {
      attributes.add(entry);
    }
  }

  static void remove(List<KeyValue> attributes, String key) {
    attributes.removeIf(entry -> entry.getKey().equals(key));
  }

  /** An ID of {@code bytes} bytes made from {@code seed}, or empty when {@code empty}. */
  static byte[] id(long seed, int bytes, boolean empty) {
    if (empty) {
      return new byte[0];
    }
    byte[] id = new byte[bytes];
    new Random(seed).nextBytes(id);
    return id;
  }

  /** Eight bytes of an ID from {@code offset}, big-endian, as the views read them; 0 if absent. */
  static long idLong(ByteString id, int idBytes, int offset) {
    if (id.size() != idBytes) {
      return 0;
    }
    long value = 0;
    for (int i = 0; i < Long.BYTES; i++) {
      value = (value << 8) | (id.byteAt(offset + i) & 0xFF);
    }
    return value;
  }

  /** Cuts the batch into random parts and puts them back in order into a new batch. */
  static Batch cutAndJoin(Batch whole, Random random) {
    Batch joined = new Batch(whole.signal());
    while (!whole.isEmpty()) {
      whole.moveTo(joined, 1 + random.nextInt(5));
    }
    return joined;
  }

  /**
   * Indexes the request into a batch cut into random parts, hands each item its edits in one visit
   * and checks that protobuf-java parses the marshaled batch as {@code expected}. Returns the batch
   * for checks of its views; the caller clears it.
   */
  static <E> Batch editAndCheck(
      OtlpIndexer indexer,
      Signal signal,
      Message request,
      Random random,
      List<List<E>> edits,
      BiConsumer<BatchItem, List<E>> edit,
      Message expected)
      throws Exception {
    Batch batch = cutAndJoin(Batch.of(indexer.index(signal, request.toByteArray())), random);
    editEach(batch, edits, edit);
    assertMarshalsAs(batch, signal, expected);
    return batch;
  }

  /** One to four lists of up to eight edits: the n-th item takes list n modulo their number. */
  static <E> Arbitrary<List<List<E>>> editLists(Arbitrary<E> edit) {
    return edit.list().ofMaxSize(8).list().ofMinSize(1).ofMaxSize(4);
  }

  /** Visits the batch, handing the n-th item edit list n modulo their number. */
  static <E> void editEach(Batch batch, List<List<E>> edits, BiConsumer<BatchItem, List<E>> edit) {
    int[] ordinal = {0};
    batch.visit(item -> edit.accept(item, edits.get(ordinal[0]++ % edits.size())));
  }

  /** What protobuf-java parses from the marshaled batch is, item by item, {@code expected}. */
  static void assertMarshalsAs(Batch batch, Signal signal, Message expected) throws Exception {
    Message output = RequestTree.parse(signal, OtlpMarshaler.toByteArray(batch));
    assertThat(RequestTree.flatten(signal, output))
        .isEqualTo(RequestTree.flatten(signal, expected));
  }

  /** The items of a request (spans, log records or metrics), block by block, in order. */
  @SuppressWarnings("unchecked")
  static <M extends Message> List<M> items(Message request) {
    List<M> items = new ArrayList<>();
    for (Message resource : RequestTree.resourceBlocks(request)) {
      for (Message scope : RequestTree.scopeBlocks(resource)) {
        items.addAll((List<M>) RequestTree.items(scope));
      }
    }
    return items;
  }

  /**
   * The builders of the items of a request builder (spans, log records or metrics), block by block,
   * in order: what is set through them is set in the request.
   */
  @SuppressWarnings("unchecked")
  static <B extends Message.Builder> List<B> itemBuilders(Message.Builder request) {
    List<B> items = new ArrayList<>();
    for (Message.Builder resource : children(request, OtlpFields.Request.RESOURCE_BLOCKS)) {
      for (Message.Builder scope : children(resource, OtlpFields.ResourceBlock.SCOPE_BLOCKS)) {
        items.addAll((List<B>) children(scope, OtlpFields.ScopeBlock.ITEMS));
      }
    }
    return items;
  }

  private static List<Message.Builder> children(Message.Builder parent, int number) {
    FieldDescriptor field = parent.getDescriptorForType().findFieldByNumber(number);
    List<Message.Builder> children = new ArrayList<>();
    for (int i = 0; i < parent.getRepeatedFieldCount(field); i++) {
      children.add(parent.getRepeatedFieldBuilder(field, i));
    }
    return children;
  }

  /** What a view writes into {@code bytes} parses as {@code expected}. */
  static <M extends Message> void assertWrites(
      ProtoWriter bytes, Consumer<ProtoWriter> view, Parser<M> parser, M expected) {
    bytes.reset();
    view.accept(bytes);
    try {
      assertThat(parser.parseFrom(bytes.toByteArray())).isEqualTo(expected);
    } catch (InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
  }
}
