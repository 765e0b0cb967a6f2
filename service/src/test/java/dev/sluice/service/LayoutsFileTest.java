package dev.sluice.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the pipelines file reads as, byte by byte: the list it was written with, or damage. */
class PipelinesFileTest {
  private static final Map<String, List<String>> PIPELINES = new LinkedHashMap<>();

  static {
    PIPELINES.put("traces/a", List.of("otlp/x"));
    PIPELINES.put("traces/b", List.of("otlp/x", "otlp/y"));
    PIPELINES.put("logs", List.of("otlp/z"));
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void readsBackWhatItWrote() throws Exception {
    assertThat(PipelinesFile.parse(PipelinesFile.format(PIPELINES)))
        .containsExactlyEntriesOf(PIPELINES);
  }

  @Test
  void readsAFileWrittenBeforeItHadAChecksumWithUnknownExportersForABareName() throws Exception {
    Map<String, List<String>> read = PipelinesFile.parse(utf8("traces/a\totlp/x\nlogs"));
    assertThat(read.keySet()).containsExactly("traces/a", "logs");
    assertThat(read.get("traces/a")).containsExactly("otlp/x");
    assertThat(read.get("logs")).isNull();
  }

  @Test
  void everyTruncationOfAWrittenFileIsDamage() {
    byte[] written = PipelinesFile.format(PIPELINES);
    for (int length = 0; length < written.length; length++) {
      byte[] cut = Arrays.copyOf(written, length);
      assertThatThrownBy(() -> PipelinesFile.parse(cut))
          .as("cut to %d bytes", length)
          .isInstanceOf(PipelinesFile.DamagedException.class);
    }
  }

  @Test
  void everyFlippedBitOfAWrittenFileIsDamage() {
    byte[] written = PipelinesFile.format(PIPELINES);
    for (int bit = 0; bit < written.length * Byte.SIZE; bit++) {
      byte[] flipped = written.clone();
      flipped[bit / Byte.SIZE] ^= (byte) (1 << (bit % Byte.SIZE));
      int at = bit;
      assertThatThrownBy(() -> PipelinesFile.parse(flipped))
          .as("bit %d flipped", at)
          .isInstanceOf(PipelinesFile.DamagedException.class);
    }
  }

  @Test
  void namesTheLineAndByteOfEachKindOfDamage() {
    assertDamaged(new byte[] {'l', 'o', 'g', 's', (byte) 0xC3}, "line 1 (byte 4): not UTF-8");
    assertDamaged(utf8("traces/a\tx\n\nlogs\tz"), "line 2 (byte 11): an empty line");
    assertDamaged(utf8("traces/a\tx\nlogs\t\tz"), "line 2 (byte 16): an empty field");
    assertDamaged(utf8("traces/a\tx\ntraces/a\ty"), "line 2 (byte 11): pipeline traces/a is");
    assertDamaged(utf8("traces/a\tx\tx"), "line 1 (byte 0): exporter x is listed twice");
    assertDamaged(utf8("traces/a\tx\r\nlogs\tz"), "line 1 (byte 10): a control character");
    assertDamaged(utf8("spans/a\tx"), "line 1 (byte 0): \"spans/a\" is not the name of");
    assertDamaged(utf8("traces/\tx"), "line 1 (byte 0): \"traces/\" is not the name of");
    assertDamaged(new byte[0], "line 1 (byte 0): an empty line");
    assertDamaged(utf8("traces/a\tx\n"), "line 2 (byte 11): an empty line");
    byte[] written = PipelinesFile.format(PIPELINES);
    written[written.length - 1] = 'q';
    assertDamaged(written, "line 1 (byte 26): the checksum does not match");
    assertDamaged(utf8("# sluice pipelines crc32c=0000000G\nlogs\tz"), "is not 8 lowercase");
  }

  @Test
  void aFileOfTheCheckedKindNeedsExportersForEachPipeline() {
    Map<String, List<String>> bare = new LinkedHashMap<>();
    bare.put("logs", List.of());
    assertDamaged(PipelinesFile.format(bare), "line 2 (byte 39): pipeline logs has no exporters");
  }

  @Test
  void refusesMorePipelinesThanARecordHasRoutingBits() throws Exception {
    Map<String, List<String>> most = new LinkedHashMap<>();
    for (int p = 0; p < PipelinesFile.MAX_PIPELINES; p++) {
      most.put("traces/" + p, List.of("x"));
    }
    assertThat(PipelinesFile.parse(PipelinesFile.format(most))).hasSize(most.size());
    most.put("traces/one-more", List.of("x"));
    assertDamaged(PipelinesFile.format(most), "more than 31 pipelines");
  }

  @Test
  void refusesAFileLargerThanItsBound() {
    byte[] large = new byte[PipelinesFile.MAX_BYTES + 1];
    Arrays.fill(large, (byte) 'a');
    assertDamaged(large, "byte " + PipelinesFile.MAX_BYTES + "): more than");
  }

  private static void assertDamaged(byte[] content, String message) {
    assertThatThrownBy(() -> PipelinesFile.parse(content))
        .isInstanceOf(PipelinesFile.DamagedException.class)
        .hasMessageContaining(message);
  }
}
