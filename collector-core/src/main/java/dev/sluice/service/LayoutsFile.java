package dev.sluice.service;

import dev.sluice.pdata.Signal;
import dev.sluice.wal.WalOptions;
import dev.sluice.wal.WriteAheadLog;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.logging.Logger;
import java.util.zip.CRC32C;

/**
 * What the layout numbers of the log's records stand for, kept beside the log ({@value #NAME}): a
 * record's routing bits name durable pipelines by their position in the layout it was logged under,
 * so this file is what lets a record reach the pipelines of its names, and no others, after the
 * configuration changed, however many runs ago it was logged.
 *
 * <pre>
 * # sluice layouts crc32c=&lt;CRC32C of the lines below, 8 lowercase hex digits&gt;
 * layout &lt;number, 0 to 65535&gt;
 * &lt;pipeline&gt; TAB &lt;durable exporter&gt; [TAB &lt;durable exporter&gt; ...]   one line per pipeline, by bit
 * layout &lt;number&gt;
 * ...
 * </pre>
 *
 * UTF-8, lines separated by a newline, none after the last. A run writes the file before its first
 * record, with its own layout and those that records still in the log carry.
 *
 * <p>Logs written before records carried a layout kept one list of pipelines, for the run that
 * wrote them, in a file named {@value #FORMER_NAME} (the same lines as a layout's, under a header
 * of its own or none): read as the layout {@code former} ({@link WriteAheadLog#FORMER_LAYOUT}), and
 * kept as such in this file while records of that format remain. A line of that format with a
 * pipeline alone (written before each exporter had its own progress) leaves that pipeline's
 * exporters unknown (null).
 *
 * <p>Content that cannot be read (not UTF-8, an empty line or field, a duplicate, a name that is
 * not a pipeline's, a checksum that does not match, ...) makes every layout unknown, as a missing
 * file does: the replay then gives each record to every durable pipeline of its signal
 * (re-delivery, never loss), and one warning names the file and the line and byte at fault. A file
 * that cannot be read at all (permissions, an I/O error) stops the start instead.
 */
final class LayoutsFile {
  static final String NAME = "layouts";

  /** The file of logs written before records carried a layout. */
  static final String FORMER_NAME = "pipelines";

  /**
   * Far more than a few layouts of 31 pipelines with 31 exporters each and long names take; a
   * larger file is not one Sluice wrote, and is not read into memory.
   */
  static final int MAX_BYTES = 1024 * 1024;

  /** The size the file of the earlier format could have. */
  static final int MAX_FORMER_BYTES = 256 * 1024;

  /** Routing bits a record has: at most this many durable pipelines. */
  static final int MAX_PIPELINES = WalOptions.MAX_CONSUMERS;

  private static final String HEADER = "# sluice layouts crc32c=";
  private static final String FORMER_HEADER = "# sluice pipelines crc32c=";
  private static final String LAYOUT = "layout ";
  private static final String FORMER = "former";
  private static final int CRC_DIGITS = 8;
  private static final int HEX_RADIX = 16;
  private static final byte NEWLINE = '\n';
  private static final byte TAB = '\t';
  private static final int FIRST_PRINTABLE = 0x20;
  private static final int DELETE = 0x7F;
  private static final Logger LOGGER = Logger.getLogger("sluice.service.wal");

  private LayoutsFile() {}

  /** Content that cannot be read as layouts; the message says where and why. */
  static final class DamagedException extends Exception {
    private static final long serialVersionUID = 1L;

    DamagedException(String message) {
      // A verdict on data, not a failure of the code: no stack trace to fill.
      super(message, null, false, false);
    }
  }

  /**
   * The layouts kept in {@code directory} by number, each a map of pipeline name to its durable
   * exporters (null when not recorded) in routing-bit order: from {@value #NAME}, or when there is
   * none, the layout {@code former} from {@value #FORMER_NAME}. Empty when neither is there, or the
   * one read is damaged (that is logged): every layout is then unknown.
   *
   * @throws IOException when a file exists and cannot be read; the message names it
   */
  static Map<Integer, Map<String, List<String>>> read(Path directory) throws IOException {
    Path file = directory.resolve(NAME);
    byte[] content = readBounded(file, MAX_BYTES);
    if (content != null) {
      try {
        return parse(content);
      } catch (DamagedException e) {
        warnDamaged(file, e.getMessage());
        return new LinkedHashMap<>();
      }
    }
    Path former = directory.resolve(FORMER_NAME);
    content = readBounded(former, MAX_FORMER_BYTES);
    Map<Integer, Map<String, List<String>>> layouts = new LinkedHashMap<>();
    if (content != null) {
      try {
        layouts.put(WriteAheadLog.FORMER_LAYOUT, parseFormer(content));
      } catch (DamagedException e) {
        warnDamaged(former, e.getMessage());
      }
    }
    return layouts;
  }

  /**
   * Replaces the file in {@code directory} with {@code layouts}, so that a crash leaves the old or
   * the new content: written beside it, forced, renamed over it, and the directory forced. The file
   * of the earlier format goes with it (its layout, if records still carry it, is in {@code
   * layouts}).
   */
  static void write(Path directory, Map<Integer, Map<String, List<String>>> layouts)
      throws IOException {
    Path temporary = directory.resolve(NAME + ".tmp");
    try (FileChannel channel =
        FileChannel.open(
            temporary,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer content = ByteBuffer.wrap(format(layouts));
      while (content.hasRemaining()) {
        channel.write(content);
      }
      channel.force(true);
    } catch (IOException e) {
      Files.deleteIfExists(temporary);
      throw e;
    }
    Files.move(
        temporary,
        directory.resolve(NAME),
        StandardCopyOption.ATOMIC_MOVE,
        StandardCopyOption.REPLACE_EXISTING);
    Files.deleteIfExists(directory.resolve(FORMER_NAME));
    try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
      channel.force(true);
    }
  }

  /**
   * A whole file, or its first {@code maxBytes + 1} bytes when it is larger (which reads as
   * damaged: more than a file can be); null when it is missing.
   */
  private static byte[] readBounded(Path file, int maxBytes) throws IOException {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      byte[] content = new byte[(int) Math.min(channel.size(), maxBytes + 1L)];
      ByteBuffer into = ByteBuffer.wrap(content);
      while (into.hasRemaining() && channel.read(into) >= 0) {
        // Reads until the whole file is in.
      }
      return into.hasRemaining() ? Arrays.copyOf(content, into.position()) : content;
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      throw new IOException(
          "cannot read "
              + file
              + " (what the write-ahead log's routing refers to): "
              + e.getMessage()
              + "; the log cannot be replayed without it",
          e);
    }
  }

  private static void warnDamaged(Path file, String why) {
    LOGGER.warning(
        "The layouts file "
            + file
            + " is damaged: "
            + why
            + "; the pipelines the log's requests were logged for are unknown, so every request in"
            + " the log that is not done goes to every durable pipeline of its signal (duplicates,"
            + " never loss)");
  }

  /**
   * Reads the layouts from a file's content.
   *
   * @throws DamagedException when it is not such a file, naming the line and byte at fault; never
   *     anything else
   */
  static Map<Integer, Map<String, List<String>>> parse(byte[] content) throws DamagedException {
    if (content.length > MAX_BYTES) {
      throw damaged(content, MAX_BYTES, "more than the " + MAX_BYTES + " bytes a file can be");
    }
    checkUtf8(content);
    if (!startsWith(content, HEADER)) {
      throw damaged(content, 0, "the first line is not \"" + HEADER + "\" and 8 hex digits");
    }
    int start = checkedBody(content, HEADER);
    Map<Integer, Map<String, List<String>>> layouts = new LinkedHashMap<>();
    Map<String, List<String>> layout = null;
    int number = 0;
    int layoutLine = 0;
    while (true) {
      int end = indexOf(content, NEWLINE, start);
      if (end < 0) {
        end = content.length;
      }
      if (startsWith(content, start, LAYOUT)) {
        if (layout != null && layout.isEmpty()) {
          throw damaged(content, layoutLine, "layout " + label(number) + " has no pipelines");
        }
        number = layoutNumber(content, start + LAYOUT.length(), end);
        if (layouts.containsKey(number)) {
          throw damaged(content, start, "layout " + label(number) + " is listed twice");
        }
        layout = new LinkedHashMap<>();
        layouts.put(number, layout);
        layoutLine = start;
      } else if (layout == null) {
        throw damaged(content, start, "a pipeline before the first layout line");
      } else {
        readLine(content, start, end, number != WriteAheadLog.FORMER_LAYOUT, layout);
      }
      if (end == content.length) {
        if (layout == null || layout.isEmpty()) {
          throw damaged(content, end, "the last layout has no pipelines");
        }
        return layouts;
      }
      start = end + 1;
    }
  }

  /**
   * Reads the one list of pipelines of a file of the earlier format ({@value #FORMER_NAME}).
   *
   * @throws DamagedException when it is not such a list, naming the line and byte at fault
   */
  static Map<String, List<String>> parseFormer(byte[] content) throws DamagedException {
    if (content.length > MAX_FORMER_BYTES) {
      throw damaged(
          content, MAX_FORMER_BYTES, "more than the " + MAX_FORMER_BYTES + " bytes a file can be");
    }
    checkUtf8(content);
    boolean checked = startsWith(content, FORMER_HEADER);
    int start = checked ? checkedBody(content, FORMER_HEADER) : 0;
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

  /** Checks the header line's checksum against the lines after it; returns where they start. */
  private static int checkedBody(byte[] content, String header) throws DamagedException {
    int headerEnd = indexOf(content, NEWLINE, 0);
    if (headerEnd != header.length() + CRC_DIGITS) {
      throw damaged(content, 0, "the first line is not \"" + header + "\" and 8 hex digits");
    }
    long expected = parseHex(content, header.length(), headerEnd);
    if (expected < 0) {
      throw damaged(content, header.length(), "the checksum is not 8 lowercase hex digits");
    }
    CRC32C crc = new CRC32C();
    crc.update(content, headerEnd + 1, content.length - headerEnd - 1);
    if (crc.getValue() != expected) {
      throw damaged(content, header.length(), "the checksum does not match the lines after it");
    }
    return headerEnd + 1;
  }

  private static int layoutNumber(byte[] content, int from, int to) throws DamagedException {
    String text = new String(content, from, to - from, StandardCharsets.UTF_8);
    if (text.equals(FORMER)) {
      return WriteAheadLog.FORMER_LAYOUT;
    }
    boolean digits =
        !text.isEmpty() && text.length() <= 5 && text.chars().allMatch(c -> c >= '0' && c <= '9');
    if (!digits
        || (text.length() > 1 && text.charAt(0) == '0')
        || Integer.parseInt(text) > WriteAheadLog.MAX_LAYOUT) {
      throw damaged(
          content,
          from,
          "a layout number is 0 to " + WriteAheadLog.MAX_LAYOUT + " or \"" + FORMER + "\"");
    }
    return Integer.parseInt(text);
  }

  private static String label(int number) {
    return number == WriteAheadLog.FORMER_LAYOUT ? FORMER : Integer.toString(number);
  }

  /** The file's content for {@code layouts}. */
  static byte[] format(Map<Integer, Map<String, List<String>>> layouts) {
    List<String> lines = new ArrayList<>();
    layouts.forEach(
        (number, pipelines) -> {
          lines.add(LAYOUT + label(number));
          pipelines.forEach(
              (name, exporters) -> {
                List<String> fields = new ArrayList<>();
                fields.add(name);
                if (exporters != null) {
                  fields.addAll(exporters);
                }
                lines.add(String.join("\t", fields));
              });
        });
    return checked(HEADER, lines);
  }

  /** The content of a file of the earlier format, for tests of reading such logs. */
  static byte[] formatFormer(Map<String, List<String>> pipelines) {
    List<String> lines = new ArrayList<>();
    pipelines.forEach(
        (name, exporters) -> {
          List<String> fields = new ArrayList<>();
          fields.add(name);
          fields.addAll(exporters);
          lines.add(String.join("\t", fields));
        });
    return checked(FORMER_HEADER, lines);
  }

  /** {@code lines} under a first line of {@code header} and their CRC32C. */
  private static byte[] checked(String header, List<String> lines) {
    byte[] body = String.join("\n", lines).getBytes(StandardCharsets.UTF_8);
    CRC32C crc = new CRC32C();
    crc.update(body);
    String digits = Long.toHexString(crc.getValue());
    String first = header + "0".repeat(CRC_DIGITS - digits.length()) + digits + "\n";
    byte[] firstBytes = first.getBytes(StandardCharsets.US_ASCII);
    byte[] content = Arrays.copyOf(firstBytes, firstBytes.length + body.length);
    System.arraycopy(body, 0, content, firstBytes.length, body.length);
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

  private static boolean startsWith(byte[] content, String prefix) {
    return startsWith(content, 0, prefix);
  }

  private static boolean startsWith(byte[] content, int at, String prefix) {
    if (content.length - at < prefix.length()) {
      return false;
    }
    for (int i = 0; i < prefix.length(); i++) {
      if (content[at + i] != prefix.charAt(i)) {
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
