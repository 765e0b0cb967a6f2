package dev.sluice.kafka.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The output of the broker's child processes (the storage formatting and every start, appended in
 * turn to one file) and what the kit reads from it: the tail for a failure message, and whether a
 * start failed because another process held one of its ports.
 */
final class BrokerLog {
  /**
   * How Kafka reports a listener it cannot bind ({@code ServerSocketFactory}): the address, then
   * the socket's error. Only "already in use" is a port that someone else took in the meantime; any
   * other bind error is a real failure.
   */
  private static final String BIND_FAILURE_FORMAT =
      "Socket server failed to bind to %s:(\\d+): Address already in use";

  /** Enough for the exception and the lines before it, few enough to read in a report. */
  private static final int TAIL_LINES = 80;

  private final Path file;
  private final Pattern portTaken;

  BrokerLog(Path file, String host) {
    this.file = file;
    this.portTaken = Pattern.compile(String.format(BIND_FAILURE_FORMAT, Pattern.quote(host)));
  }

  Path file() {
    return file;
  }

  /** The current end of the log: an attempt that starts now writes from here on. */
  long endOffsetBytes() {
    try {
      return Files.size(file);
    } catch (IOException e) {
      // Not written yet (or unreadable, which the tail reports): everything is new.
      return 0;
    }
  }

  /**
   * The port that the child could not bind because another process holds it, as written since
   * {@code sinceOffsetBytes}; empty when the log says no such thing (yet). A line still being
   * written does not match before its error is complete, so the port is never read half-written.
   */
  OptionalInt portTakenSince(long sinceOffsetBytes) {
    String written;
    try (SeekableByteChannel channel = Files.newByteChannel(file);
        InputStream in = Channels.newInputStream(channel.position(sinceOffsetBytes))) {
      written = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return OptionalInt.empty();
    }
    Matcher matcher = portTaken.matcher(written);
    return matcher.find()
        ? OptionalInt.of(Integer.parseInt(matcher.group(1)))
        : OptionalInt.empty();
  }

  /** The last lines, for a failure message. */
  String tail() {
    if (!Files.exists(file)) {
      return "(no log)";
    }
    try {
      List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - TAIL_LINES), all.size()));
    } catch (IOException e) {
      return "(log unreadable: " + e + ")";
    }
  }
}
