package dev.sluice.core.otlp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.CodedOutputStream;
import dev.sluice.core.MalformedOtlpException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class MalformedInputTest {

  // Hand-written bytes.

  private interface Encoding {
    void writeTo(CodedOutputStream out) throws IOException;
  }

  private static byte[] encode(Encoding encoding) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      CodedOutputStream out = CodedOutputStream.newInstance(bytes);
      encoding.writeTo(out);
      out.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  /** A length-delimited field holding {@code payload}. */
  private static byte[] field(int number, byte[] payload) {
    return encode(out -> out.writeByteArray(number, payload));
  }

  /** A traces request with one resource block, one scope block and the given span bytes. */
  private static byte[] traceRequestWithSpan(byte[] span) {
    return field(1, field(2, field(2, span)));
  }

  private static void assertRejected(
      Signal signal, byte[] request, String path, long offset, String reason) {
    assertRejected(new OtlpIndexer(), signal, request, path, offset, reason);
  }

  private static void assertRejected(
      OtlpIndexer indexer, Signal signal, byte[] request, String path, long offset, String reason) {
    assertThatThrownBy(() -> indexer.index(signal, request))
        .isInstanceOfSatisfying(
            MalformedOtlpException.class,
            e -> {
              assertThat(e.fieldPath()).as("path").isEqualTo(path);
              assertThat(e.reason()).as("reason").isEqualTo(reason);
              assertThat(e.offset()).as("offset").isEqualTo(offset);
              assertThat(e.getMessage())
                  .isEqualTo(
                      (path.isEmpty() ? "request" : path) + ": " + reason + " at offset " + offset);
            });
  }

  // Negative lengths: a ten-byte length varint is negative as a signed long.

  @Test
  void negativeStringLengthIsRejectedNotFollowedOutOfTheArray() {
    byte[] span =
        encode(
            out -> {
              out.writeTag(5, 2);
              out.writeUInt64NoTag(Integer.MIN_VALUE); // ten bytes, negative
              out.writeRawBytes(new byte[] {'a', 'b', 'c'});
            });
    byte[] request = traceRequestWithSpan(span);
    assertRejected(
        Signal.TRACES,
        request,
        "resource_spans[0].scope_spans[0].spans[0].name",
        7,
        "length 18446744071562067968 exceeds the 3 bytes left in the enclosing message");
  }

  @Test
  // A separate thread: a looping indexer never sees an interrupt.
  @Timeout(value = 10, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void negativeStringLengthCannotSendTheIndexerBackIntoALoop() {
    // name "ab", then trace_state whose length would move the reader back to the span's start.
    byte[] span =
        encode(
            out -> {
              out.writeString(5, "ab");
              out.writeTag(3, 2);
              out.writeUInt64NoTag(-15L);
            });
    byte[] request = traceRequestWithSpan(span);
    assertRejected(
        Signal.TRACES,
        request,
        "resource_spans[0].scope_spans[0].spans[0].trace_state",
        11,
        "length 18446744073709551601 exceeds the 0 bytes left in the enclosing message");
  }
}
