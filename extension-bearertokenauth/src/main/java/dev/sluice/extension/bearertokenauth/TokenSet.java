package dev.sluice.extension.bearertokenauth;

import dev.sluice.component.Secrets;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The tokens in force: the digests of the header values a server accepts, and the header a client
 * sends. Immutable; a changed token file makes a new one.
 */
final class TokenSet {
  static final String UNUSABLE = "must not be blank nor hold spaces or control characters";

  /** The largest token file read: a token is a few hundred bytes, a JWT a few KB. */
  static final int MAX_FILE_BYTES = 64 * 1024;

  private final String scheme;
  private final byte[][] accepted;
  private final Map<String, String> clientHeaders;

  private TokenSet(List<String> tokens, String header, String scheme) {
    this.scheme = scheme;
    accepted = new byte[tokens.size()][];
    for (int i = 0; i < tokens.size(); i++) {
      accepted[i] = Secrets.digest(tokens.get(i));
    }
    clientHeaders = Map.of(header.toLowerCase(Locale.ROOT), headerValue(scheme, tokens.get(0)));
  }

  static TokenSet of(List<String> tokens, String header, String scheme) {
    if (tokens.isEmpty()) {
      throw new IllegalArgumentException("no token");
    }
    return new TokenSet(tokens, header, scheme);
  }

  private static String headerValue(String scheme, String token) {
    return scheme.isEmpty() ? token : scheme + " " + token;
  }

  /**
   * Whether the header {@code value} is the scheme (in any case, as RFC 9110 has it) and one of the
   * tokens; the token is compared in constant time.
   */
  boolean accepts(String value) {
    if (value == null) {
      return false;
    }
    String token = value;
    if (!scheme.isEmpty()) {
      int length = scheme.length();
      if (value.length() <= length
          || value.charAt(length) != ' '
          || !value.regionMatches(true, 0, scheme, 0, length)) {
        return false;
      }
      token = value.substring(length + 1).strip();
    }
    byte[] presented = Secrets.digest(token);
    boolean match = false;
    for (byte[] expected : accepted) {
      // No early exit: the time does not tell which token, if any, matched.
      match |= java.security.MessageDigest.isEqual(presented, expected);
    }
    return match;
  }

  Map<String, String> clientHeaders() {
    return clientHeaders;
  }

  /** Whether a token can be sent in a header: not blank, no whitespace or control characters. */
  static boolean isUsable(String token) {
    if (token.isEmpty()) {
      return false;
    }
    for (int i = 0; i < token.length(); i++) {
      char c = token.charAt(i);
      if (c <= ' ' || c == 0x7f) {
        return false;
      }
    }
    return true;
  }

  /** Why a token file cannot be used; the message names the file, never its content. */
  static final class UnreadableException extends Exception {
    UnreadableException(String message) {
      super(message);
    }
  }

  /**
   * The tokens in {@code file}: one per line, surrounding whitespace ignored, blank lines skipped.
   */
  static List<String> read(Path file) throws UnreadableException {
    byte[] bytes;
    try {
      if (Files.size(file) > MAX_FILE_BYTES) {
        throw new UnreadableException(
            file + " is larger than " + MAX_FILE_BYTES + " bytes: not a token file");
      }
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new UnreadableException(file + ": no such file");
    } catch (IOException e) {
      throw new UnreadableException(file + " cannot be read: " + e.getClass().getSimpleName());
    }
    String text;
    try {
      text = StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      throw new UnreadableException(file + " is not valid UTF-8");
    }
    List<String> tokens = new ArrayList<>();
    String[] lines = text.split("\r?\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].strip();
      if (line.isEmpty()) {
        continue;
      }
      if (!isUsable(line)) {
        throw new UnreadableException(file + " line " + (i + 1) + ": the token " + UNUSABLE);
      }
      tokens.add(line);
    }
    if (tokens.isEmpty()) {
      throw new UnreadableException(file + " holds no token");
    }
    return tokens;
  }
}
