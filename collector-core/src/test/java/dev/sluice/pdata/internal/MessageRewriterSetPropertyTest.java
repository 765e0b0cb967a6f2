package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * The engine's single-set path ({@link MessageRewriter#locateSet}, {@link
 * MessageRewriter#writeSet}, which the typed editors take for an edit that sets one field) writes
 * the bytes its general {@link MessageRewriter#write} writes for the same plan, and tells a message
 * it leaves as it was: on messages of random fields in any order, of every wire type, groups
 * included, the field set there none, once or several times, and the set clearing the field or
 * giving it a value.
 */
class MessageRewriterSetPropertyTest {
  private static final int MAX_FIELD = 12;

  /** One encoded field: its number and bytes, tag included. */
  record Field(int number, byte[] bytes) {}

  @Provide
  Arbitrary<Field> fields() {
    Arbitrary<Integer> numbers = Arbitraries.integers().between(1, MAX_FIELD);
    Arbitrary<Field> varint =
        Combinators.combine(numbers, Arbitraries.longs())
            .as(
                (n, v) -> {
                  ProtoWriter out = new ProtoWriter();
                  out.writeTag(n, WireType.VARINT);
                  out.writeVarint64(v);
                  return new Field(n, out.toByteArray());
                });
    Arbitrary<Field> fixed =
        Combinators.combine(numbers, Arbitraries.longs(), Arbitraries.of(true, false))
            .as(
                (n, v, wide) -> {
                  ProtoWriter out = new ProtoWriter();
                  if (wide) {
                    out.writeTag(n, WireType.I64);
                    out.writeFixed64(v);
                  } else {
                    out.writeTag(n, WireType.I32);
                    out.writeFixed32((int) (long) v);
                  }
                  return new Field(n, out.toByteArray());
                });
    Arbitrary<Field> text =
        Combinators.combine(numbers, payloads())
            .as(MessageRewriterSetPropertyTest::lengthDelimited);
    Arbitrary<Field> group =
        numbers.map(
            n -> {
              ProtoWriter out = new ProtoWriter();
              out.writeTag(n, WireType.SGROUP);
              out.writeTag(1, WireType.VARINT);
              out.writeVarint32(7);
              out.writeTag(n, WireType.EGROUP);
              return new Field(n, out.toByteArray());
            });
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(3, varint),
        net.jqwik.api.Tuple.of(2, fixed),
        net.jqwik.api.Tuple.of(6, text),
        net.jqwik.api.Tuple.of(1, group));
  }

  private static Arbitrary<byte[]> payloads() {
    return Arbitraries.bytes().array(byte[].class).ofMaxSize(200);
  }

  private static Field lengthDelimited(int number, byte[] payload) {
    ProtoWriter out = new ProtoWriter();
    out.writeLengthDelimitedHeader(number, payload.length);
    out.writeBytes(payload, 0, payload.length);
    return new Field(number, out.toByteArray());
  }

  @Property(tries = 2000)
  void theSingleSetPathWritesWhatTheGeneralWriteWrites(
      @ForAll("messages") List<Field> fields,
      @ForAll @IntRange(min = 1, max = MAX_FIELD) int field,
      @ForAll("setValues") byte[] value,
      @ForAll boolean clear,
      @ForAll @IntRange(min = 0, max = 5) int padding) {
    byte[] message = padded(join(fields), padding);
    int offset = padding;
    int length = message.length - 2 * padding;
    byte[] encoded = clear ? new byte[0] : lengthDelimited(field, value).bytes();
    // The set's bytes sit inside a larger buffer too, as they do in the editors' scratch.
    byte[] source = padded(encoded, padding);

    MessageRewriter general = new MessageRewriter();
    general.begin();
    general.set(field, source, padding, encoded.length);
    ProtoWriter out = new ProtoWriter();
    general.write(message, offset, length, out);
    byte[] expected = out.toByteArray();
    boolean unchanged =
        Arrays.equals(expected, 0, expected.length, message, offset, offset + length);

    MessageRewriter fast = new MessageRewriter();
    int newLength = fast.locateSet(message, offset, length, field, source, padding, encoded.length);
    long occurrences = fields.stream().filter(f -> f.number() == field).count();
    if (occurrences > 1) {
      assertThat(newLength).isEqualTo(MessageRewriter.GENERAL);
      return;
    }
    if (unchanged) {
      assertThat(newLength).isEqualTo(MessageRewriter.UNCHANGED);
      return;
    }
    assertThat(newLength).isEqualTo(expected.length);
    byte[] into = new byte[newLength + 3];
    fast.writeSet(message, offset, length, source, padding, encoded.length, into, 3);
    assertThat(Arrays.copyOfRange(into, 3, into.length)).isEqualTo(expected);
  }

  @Provide
  Arbitrary<List<Field>> messages() {
    return fields().list().ofMaxSize(10);
  }

  @Provide
  Arbitrary<byte[]> setValues() {
    return payloads();
  }

  /**
   * A field set where the message has none goes before its first field numbered higher, as protobuf
   * writes fields in order, on both paths.
   */
  @Example
  void aFieldTheMessageLacksGoesBeforeTheFirstFieldNumberedHigher() {
    Field one = lengthDelimited(1, new byte[] {1});
    Field three = lengthDelimited(3, new byte[] {3});
    Field five = lengthDelimited(5, new byte[] {5});
    byte[] message = join(List.of(one, five));

    MessageRewriter general = new MessageRewriter();
    general.begin();
    general.set(3, three.bytes(), 0, three.bytes().length);
    ProtoWriter out = new ProtoWriter();
    general.write(message, 0, message.length, out);

    assertThat(out.toByteArray()).isEqualTo(join(List.of(one, three, five)));
    MessageRewriter fast = new MessageRewriter();
    byte[] into =
        new byte
            [fast.locateSet(message, 0, message.length, 3, three.bytes(), 0, three.bytes().length)];
    fast.writeSet(message, 0, message.length, three.bytes(), 0, three.bytes().length, into, 0);
    assertThat(into).isEqualTo(join(List.of(one, three, five)));
  }

  private static byte[] join(List<Field> fields) {
    ProtoWriter out = new ProtoWriter();
    for (Field field : fields) {
      out.writeBytes(field.bytes(), 0, field.bytes().length);
    }
    return out.toByteArray();
  }

  private static byte[] padded(byte[] bytes, int padding) {
    byte[] padded = new byte[bytes.length + 2 * padding];
    Arrays.fill(padded, (byte) 0x55);
    System.arraycopy(bytes, 0, padded, padding, bytes.length);
    return padded;
  }
}
