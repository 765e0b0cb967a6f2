package dev.sluice.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.wal.WriteAheadLog;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the layouts file reads as, byte by byte: the layouts it was written with, or damage; and
 * what the file of the earlier format ({@value LayoutsFile#FORMER_NAME}) reads as.
 */
class LayoutsFileTest {
  private static final Map<String, List<String>> PIPELINES = new LinkedHashMap<>();

  static {
    PIPELINES.put("traces/a", List.of("otlp/x"));
    PIPELINES.put("traces/b", List.of("otlp/x", "otlp/y"));
    PIPELINES.put("logs", List.of("otlp/z"));
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static final Map<Integer, Map<String, List<String>>> LAYOUTS = new LinkedHashMap<>();

  static {
    Map<String, List<String>> other = new LinkedHashMap<>();
    other.put("logs", List.of("otlp/z"));
    other.put("traces/c", List.of("otlp/y"));
    Map<String, List<String>> former = new LinkedHashMap<>();
    former.put("traces/a", null);
    former.put("logs", List.of("otlp/z"));
    LAYOUTS.put(7, PIPELINES);
    LAYOUTS.put(65535, other);
    LAYOUTS.put(WriteAheadLog.FORMER_LAYOUT, former);
  }

  @Test
  void readsBackTheLayoutsItWrote() throws Exception {
    Map<Integer, Map<String, List<String>>> read = LayoutsFile.parse(LayoutsFile.format(LAYOUTS));
    assertThat(read.keySet()).containsExactly(7, 65535, WriteAheadLog.FORMER_LAYOUT);
    for (int number : LAYOUTS.keySet()) {
      // In routing-bit order, which map equality alone would not check.
      assertThat(new ArrayList<>(read.get(number).entrySet()))
          .isEqualTo(new ArrayList<>(LAYOUTS.get(number).entrySet()));
    }
  }

  @Test
  void everyTruncationOrFlippedBitOfAWrittenLayoutsFileIsDamage() {
    byte[] written = LayoutsFile.format(LAYOUTS);
    for (int length = 0; length < written.length; length++) {
      byte[] cut = Arrays.copyOf(written, length);
      assertThatThrownBy(() -> LayoutsFile.parse(cut))
          .as("cut to %d bytes", length)
          .isInstanceOf(LayoutsFile.DamagedException.class);
    }
    for (int bit = 0; bit < written.length * Byte.SIZE; bit++) {
      byte[] flipped = written.clone();
      flipped[bit / Byte.SIZE] ^= (byte) (1 << (bit % Byte.SIZE));
      int at = bit;
      assertThatThrownBy(() -> LayoutsFile.parse(flipped))
          .as("bit %d flipped", at)
          .isInstanceOf(LayoutsFile.DamagedException.class);
    }
  }

  @Test
  void namesTheLineAndByteOfEachKindOfDamageInTheLayoutsFile() {
    assertLayoutsDamaged("traces/a\tx", "line 1 (byte 0): the first line is not");
    assertLayoutsDamaged(checked("traces/a\tx"), "line 2 (byte 33): a pipeline before the first");
    assertLayoutsDamaged(
        checked("layout 1\nlayout 2\nlogs\tz"), "line 2 (byte 33): layout 1 has no");
    assertLayoutsDamaged(
        checked("layout 1\nlogs\tz\nlayout 1\nlogs\tz"), "layout 1 is listed twice");
    assertLayoutsDamaged(checked("layout 65536\nlogs\tz"), "a layout number is 0 to 65535");
    assertLayoutsDamaged(checked("layout 01\nlogs\tz"), "a layout number is 0 to 65535");
    assertLayoutsDamaged(checked("layout -1\nlogs\tz"), "a layout number is 0 to 65535");
    assertLayoutsDamaged(checked("layout 1"), "the last layout has no pipelines");
    assertLayoutsDamaged(checked("layout 1\nlogs"), "pipeline logs has no exporters");
    assertLayoutsDamaged(checked("layout 1\nlogs\tz\n\nlogs\tz"), "an empty line");
  }

  @Test
  void onlyTheFormerLayoutMayLeaveAPipelinesExportersUnknown() throws Exception {
    Map<String, List<String>> former = LayoutsFile.parse(checked("layout former\nlogs")).get(-1);
    assertThat(former).containsKey("logs");
    assertThat(former.get("logs")).isNull();
  }

  @Test
  void refusesALayoutsFileLargerThanItsBound() {
    byte[] large = new byte[LayoutsFile.MAX_BYTES + 1];
    Arrays.fill(large, (byte) 'a');
    assertThatThrownBy(() -> LayoutsFile.parse(large))
        .isInstanceOf(LayoutsFile.DamagedException.class)
        .hasMessageContaining("byte " + LayoutsFile.MAX_BYTES + "): more than");
  }

  /** A layouts file of these lines, with a checksum that holds. */
  private static byte[] checked(String lines) {
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(utf8(lines));
    return utf8(
        String.format("# sluice layouts crc32c=%08x%n", crc.getValue()).replace("\r", "") + lines);
  }

  private static void assertLayoutsDamaged(String content, String message) {
    assertLayoutsDamaged(utf8(content), message);
  }

  private static void assertLayoutsDamaged(byte[] content, String message) {
    assertThatThrownBy(() -> LayoutsFile.parse(content))
        .isInstanceOf(LayoutsFile.DamagedException.class)
        .hasMessageContaining(message);
  }

  @Test
  void readsBackWhatItWrote() throws Exception {
    assertThat(LayoutsFile.parseFormer(LayoutsFile.formatFormer(PIPELINES)))
        .containsExactlyEntriesOf(PIPELINES);
  }

  @Test
  void readsAFileWrittenBeforeItHadAChecksumWithUnknownExportersForABareName() throws Exception {
    Map<String, List<String>> read = LayoutsFile.parseFormer(utf8("traces/a\totlp/x\nlogs"));
    assertThat(read.keySet()).containsExactly("traces/a", "logs");
    assertThat(read.get("traces/a")).containsExactly("otlp/x");
    assertThat(read.get("logs")).isNull();
  }

  @Test
  void everyTruncationOfAWrittenFileIsDamage() {
    byte[] written = LayoutsFile.formatFormer(PIPELINES);
    for (int length = 0; length < written.length; length++) {
      byte[] cut = Arrays.copyOf(written, length);
      assertThatThrownBy(() -> LayoutsFile.parseFormer(cut))
          .as("cut to %d bytes", length)
          .isInstanceOf(LayoutsFile.DamagedException.class);
    }
  }

  @Test
  void everyFlippedBitOfAWrittenFileIsDamage() {
    byte[] written = LayoutsFile.formatFormer(PIPELINES);
    for (int bit = 0; bit < written.length * Byte.SIZE; bit++) {
      byte[] flipped = written.clone();
      flipped[bit / Byte.SIZE] ^= (byte) (1 << (bit % Byte.SIZE));
      int at = bit;
      assertThatThrownBy(() -> LayoutsFile.parseFormer(flipped))
          .as("bit %d flipped", at)
          .isInstanceOf(LayoutsFile.DamagedException.class);
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
    byte[] written = LayoutsFile.formatFormer(PIPELINES);
    written[written.length - 1] = 'q';
    assertDamaged(written, "line 1 (byte 26): the checksum does not match");
    assertDamaged(utf8("# sluice pipelines crc32c=0000000G\nlogs\tz"), "is not 8 lowercase");
  }

  @Test
  void aFileOfTheCheckedKindNeedsExportersForEachPipeline() {
    Map<String, List<String>> bare = new LinkedHashMap<>();
    bare.put("logs", List.of());
    assertDamaged(
        LayoutsFile.formatFormer(bare), "line 2 (byte 39): pipeline logs has no exporters");
  }

  @Test
  void refusesMorePipelinesThanARecordHasRoutingBits() throws Exception {
    Map<String, List<String>> most = new LinkedHashMap<>();
    for (int p = 0; p < LayoutsFile.MAX_PIPELINES; p++) {
      most.put("traces/" + p, List.of("x"));
    }
    assertThat(LayoutsFile.parseFormer(LayoutsFile.formatFormer(most))).hasSize(most.size());
    most.put("traces/one-more", List.of("x"));
    assertDamaged(LayoutsFile.formatFormer(most), "more than 31 pipelines");
  }

  @Test
  void refusesAFileLargerThanItsBound() {
    byte[] large = new byte[LayoutsFile.MAX_FORMER_BYTES + 1];
    Arrays.fill(large, (byte) 'a');
    assertDamaged(large, "byte " + LayoutsFile.MAX_FORMER_BYTES + "): more than");
  }

  private static void assertDamaged(byte[] content, String message) {
    assertThatThrownBy(() -> LayoutsFile.parseFormer(content))
        .isInstanceOf(LayoutsFile.DamagedException.class)
        .hasMessageContaining(message);
  }
}
