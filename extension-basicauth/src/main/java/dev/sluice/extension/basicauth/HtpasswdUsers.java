package dev.sluice.extension.basicauth;

import dev.sluice.component.ConfigProblems;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads htpasswd users: {@code user:hash} lines; blank lines and lines starting with {@code #} are
 * skipped. Problems name the line, never its content, which may be a plain password.
 */
final class HtpasswdUsers {
  /** The largest htpasswd file read: some tens of thousands of users. */
  static final long MAX_FILE_BYTES = 4L << 20;

  /**
   * The problems reported per source; the rest are counted in one more. A file that is not an
   * htpasswd file (a log, a binary) then costs a few lines of report, not one per line.
   */
  static final int MAX_PROBLEMS = 10;

  /** The characters of a user name that a problem quotes. */
  static final int MAX_QUOTED_NAME_CHARS = 64;

  private HtpasswdUsers() {}

  /** The users of {@code htpasswd}, or null after reporting into {@code problems}. */
  static Map<String, PasswordHash> load(
      BasicAuthConfig.Htpasswd htpasswd, ConfigProblems problems) {
    Map<String, PasswordHash> users = new LinkedHashMap<>();
    int before = problems.all().size();
    if (!htpasswd.file().isEmpty()) {
      String text = read(htpasswd.file(), problems);
      if (text != null) {
        parse(text, "file", users, problems);
      }
    }
    if (!htpasswd.inline().isEmpty()) {
      parse(htpasswd.inline(), "inline", users, problems);
    }
    if (problems.all().size() > before) {
      return null;
    }
    if (users.isEmpty()) {
      problems.add("", "lists no user");
      return null;
    }
    return Map.copyOf(users);
  }

  private static String read(String file, ConfigProblems problems) {
    try {
      Path path = Path.of(file);
      if (Files.size(path) > MAX_FILE_BYTES) {
        problems.add("file", file + " is larger than " + MAX_FILE_BYTES + " bytes");
        return null;
      }
      byte[] bytes = Files.readAllBytes(path);
      return StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes)).toString();
    } catch (InvalidPathException e) {
      problems.add("file", "is not a path: " + e.getReason());
    } catch (NoSuchFileException e) {
      problems.add("file", file + ": no such file");
    } catch (CharacterCodingException e) {
      problems.add("file", file + " is not valid UTF-8");
    } catch (IOException e) {
      problems.add("file", file + " cannot be read: " + e.getClass().getSimpleName());
    }
    return null;
  }

  private static void parse(
      String text, String key, Map<String, PasswordHash> users, ConfigProblems problems) {
    String[] lines = text.split("\r?\n", -1);
    int reported = 0;
    int unreported = 0;
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String problem = problem(line, users);
      if (problem == null) {
        continue;
      }
      if (reported < MAX_PROBLEMS) {
        problems.add(key, "line " + (i + 1) + ": " + problem);
        reported++;
      } else {
        unreported++;
      }
    }
    if (unreported > 0) {
      problems.add(key, "and " + unreported + " more lines that cannot be used");
    }
  }

  /** Adds the user of {@code line} to {@code users}, or says why it cannot. */
  private static String problem(String line, Map<String, PasswordHash> users) {
    int colon = line.indexOf(':');
    if (colon <= 0) {
      return "expected user:hash";
    }
    String user = line.substring(0, colon);
    try {
      PasswordHash hash = PasswordHash.parse(line.substring(colon + 1));
      if (users.putIfAbsent(user, hash) != null) {
        return "user \"" + quoted(user) + "\" is listed twice";
      }
      return null;
    } catch (PasswordHash.UnsupportedException e) {
      return "the hash of user \"" + quoted(user) + "\" " + e.getMessage();
    }
  }

  private static String quoted(String user) {
    return user.length() <= MAX_QUOTED_NAME_CHARS
        ? user
        : user.substring(0, MAX_QUOTED_NAME_CHARS) + "...";
  }
}
