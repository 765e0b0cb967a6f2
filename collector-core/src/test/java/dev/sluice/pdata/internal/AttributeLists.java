package dev.sluice.pdata.internal;

import dev.sluice.pdata.edit.AttributeValue;
import dev.sluice.pdata.internal.OtlpEnums.SpanKind;
import dev.sluice.pdata.internal.OtlpFields.KeyValue;
import dev.sluice.pdata.internal.OtlpFields.Span;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * Random spans for comparing fast paths over attribute lists with the general ones: keys from a
 * small pool (duplicates, prefixes of one another, empty, non-ASCII, longer than 64 bytes), values
 * of every type, and entries of every shape the wire allows (value before key, two key fields, a
 * key field after the value, no key, no value, padded lengths, unknown fields), between other
 * fields of the span.
 */
final class AttributeLists {
  private static final String LONG_KEY = "k".repeat(70);

  /** A key whose length takes two varint bytes. */
  private static final String LONGER_KEY = "q".repeat(130);

  /**
   * Keys of entries and of actions; "a" is a prefix of "ab", the long key of the longer one, and
   * the longer key's length takes two bytes.
   */
  static final List<String> KEYS =
      List.of(
          "a", "ab", "abc", "b", "ba", "", "é", "http.route", LONG_KEY, LONG_KEY + "x", LONGER_KEY);

  /** Keys that actions may delete or hash (those take no empty key). */
  static final List<String> ACTION_KEYS = KEYS.stream().filter(k -> !k.isEmpty()).toList();

  /** Values; the last one's length (and its entry's) takes two varint bytes. */
  static final List<String> STRINGS =
      List.of("prod", "x", "", "é", "/health", "xyz-12", "v".repeat(150));

  enum Shape {
    COMMON,
    VALUE_FIRST,
    TWO_KEYS,
    KEY_AFTER_VALUE,
    NO_KEY,
    NO_VALUE,
    PADDED_KEY_LENGTH,
    PADDED_ENTRY_LENGTH,
    UNKNOWN_FIELD
  }

  /** One entry: its key, value (an encoded AnyValue) and shape; or another field of the span. */
  record Entry(Shape shape, String key, byte[] value, boolean otherField) {}

  private AttributeLists() {}

  static Arbitrary<byte[]> anyValues() {
    Arbitrary<byte[]> strings =
        Arbitraries.of(STRINGS).map(s -> AttributeValue.string(s).anyValue());
    Arbitrary<byte[]> others =
        Arbitraries.of(
            AttributeValue.integer(7).anyValue(),
            AttributeValue.integer(-1).anyValue(),
            AttributeValue.bool(true).anyValue(),
            AttributeValue.floating(2.5).anyValue(),
            AttributeValue.bytes(new byte[] {1, 2}).anyValue(),
            new byte[0],
            AttributeValue.array(List.of(AttributeValue.string("x"))).anyValue(),
            AttributeValue.kvlist(java.util.Map.of("a", AttributeValue.integer(1))).anyValue());
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(3, strings), net.jqwik.api.Tuple.of(2, others));
  }

  static Arbitrary<Entry> entries() {
    Arbitrary<Shape> shapes =
        Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(12, Arbitraries.just(Shape.COMMON)),
            net.jqwik.api.Tuple.of(1, Arbitraries.just(Shape.VALUE_FIRST)),
            net.jqwik.api.Tuple.of(1, Arbitraries.just(Shape.TWO_KEYS)),
            net.jqwik.api.Tuple.of(1, Arbitraries.just(Shape.KEY_AFTER_VALUE)),
            net.jqwik.api.Tuple.of(1, Arbitraries.just(Shape.NO_KEY)),
            net.jqwik.api.Tuple.of(1, Arbitraries.just(Shape.NO_VALUE)),
            net.jqwik.api.Tuple.of(1, Arbitraries.just(Shape.PADDED_KEY_LENGTH)),
            net.jqwik.api.Tuple.of(1, Arbitraries.just(Shape.PADDED_ENTRY_LENGTH)),
            net.jqwik.api.Tuple.of(1, Arbitraries.just(Shape.UNKNOWN_FIELD)));
    return Combinators.combine(
            shapes,
            Arbitraries.of(KEYS),
            anyValues(),
            Arbitraries.integers().between(0, 9).map(n -> n == 0))
        .as(Entry::new);
  }

  /** A span: a name, then the entries (and other fields among them), then a status. */
  static Arbitrary<byte[]> spans() {
    return entries().list().ofMaxSize(12).map(AttributeLists::span);
  }

  static byte[] span(List<Entry> entries) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    lengthDelimited(out, Span.NAME, utf8("GET /"), false);
    fixed(out, Span.START_TIME_UNIX_NANO, Long.BYTES);
    for (Entry entry : entries) {
      if (entry.otherField()) {
        switch (entry.key().length() % 5) {
          case 0 -> varintField(out, Span.KIND, SpanKind.SERVER);
          case 1 -> varintField(out, 100, Long.MAX_VALUE); // unknown: a two-byte tag, 9 bytes
          case 2 -> fixed(out, Span.FLAGS, Integer.BYTES); // a fixed32 with a two-byte tag
          case 3 -> {
            // kind with its tag padded to two bytes
            paddedVarint(out, Span.KIND << 3);
            varint(out, SpanKind.SERVER);
          }
          // dropped_links_count as a fixed32, a wire type the span does not give it
          default -> fixed(out, Span.DROPPED_LINKS_COUNT, Integer.BYTES);
        }
        continue;
      }
      lengthDelimited(
          out, Span.ATTRIBUTES, entry(entry), entry.shape() == Shape.PADDED_ENTRY_LENGTH);
    }
    lengthDelimited(out, Span.STATUS, new byte[0], false);
    return out.toByteArray();
  }

  private static byte[] entry(Entry entry) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] key = utf8(entry.key());
    switch (entry.shape()) {
      case VALUE_FIRST -> {
        lengthDelimited(out, KeyValue.VALUE, entry.value(), false);
        lengthDelimited(out, KeyValue.KEY, key, false);
      }
      case TWO_KEYS -> {
        lengthDelimited(out, KeyValue.KEY, utf8("ab"), false);
        lengthDelimited(out, KeyValue.KEY, key, false);
        lengthDelimited(out, KeyValue.VALUE, entry.value(), false);
      }
      case KEY_AFTER_VALUE -> {
        // The last key field is the entry's key.
        lengthDelimited(out, KeyValue.KEY, utf8("ab"), false);
        lengthDelimited(out, KeyValue.VALUE, entry.value(), false);
        lengthDelimited(out, KeyValue.KEY, key, false);
      }
      case NO_KEY -> lengthDelimited(out, KeyValue.VALUE, entry.value(), false);
      case NO_VALUE -> lengthDelimited(out, KeyValue.KEY, key, false);
      case PADDED_KEY_LENGTH -> {
        lengthDelimited(out, KeyValue.KEY, key, true);
        lengthDelimited(out, KeyValue.VALUE, entry.value(), false);
      }
      case UNKNOWN_FIELD -> {
        lengthDelimited(out, KeyValue.KEY, key, false);
        lengthDelimited(out, KeyValue.VALUE, entry.value(), false);
        varintField(out, 7, 1); // not a KeyValue field
      }
      default -> {
        lengthDelimited(out, KeyValue.KEY, key, false);
        lengthDelimited(out, KeyValue.VALUE, entry.value(), false);
      }
    }
    return out.toByteArray();
  }

  static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static void lengthDelimited(
      ByteArrayOutputStream out, int field, byte[] payload, boolean paddedLength) {
    varint(out, (field << 3) | 2);
    if (paddedLength) {
      paddedVarint(out, payload.length);
    } else {
      varint(out, payload.length);
    }
    out.write(payload, 0, payload.length);
  }

  /** A fixed64 (8 bytes) or fixed32 (4 bytes) field of ones. */
  private static void fixed(ByteArrayOutputStream out, int field, int bytes) {
    varint(out, (field << 3) | (bytes == Long.BYTES ? 1 : 5));
    for (int i = 0; i < bytes; i++) {
      out.write(1);
    }
  }

  private static void varintField(ByteArrayOutputStream out, int field, long value) {
    varint(out, field << 3);
    varint(out, value);
  }

  private static void varint(ByteArrayOutputStream out, long value) {
    while ((value & ~0x7FL) != 0) {
      out.write((int) ((value & 0x7F) | 0x80));
      value >>>= 7;
    }
    out.write((int) value);
  }

  /** One byte more than the value takes: its last byte marked as continued, then a zero. */
  private static void paddedVarint(ByteArrayOutputStream out, long value) {
    while ((value & ~0x7FL) != 0) {
      out.write((int) ((value & 0x7F) | 0x80));
      value >>>= 7;
    }
    out.write((int) value | 0x80);
    out.write(0);
  }
}
