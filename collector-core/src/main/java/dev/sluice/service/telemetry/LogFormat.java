package dev.sluice.service.telemetry;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.util.logging.ConsoleHandler;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * One line per event: time, level, component, message. Stack traces only for unexpected errors (a
 * throwable attached to a SEVERE record); expected conditions are logged as messages.
 */
public final class LogFormat extends Formatter {
  /**
   * grpc-java's server stream, which logs a warning for each message it refuses at its length
   * prefix (over {@code max_recv_msg_size_mib}) and for each other message it cannot deframe: one
   * line for every such call, which a client can make for a few dozen bytes. The client has its
   * answer (RESOURCE_EXHAUSTED, INTERNAL); the lines are kept at {@code debug}. Held here because
   * java.util.logging keeps loggers, and so their levels, only while something references them.
   */
  static final Logger GRPC_SERVER_STREAM =
      Logger.getLogger("io.grpc.netty.shaded.io.grpc.netty.NettyServerStream");

  private final boolean json;

  private LogFormat(boolean json) {
    this.json = json;
  }

  /**
   * Replaces the JVM's default logging with one line per event on stderr at the given level ({@code
   * debug}, {@code info}, {@code warn}, {@code error}), as console text or JSON.
   */
  public static void install(String level, String encoding) {
    LogManager.getLogManager().reset();
    Logger root = Logger.getLogger("");
    Level julLevel = level(level);
    root.setLevel(julLevel);
    Handler handler = new ConsoleHandler();
    handler.setLevel(julLevel);
    handler.setFormatter(new LogFormat("json".equals(encoding)));
    root.addHandler(handler);
    // grpc-java and Netty are chatty at INFO about connection-level events.
    boolean debug = julLevel.intValue() < Level.INFO.intValue();
    Logger.getLogger("io.grpc").setLevel(debug ? julLevel : Level.WARNING);
    GRPC_SERVER_STREAM.setLevel(debug ? julLevel : Level.SEVERE);
  }

  static Level level(String level) {
    switch (level) {
      case "debug":
        return Level.FINE;
      case "warn":
        return Level.WARNING;
      case "error":
        return Level.SEVERE;
      default:
        return Level.INFO;
    }
  }

  private static String levelName(Level level) {
    if (level.intValue() >= Level.SEVERE.intValue()) {
      return "error";
    } else if (level.intValue() >= Level.WARNING.intValue()) {
      return "warn";
    } else if (level.intValue() >= Level.INFO.intValue()) {
      return "info";
    }
    return "debug";
  }

  @Override
  public String format(LogRecord record) {
    String component =
        record.getLoggerName() == null ? "" : record.getLoggerName().replaceFirst("^sluice\\.", "");
    String message = formatMessage(record);
    String trace = "";
    if (record.getThrown() != null && record.getLevel().intValue() >= Level.SEVERE.intValue()) {
      StringWriter text = new StringWriter();
      record.getThrown().printStackTrace(new PrintWriter(text));
      trace = text.toString();
    } else if (record.getThrown() != null) {
      message = message + ": " + record.getThrown();
    }
    Instant time = Instant.ofEpochMilli(record.getMillis());
    if (json) {
      return "{\"ts\":\""
          + time
          + "\",\"level\":\""
          + levelName(record.getLevel())
          + "\",\"component\":"
          + quote(component)
          + ",\"msg\":"
          + quote(message)
          + (trace.isEmpty() ? "" : ",\"stacktrace\":" + quote(trace))
          + "}\n";
    }
    return time
        + "\t"
        + levelName(record.getLevel())
        + "\t"
        + component
        + "\t"
        + message
        + "\n"
        + trace;
  }

  private static String quote(String text) {
    StringBuilder out = new StringBuilder(text.length() + 2).append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"':
          out.append("\\\"");
          break;
        case '\\':
          out.append("\\\\");
          break;
        case '\n':
          out.append("\\n");
          break;
        case '\t':
          out.append("\\t");
          break;
        default:
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
      }
    }
    return out.append('"').toString();
  }
}
