package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import dev.sluice.pdata.MalformedOtlpException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class WireReaderTest {

  /** Writes with protobuf-java's CodedOutputStream into a byte array. */
  private interface Encoding {
    void writeTo(CodedOutputStream out) throws IOException;
  }

  private static byte[] encode(Encoding encoding) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    encoding.writeTo(out);
    out.flush();
    return bytes.toByteArray();
  }

  /** Puts the bytes at a random offset inside a larger array of junk, as in a network buffer. */
  private static byte[] embed(byte[] bytes, int offset) {
    byte[] buffer = new byte[offset + bytes.length + 16];
    Arrays.fill(buffer, (byte) 0xFF);
    System.arraycopy(bytes, 0, buffer, offset, bytes.length);
    return buffer;
  }

  private static List<Long> varintValues() {
    List<Long> values = new ArrayList<>();
    for (int bits = 0; bits <= 64; bits++) {
      for (long v : WireValues.aroundBitLength64(bits)) {
        values.add(v);
      }
    }
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < 20_000; i++) {
      values.add(WireValues.randomLong(random));
    }
    return values;
  }

  @Test
  void readsVarintsThatProtobufWrote() throws Exception {
    List<Long> values = varintValues();
    byte[] encoded =
        encode(
            out -> {
              for (long v : values) {
                out.writeUInt64NoTag(v);
              }
            });
    for (int offset : new int[] {0, 3}) {
      WireReader in = new WireReader().wrap(embed(encoded, offset), offset, encoded.length);
      for (long v : values) {
        int start = in.position();
        assertThat(in.readVarint64()).isEqualTo(v);
        assertThat(in.position() - start).isEqualTo(CodedOutputStream.computeUInt64SizeNoTag(v));
      }
      assertThat(in.hasRemaining()).isFalse();
      assertThat(in.position()).isEqualTo(offset + encoded.length);
    }
  }

  @Test
  void readsNegativeInt32AsTenByteVarint() throws Exception {
    int[] values = {-1, Integer.MIN_VALUE, -128, -129, Integer.MAX_VALUE, 0};
    byte[] encoded =
        encode(
            out -> {
              for (int v : values) {
                out.writeInt32NoTag(v);
              }
            });
    WireReader in = new WireReader().wrap(encoded, 0, encoded.length);
    for (int v : values) {
      assertThat((int) in.readVarint64()).isEqualTo(v);
    }
    assertThat(in.hasRemaining()).isFalse();
  }

  @Test
  void readsFixedValuesThatProtobufWrote() throws Exception {
    SplittableRandom random = new SplittableRandom(11);
    List<Long> values = new ArrayList<>(varintValues().subList(0, 2000));
    for (int i = 0; i < 2000; i++) {
      values.add(random.nextLong());
    }
    byte[] encoded =
        encode(
            out -> {
              for (long v : values) {
                out.writeFixed64NoTag(v);
                out.writeFixed32NoTag((int) v);
                out.writeFixed32NoTag((int) (v >>> 32));
              }
            });
    // Unaligned on purpose: the reader uses byte-array views and must not care.
    WireReader in = new WireReader().wrap(embed(encoded, 5), 5, encoded.length);
    for (long v : values) {
      assertThat(in.readFixed64()).isEqualTo(v);
      assertThat(in.readFixed32()).isEqualTo((int) v);
      assertThat(in.readFixed32()).isEqualTo((int) (v >>> 32));
    }
    assertThat(in.hasRemaining()).isFalse();
  }

  @Test
  void readsTagsThatProtobufWrote() throws Exception {
    SplittableRandom random = new SplittableRandom(13);
    List<int[]> tags = new ArrayList<>();
    for (int field : new int[] {1, 15, 16, 2047, 2048, 262143, 262144, WireType.MAX_FIELD_NUMBER}) {
      for (int wireType : new int[] {0, 1, 2, 3, 4, 5}) {
        tags.add(new int[] {field, wireType});
      }
    }
    for (int i = 0; i < 5000; i++) {
      int field = 1 + (random.nextInt(WireType.MAX_FIELD_NUMBER) >>> random.nextInt(29));
      tags.add(new int[] {field, random.nextInt(6)});
    }
    byte[] encoded =
        encode(
            out -> {
              for (int[] t : tags) {
                out.writeTag(t[0], t[1]);
              }
            });
    WireReader in = new WireReader().wrap(encoded, 0, encoded.length);
    for (int[] t : tags) {
      int tag = in.readTag();
      assertThat(tag).isEqualTo((t[0] << 3) | t[1]);
      assertThat(tag >>> 3).isEqualTo(t[0]);
      assertThat(tag & 7).isEqualTo(t[1]);
    }
    assertThat(in.hasRemaining()).isFalse();
  }

  @Test
  void readsLengthsThatProtobufWroteAndStopsAtThePayload() throws Exception {
    int[] lengths = {0, 1, 127, 128, 300, 16383, 16384, 70000};
    byte[] encoded =
        encode(
            out -> {
              for (int length : lengths) {
                byte[] payload = new byte[length];
                Arrays.fill(payload, (byte) length);
                out.writeByteArrayNoTag(payload);
              }
            });
    WireReader in = new WireReader().wrap(embed(encoded, 1), 1, encoded.length);
    for (int length : lengths) {
      int start = in.position();
      assertThat(in.readLength()).isEqualTo(length);
      assertThat(in.position() - start).isEqualTo(CodedOutputStream.computeUInt32SizeNoTag(length));
      in.position(in.position() + length);
    }
    assertThat(in.hasRemaining()).isFalse();
  }

  @Test
  void skipsEveryWireTypeThatProtobufWrote() throws Exception {
    SplittableRandom random = new SplittableRandom(17);
    int fields = 3000;
    long[] seeds = new long[fields];
    for (int i = 0; i < fields; i++) {
      seeds[i] = random.nextLong();
    }
    byte[] encoded =
        encode(
            out -> {
              for (int i = 0; i < fields; i++) {
                long v = seeds[i];
                int field = 1 + (int) ((v >>> 40) & 0xFFFF);
                switch ((int) Long.remainderUnsigned(v, 5)) {
                  case 0:
                    out.writeUInt64(field, v >>> (v & 63));
                    break;
                  case 1:
                    out.writeFixed64(field, v);
                    break;
                  case 2:
                    out.writeBytes(field, ByteString.copyFrom(new byte[(int) (v & 0x3FF)]));
                    break;
                  case 3:
                    out.writeFixed32(field, (int) v);
                    break;
                  default:
                    // A group holding a varint and a nested group.
                    out.writeTag(field, WireFormat.WIRETYPE_START_GROUP);
                    out.writeUInt64(1, v);
                    out.writeTag(2, WireFormat.WIRETYPE_START_GROUP);
                    out.writeTag(2, WireFormat.WIRETYPE_END_GROUP);
                    out.writeTag(field, WireFormat.WIRETYPE_END_GROUP);
                }
              }
            });
    WireReader in = new WireReader().wrap(encoded, 0, encoded.length);
    int count = 0;
    while (in.hasRemaining()) {
      int tag = in.readTag();
      assertThat(tag >>> 3).isEqualTo(1 + (int) ((seeds[count] >>> 40) & 0xFFFF));
      in.skipValue(tag, 10);
      count++;
    }
    assertThat(count).isEqualTo(fields);
  }

  @Test
  void skippingALengthDelimitedValueSkipsItsLengthPrefixToo() throws Exception {
    // field 1, 200 payload bytes (a two-byte length prefix), then field 2 varint 7.
    byte[] encoded =
        encode(
            out -> {
              out.writeByteArray(1, new byte[200]);
              out.writeUInt32(2, 7);
            });
    WireReader in = new WireReader().wrap(encoded, 0, encoded.length);
    in.skipValue(in.readTag(), 10);
    assertThat(in.position()).isEqualTo(1 + 2 + 200);
    assertThat(in.readTag()).isEqualTo((2 << 3) | WireType.VARINT);
    assertThat(in.readVarint64()).isEqualTo(7);
  }

  @Test
  void everyReadStaysInsideTheLimit() throws Exception {
    byte[] encoded =
        encode(
            out -> {
              out.writeUInt64NoTag(Long.MAX_VALUE);
              out.writeFixed64NoTag(1);
              out.writeFixed32NoTag(1);
              out.writeByteArrayNoTag(new byte[10]);
            });
    // The bytes after the limit are valid continuations: reading them would hide the error.
    int varint = CodedOutputStream.computeUInt64SizeNoTag(Long.MAX_VALUE);
    for (int limit = 0; limit < varint; limit++) {
      WireReader in = new WireReader().wrap(encoded, 0, limit);
      assertMalformed(in::readVarint64, 0, "truncated varint");
    }
    for (int cut = 0; cut < 8; cut++) {
      WireReader in = new WireReader().wrap(encoded, varint, cut);
      assertMalformed(in::readFixed64, varint, "truncated fixed64: needs 8 bytes");
    }
    for (int cut = 0; cut < 4; cut++) {
      WireReader in = new WireReader().wrap(encoded, varint + 8, cut);
      assertMalformed(in::readFixed32, varint + 8, "truncated fixed32: needs 4 bytes");
    }
    int lengthAt = varint + 12;
    for (int cut = 1; cut < 11; cut++) {
      WireReader in = new WireReader().wrap(encoded, lengthAt, cut);
      assertMalformed(
          in::readLength,
          lengthAt,
          "length 10 exceeds the " + (cut - 1) + " bytes left in the enclosing message");
    }
  }

  @Test
  void rejectsVarintsLongerThanTenBytes() throws Exception {
    byte[] eleven = new byte[11];
    Arrays.fill(eleven, (byte) 0x80);
    eleven[10] = 0x01;
    WireReader in = new WireReader().wrap(eleven, 0, eleven.length);
    assertMalformed(in::readVarint64, 0, "varint longer than 10 bytes");
    // Ten bytes are fine, whatever the tenth holds beyond bit 63 (as in protobuf-java).
    WireReader ten = new WireReader().wrap(eleven, 1, 10);
    assertThat(ten.readVarint64()).isEqualTo(1L << 63);
  }

  @Test
  void rejectsBadTags() {
    assertMalformed(
        new WireReader().wrap(new byte[] {0x02}, 0, 1)::readTag,
        0,
        "field number 0 is not allowed");
    assertMalformed(
        new WireReader().wrap(new byte[] {0x0E}, 0, 1)::readTag,
        0,
        "invalid wire type 6 for field 1");
    assertMalformed(
        new WireReader().wrap(new byte[] {(byte) 0xFF, 0x01}, 0, 2)::readTag,
        0,
        "invalid wire type 7 for field 31");
    byte[] wide = {(byte) 0x88, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x10};
    assertMalformed(
        new WireReader().wrap(wide, 0, wide.length)::readTag,
        0,
        "tag varint does not fit in 32 bits");
  }

  @Test
  void rejectsLengthsThatDoNotFitInTheEnclosingMessage() throws Exception {
    byte[] huge = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x0F, 1, 2, 3};
    assertMalformed(
        new WireReader().wrap(huge, 0, huge.length)::readLength,
        0,
        "length 4294967295 exceeds the 3 bytes left in the enclosing message");
  }

  @Test
  void rejectsLengthsWhoseVarintIsNegativeAsASignedLong() throws Exception {
    // protobuf-java reads a length as the low 32 bits of the varint and rejects negative ones.
    for (long length : new long[] {-1L, -2L, -100_000L, Integer.MIN_VALUE, Long.MIN_VALUE + 5}) {
      byte[] encoded = encode(out -> out.writeUInt64NoTag(length));
      byte[] withPayload = Arrays.copyOf(encoded, encoded.length + 8);
      WireReader in = new WireReader().wrap(withPayload, 0, withPayload.length);
      assertMalformed(
          in::readLength,
          0,
          "length "
              + Long.toUnsignedString(length)
              + " exceeds the 8 bytes left in the enclosing message");
    }
  }

  @Test
  void skipsGroupsAndChecksTheirEnd() throws Exception {
    // field 5 group { field 6 group { } field 1 varint } end 5
    byte[] ok = {0x2B, 0x33, 0x34, 0x08, 0x01, 0x2C, 0x10};
    WireReader in = new WireReader().wrap(ok, 0, ok.length);
    in.skipValue(in.readTag(), 2);
    assertThat(in.position()).isEqualTo(6);
    // Depth 1 allows the outer group only.
    WireReader shallow = new WireReader().wrap(ok, 0, ok.length);
    int tag = shallow.readTag();
    assertMalformed(skipping(shallow, tag, 1), 2, "groups nested too deeply");

    // An end-group read where a value should start: reported at its tag, like other tag errors.
    byte[] lone = {0x08, 0x01, 0x2C};
    WireReader l = new WireReader().wrap(lone, 0, lone.length);
    l.skipValue(l.readTag(), 5);
    int lTag = l.readTag();
    assertMalformed(skipping(l, lTag, 5), 2, "unexpected end-group for field 5");

    byte[] mismatched = {0x2B, 0x08, 0x01, 0x34};
    WireReader m = new WireReader().wrap(mismatched, 0, mismatched.length);
    int mTag = m.readTag();
    assertMalformed(skipping(m, mTag, 5), 3, "end-group for field 6 closes a group of field 5");

    byte[] open = {0x2B, 0x08, 0x01};
    WireReader o = new WireReader().wrap(open, 0, open.length);
    int oTag = o.readTag();
    assertMalformed(skipping(o, oTag, 5), 1, "group of field 5 has no end-group");
  }

  private interface Read {
    Object read() throws MalformedOtlpException;
  }

  private static void assertMalformed(Read read, long offset, String reason) {
    assertThatThrownBy(read::read)
        .isInstanceOfSatisfying(
            MalformedOtlpException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(reason);
              assertThat(e.offset()).isEqualTo(offset);
              assertThat(e.fieldPath()).isEmpty();
            });
  }

  private static Read skipping(WireReader in, int tag, int maxGroupDepth) {
    return () -> {
      in.skipValue(tag, maxGroupDepth);
      return null;
    };
  }
}
