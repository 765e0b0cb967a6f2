package dev.sluice.extension.bearertokenauth;

import dev.sluice.component.ClientAuthenticator;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.RequestHeaders;
import dev.sluice.component.ServerAuthenticator;
import dev.sluice.component.telemetry.RateLimitedLog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Checks a token on the requests receivers take, and sends it on the calls exporters make. A token
 * file is read at start (a file that cannot be used then stops the collector from starting) and
 * polled for changes after: a changed file is read again and its tokens replace the old ones at
 * once; a file that cannot be read or holds no token then leaves the last good tokens in force,
 * with a warning at most once a minute.
 */
final class BearerTokenAuthExtension implements ServerAuthenticator, ClientAuthenticator {
  /** How often the token file is checked for a change: its size and modification time. */
  static final long POLL_INTERVAL_MILLIS = 1000;

  private static final long WARNING_INTERVAL_MILLIS = 60_000;

  private final BearerTokenAuthConfig config;
  private final Logger logger;
  private final RateLimitedLog unreadable;
  private final long pollIntervalMillis;
  private final String challenge;
  private volatile TokenSet tokens;
  private ScheduledExecutorService poller;
  private FileStamp seen;

  /** A file's size and modification time, which a rewrite changes. */
  private record FileStamp(long sizeBytes, long modifiedNanos) {
    static FileStamp of(Path file) throws IOException {
      BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
      return new FileStamp(
          attributes.size(), attributes.lastModifiedTime().to(TimeUnit.NANOSECONDS));
    }
  }

  BearerTokenAuthExtension(
      ComponentSettings settings, BearerTokenAuthConfig config, long pollIntervalMillis) {
    this.config = config;
    this.logger = settings.logger();
    this.unreadable = new RateLimitedLog(logger, Level.WARNING, WARNING_INTERVAL_MILLIS);
    this.pollIntervalMillis = pollIntervalMillis;
    String scheme = config.scheme().isEmpty() ? "Bearer" : config.scheme();
    this.challenge = scheme + " realm=\"sluice\"";
    if (config.filename().isEmpty()) {
      tokens =
          TokenSet.of(
              config.token().isEmpty() ? config.tokens() : List.of(config.token()),
              config.header(),
              config.scheme());
    }
  }

  @Override
  public void start() throws IOException {
    if (config.filename().isEmpty()) {
      return;
    }
    Path file = Path.of(config.filename());
    seen = FileStamp.of(file);
    try {
      tokens = TokenSet.of(TokenSet.read(file), config.header(), config.scheme());
    } catch (TokenSet.UnreadableException e) {
      throw new IOException("bearertokenauth: " + e.getMessage());
    }
    poller =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread thread = new Thread(r, "sluice-bearertokenauth-poll");
              thread.setDaemon(true);
              return thread;
            });
    poller.scheduleWithFixedDelay(
        () -> poll(file), pollIntervalMillis, pollIntervalMillis, TimeUnit.MILLISECONDS);
  }

  /** Reads the file again if it changed; keeps the tokens in force if it cannot be used. */
  private void poll(Path file) {
    try {
      FileStamp stamp = FileStamp.of(file);
      if (stamp.equals(seen)) {
        return;
      }
      List<String> read = TokenSet.read(file);
      tokens = TokenSet.of(read, config.header(), config.scheme());
      seen = stamp;
      logger.info("Read the changed token file " + file + ": " + read.size() + " token(s)");
    } catch (IOException e) {
      unreadable.log(
          "Keeping the last token: " + file + " cannot be read: " + e.getClass().getSimpleName());
    } catch (TokenSet.UnreadableException e) {
      unreadable.log("Keeping the last token: " + e.getMessage());
    } catch (RuntimeException e) {
      unreadable.log("Keeping the last token: checking " + file + " failed: " + e.getClass());
    }
  }

  @Override
  public boolean authenticate(RequestHeaders headers) {
    TokenSet current = tokens;
    // Null only before a token file was first read: nothing is accepted yet.
    return current != null && current.accepts(headers.get(config.header()));
  }

  @Override
  public String challenge() {
    return challenge;
  }

  @Override
  public String refusal() {
    return "missing or invalid bearer token";
  }

  @Override
  public Map<String, String> requestHeaders() {
    TokenSet current = tokens;
    return current == null ? Map.of() : current.clientHeaders();
  }

  @Override
  public void shutdown(long deadlineNanos) {
    if (poller != null) {
      poller.shutdownNow();
    }
  }
}
