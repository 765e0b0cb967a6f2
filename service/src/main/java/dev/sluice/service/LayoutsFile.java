package dev.sluice.service;

import dev.sluice.pdata.otlp.Signal;
import dev.sluice.wal.WalOptions;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.logging.Logger;
import java.util.zip.CRC32C;

/**
 * The durable pipelines of the run that wrote the log, kept beside it ({@value #NAME}): a record's
 * routing bits name pipelines by their position in this list, so the file is what lets a record
 * reach the pipeline of its name after the configuration changed.
 *
 * <pre>
 * # sluice pipelines crc32c=&lt;CRC32C of the lines below, 8 lowercase hex digits&gt;
 * &lt;pipeline&gt; TAB &lt;durable exporter&gt; [TAB &lt;durable exporter&gt; ...]   one line per pipeline, by bit
 * </pre>
 *
 * UTF-8, lines separated by a newline, none after the last. A file without the first line was
 * written before the file had a checksum: its lines are read as they are, and a line with a
 * pipeline alone (written before each exporter had its own progress) leaves that pipeline's
 * exporters unknown.
 *
 * <p>Content that cannot be read as such a list (not UTF-8, an empty line or field, a duplicate, a
 * name that is not a pipeline's, a checksum that does not match, ...) is <em>unknown previous
 * pipelines</em>, as a missing file is: the replay then gives every record to every durable
 * pipeline of its signal (re-delivery, never loss), and one warning names the file and the line and
 * byte at fault. A file that cannot be read at all (permissions, an I/O error) stops the start
 * instead.
 */
final class PipelinesFile {
  static final String NAME = "pipelines";

  /**
   * Far more than 31 pipelines with 31 exporters each and long names take; a larger file is not one
   * Sluice wrote, and is not read into memory.
   */
  static final int MAX_BYTES = 256 * 1024;

  /** Routing bits a record has: at most this many durable pipelines. */
  static final int MAX_PIPELINES = WalOptions.MAX_CONSUMERS;

  private static final String HEADER = "# sluice pipelines crc32c=";
  private static final byte[] HEADER_BYTES = HEADER.getBytes(StandardCharsets.US_ASCII);
  private static final int CRC_DIGITS = 8;
  private static final int HEX_RADIX = 16;
  private static final byte NEWLINE = '\n';
  private static final byte TAB = '\t';
  private static final int FIRST_PRINTABLE = 0x20;
  private static final int DELETE = 0x7F;
  private static final Logger LOGGER = Logger.getLogger("sluice.service.wal");

  private PipelinesFile() {}

  /** Content that cannot be read as the list of pipelines; the message says where and why. */
  static final class DamagedException extends Exception {
    private static final long serialVersionUID = 1L;

    DamagedException(String message) {
      // A verdict on data, not a failure of the code: no stack trace to fill.
      super(message, null, false, false);
    }
  }

  /**
   * The pipelines of the run that wrote {@code file}, each name with its durable exporters (null
   * when that run did not record them), in routing-bit order; null when they are unknown (the file
   * is missing, or damaged: that is logged).
   *
   * @throws IOException when the file exists and cannot be read; the message names it
   */
  static Map<String, List<String>> read(Path file) throws IOException {
    byte[] content;
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = channel.size();
      if (size > MAX_BYTES) {
        warnDamaged(
            file,
            "it is "
                + size
                + " bytes, more than the "
                + MAX_BYTES
                + " a pipelines file can be (at byte "
                + MAX_BYTES
                + ")");
        return null;
      }
      content = new byte[(int) size];
      ByteBuffer into = ByteBuffer.wrap(content);
      while (into.hasRemaining() && channel.read(into) >= 0) {
        // Reads until the whole file is in.
      }
      if (into.hasRemaining()) {
        content = java.util.Arrays.copyOf(content, into.position());
      }
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      throw new IOException(
          "cannot read "
              + file
              + " (the durable pipelines of the last run): "
              + e.getMessage()
              + "; the write-ahead log cannot be replayed without it",
          e);
    }
    try {
      return parse(content);
    } catch (DamagedException e) {
      warnDamaged(file, e.getMessage());
      return null;
    }
  }

  private static void warnDamaged(Path file, String why) {
    LOGGER.warning(
        "The pipelines file "
            + file
            + " is damaged: "
            + why
            + "; the pipelines of the last run are unknown, so every request in the log that is not"
            + " done goes to every durable pipeline of its signal (duplicates, never loss)");
  }

  /**
   * Reads the list from a file's content.
   *
   * @throws DamagedException when it is not such a list, naming the line and byte at fault; never
   *     anything else
   */
  static Map<String, List<String>> parse(byte[] content) throws DamagedException {
    if (content.length > MAX_BYTES) {
      throw damaged(content, MAX_BYTES, "more than the " + MAX_BYTES + " bytes a file can be");
    }
    checkUtf8(content);
    int start = 0;
    boolean checked = startsWithHeader(content);
    if (checked) {
      int headerEnd = indexOf(content, NEWLINE, 0);
      if (headerEnd != HEADER_BYTES.length + CRC_DIGITS) {
        throw damaged(content, 0, "the first line is not \"" + HEADER + "\" and 8 hex digits");
      }
      long expected = parseHex(content, HEADER_BYTES.length, headerEnd);
      if (expected < 0) {
        throw damaged(content, HEADER_BYTES.length, "the checksum is not 8 lowercase hex digits");
      }
      CRC32C crc = new CRC32C();
      crc.update(content, headerEnd + 1, content.length - headerEnd - 1);
      if (crc.getValue() != expected) {
        throw damaged(
            content, HEADER_BYTES.length, "the checksum does not match the lines after it");
      }
      start = headerEnd + 1;
    }
    Map<String, List<String>> pipelines = new LinkedHashMap<>();
    while (true) {
      int end = indexOf(content, NEWLINE, start);
      if (end < 0) {
        end = content.length;
      }
      readLine(content, start, end, checked, pipelines);
      if (end == content.length) {
        return pipelines;
      }
      start = end + 1;
    }
  }

  /**
   * The file's content for {@code pipelines} (names in routing-bit order, with their exporters).
   */
  static byte[] format(Map<String, List<String>> pipelines) {
    List<String> lines = new ArrayList<>();
    pipelines.forEach(
        (name, exporters) -> {
          List<String> fields = new ArrayList<>();
          fields.add(name);
          fields.addAll(exporters);
          lines.add(String.join("\t", fields));
        });
    byte[] body = String.join("\n", lines).getBytes(StandardCharsets.UTF_8);
    CRC32C crc = new CRC32C();
    crc.update(body);
    String digits = Long.toHexString(crc.getValue());
    String header = HEADER + "0".repeat(CRC_DIGITS - digits.length()) + digits + "\n";
    byte[] headerBytes = header.getBytes(StandardCharsets.US_ASCII);
    byte[] content = java.util.Arrays.copyOf(headerBytes, headerBytes.length + body.length);
    System.arraycopy(body, 0, content, headerBytes.length, body.length);
    return content;
  }

  /** The signal of a pipeline by its name ({@code traces}, {@code logs/backend}), or null. */
  static Signal signalOf(String pipeline) {
    int slash = pipeline.indexOf('/');
    String type = slash < 0 ? pipeline : pipeline.substring(0, slash);
    if (slash >= 0 && slash == pipeline.length() - 1) {
      return null;
    }
    for (Signal signal : Signal.values()) {
      if (signal.name().toLowerCase(Locale.ROOT).equals(type)) {
        return signal;
      }
    }
    return null;
  }

  private static void readLine(
      byte[] content, int start, int end, boolean checked, Map<String, List<String>> pipelines)
      throws DamagedException {
    if (start == end) {
      throw damaged(content, start, "an empty line");
    }
    List<String> fields = new ArrayList<>();
    int fieldStart = start;
    for (int at = start; at <= end; at++) {
      if (at == end || content[at] == TAB) {
        if (at == fieldStart) {
          throw damaged(content, at, "an empty field");
        }
        fields.add(new String(content, fieldStart, at - fieldStart, StandardCharsets.UTF_8));
        fieldStart = at + 1;
      } else if ((content[at] & 0xFF) < FIRST_PRINTABLE || content[at] == DELETE) {
        throw damaged(content, at, "a control character");
      }
    }
    String name = fields.get(0);
    if (signalOf(name) == null) {
      throw damaged(content, start, "\"" + name + "\" is not the name of a pipeline");
    }
    if (pipelines.containsKey(name)) {
      throw damaged(content, start, "pipeline " + name + " is listed twice");
    }
    if (pipelines.size() == MAX_PIPELINES) {
      throw damaged(content, start, "more than " + MAX_PIPELINES + " pipelines");
    }
    List<String> exporters = fields.subList(1, fields.size());
    if (exporters.isEmpty() && checked) {
      throw damaged(content, end, "pipeline " + name + " has no exporters");
    }
    for (int e = 0; e < exporters.size(); e++) {
      if (exporters.indexOf(exporters.get(e)) != e) {
        throw damaged(content, start, "exporter " + exporters.get(e) + " is listed twice");
      }
    }
    // A line without exporters was written before each exporter had its own progress.
    pipelines.put(name, exporters.isEmpty() ? null : List.copyOf(exporters));
  }

  private static void checkUtf8(byte[] content) throws DamagedException {
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(content);
    CoderResult result = decoder.decode(in, CharBuffer.allocate(content.length), true);
    if (result.isError()) {
      throw damaged(content, in.position(), "not UTF-8");
    }
  }

  private static boolean startsWithHeader(byte[] content) {
    if (content.length < HEADER_BYTES.length) {
      return false;
    }
    for (int i = 0; i < HEADER_BYTES.length; i++) {
      if (content[i] != HEADER_BYTES[i]) {
        return false;
      }
    }
    return true;
  }

  /** The value of lowercase hex digits {@code [from, to)}, or -1. */
  private static long parseHex(byte[] content, int from, int to) {
    long value = 0;
    for (int i = from; i < to; i++) {
      int digit = Character.digit(content[i], HEX_RADIX);
      if (digit < 0 || Character.isUpperCase(content[i])) {
        return -1;
      }
      value = value * HEX_RADIX + digit;
    }
    return value;
  }

  private static int indexOf(byte[] content, byte wanted, int from) {
    for (int i = from; i < content.length; i++) {
      if (content[i] == wanted) {
        return i;
      }
    }
    return -1;
  }

  /** Damage at byte {@code offset}, with its line (from 1). */
  private static DamagedException damaged(byte[] content, int offset, String what) {
    int line = 1;
    int limit = Math.min(offset, content.length);
    for (int i = 0; i < limit; i++) {
      if (content[i] == NEWLINE) {
        line++;
      }
    }
    return new DamagedException("line " + line + " (byte " + offset + "): " + what);
  }
}
