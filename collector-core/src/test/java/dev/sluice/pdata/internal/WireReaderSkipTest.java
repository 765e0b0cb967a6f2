package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class WireReaderSkipTest {
  @Test
  void skippingALengthDelimitedValueEndsAfterItsPayload() throws Exception {
    // Field 9, length-delimited, 3 payload bytes; then field 1 = varint 5.
    byte[] bytes = {0x4a, 0x03, (byte) 0xaa, (byte) 0xbb, 0x25, 0x08, 0x05};
    WireReader in = new WireReader().wrap(bytes, 0, bytes.length);

    in.skipValue(in.readTag(), 10);

    assertThat(in.position()).isEqualTo(5);
    assertThat(in.readTag()).isEqualTo(WireType.tag(1, WireType.VARINT));
    assertThat(in.readVarint64()).isEqualTo(5);
    assertThat(in.hasRemaining()).isFalse();
  }

  @Test
  void skippingALengthDelimitedValueWithAMultiByteLengthEndsAfterItsPayload() throws Exception {
    // Field 9, length-delimited, 200 payload bytes (length varint c8 01); then field 1 = 5.
    byte[] bytes = new byte[3 + 200 + 2];
    bytes[0] = 0x4a;
    bytes[1] = (byte) 0xc8;
    bytes[2] = 0x01;
    bytes[203] = 0x08;
    bytes[204] = 0x05;
    WireReader in = new WireReader().wrap(bytes, 0, bytes.length);

    in.skipValue(in.readTag(), 10);

    assertThat(in.position()).isEqualTo(203);
    assertThat(in.readTag()).isEqualTo(WireType.tag(1, WireType.VARINT));
    assertThat(in.readVarint64()).isEqualTo(5);
  }

  @Test
  void skippingAGroupSkipsTheLengthDelimitedFieldsInside() throws Exception {
    // Field 3 start-group { field 1, length-delimited, 2 bytes } field 3 end-group; then field 1.
    byte[] bytes = {0x1b, 0x0a, 0x02, 0x7f, 0x7f, 0x1c, 0x08, 0x01};
    WireReader in = new WireReader().wrap(bytes, 0, bytes.length);

    in.skipValue(in.readTag(), 10);

    assertThat(in.position()).isEqualTo(6);
  }
}
