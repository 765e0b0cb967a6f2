package dev.sluice.bench.hostile;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Token-level mutations of a valid OTLP/JSON request: truncation, values of the wrong type, huge
 * numbers, deep arrays and objects, invalid UTF-8 and escapes, trace and span IDs of the wrong
 * length or alphabet, duplicated and dropped tokens, and plain bit flips. Deterministic from the
 * random source it is handed.
 */
final class JsonMutator {
  private static final String[] WRONG_TYPES = {
    "\"x\"", "12", "-1", "true", "null", "[]", "{}", "[1,2]", "{\"a\":1}", "\"\"", "0.5", "-0"
  };

  private static final String[] HUGE_NUMBERS = {
    "1e400",
    "-1e400",
    "1e99999999",
    "18446744073709551616",
    "-9223372036854775809",
    "99999999999999999999999999999999999999",
    "\"18446744073709551616\"",
    "\"-9223372036854775809\"",
    "1." + "9".repeat(400),
    "\"NaN\"",
    "\"Infinity\"",
    "0x10",
    "1E+2147483648"
  };

  private static final byte[][] BAD_UTF8 = {
    {(byte) 0xc3, 0x28},
    {(byte) 0xff},
    {(byte) 0xed, (byte) 0xa0, (byte) 0x80},
    {(byte) 0xc0, (byte) 0x80},
    {(byte) 0xf4, (byte) 0x90, (byte) 0x80, (byte) 0x80},
    {(byte) 0xe2, (byte) 0x82},
    {0x00},
  };

  private static final String[] BAD_ESCAPES = {
    "\\u", "\\uD800", "\\uDC00x", "\\u12G4", "\\x41", "\\", "\\uD83D\\u0041", "\\0"
  };

  private static final String[] ID_KEYS = {"\"traceId\"", "\"spanId\"", "\"parentSpanId\""};

  private static final int MIN_DEPTH = 100;
  private static final int MAX_DEPTH = 100_000;

  private JsonMutator() {}

  /** A token: where it starts and ends, and whether it is a string, a number or a literal. */
  record Token(int start, int end, char kind) {}

  static byte[] mutate(byte[] json, SplittableRandom random, StringBuilder what) {
    byte[] bytes = json;
    int rounds = 1 + random.nextInt(2);
    for (int i = 0; i < rounds; i++) {
      List<Token> tokens = tokens(bytes);
      what.append(what.length() == 0 ? "" : "+");
      int choice = tokens.isEmpty() ? 0 : random.nextInt(11);
      switch (choice) {
        case 0 -> {
          what.append("json-truncate");
          bytes = Arrays.copyOf(bytes, bytes.length == 0 ? 0 : random.nextInt(bytes.length));
        }
        case 1 -> {
          what.append("json-wrong-type");
          bytes = replace(bytes, pick(tokens, random), pick(WRONG_TYPES, random));
        }
        case 2 -> {
          what.append("json-huge-number");
          Token number = pickKind(tokens, 'n', random);
          bytes = replace(bytes, number, pick(HUGE_NUMBERS, random));
        }
        case 3 -> {
          what.append("json-deep");
          int depth = MIN_DEPTH + random.nextInt(MAX_DEPTH);
          boolean arrays = random.nextBoolean();
          String open = arrays ? "[" : "{\"a\":";
          String close = arrays ? "]" : "}";
          boolean closed = random.nextInt(4) != 0;
          bytes =
              replace(
                  bytes,
                  pick(tokens, random),
                  open.repeat(depth) + "1" + (closed ? close.repeat(depth) : ""));
        }
        case 4 -> {
          what.append("json-bad-utf8");
          Token string = pickKind(tokens, 's', random);
          int at =
              string.start() + 1 + random.nextInt(Math.max(1, string.end() - string.start() - 1));
          bytes = ProtoMutator.splice(bytes, Math.min(at, bytes.length), 0, pick(BAD_UTF8, random));
        }
        case 5 -> {
          what.append("json-bad-escape");
          Token string = pickKind(tokens, 's', random);
          bytes =
              ProtoMutator.splice(
                  bytes,
                  string.start() + 1,
                  0,
                  pick(BAD_ESCAPES, random).getBytes(StandardCharsets.UTF_8));
        }
        case 6 -> {
          what.append("json-bad-id");
          bytes = corruptId(bytes, random);
        }
        case 7 -> {
          what.append("json-duplicate");
          Token token = pick(tokens, random);
          byte[] copy = Arrays.copyOfRange(bytes, token.start(), token.end());
          bytes = ProtoMutator.splice(bytes, token.end(), 0, copy);
        }
        case 8 -> {
          what.append("json-drop");
          Token token = pick(tokens, random);
          bytes =
              ProtoMutator.splice(bytes, token.start(), token.end() - token.start(), new byte[0]);
        }
        case 9 -> {
          what.append("json-structure");
          int at = random.nextInt(bytes.length + 1);
          byte[] punctuation = {"{}[],:\"".getBytes(StandardCharsets.UTF_8)[random.nextInt(7)]};
          bytes = ProtoMutator.splice(bytes, at, 0, punctuation);
        }
        default -> {
          what.append("json-bitflip");
          bytes = ProtoMutator.bitFlip(bytes, random);
        }
      }
    }
    return bytes;
  }

  /** A hex trace or span ID given the wrong length, non-hex characters, or base64. */
  private static byte[] corruptId(byte[] bytes, SplittableRandom random) {
    String text = new String(bytes, StandardCharsets.ISO_8859_1);
    List<Integer> values = new ArrayList<>();
    for (String key : ID_KEYS) {
      for (int at = text.indexOf(key); at >= 0; at = text.indexOf(key, at + 1)) {
        int quote = text.indexOf('"', text.indexOf(':', at + key.length()) + 1);
        if (quote > 0) {
          values.add(quote);
        }
      }
    }
    if (values.isEmpty()) {
      return ProtoMutator.bitFlip(bytes, random);
    }
    int open = values.get(random.nextInt(values.size()));
    int close = text.indexOf('"', open + 1);
    if (close < 0) {
      return bytes;
    }
    String id = text.substring(open + 1, close);
    String replacement =
        switch (random.nextInt(7)) {
          case 0 -> id.isEmpty() ? "0" : id.substring(0, id.length() - 1);
          case 1 -> id + "0";
          case 2 -> id + "00";
          case 3 -> id.isEmpty() ? "zz" : "zz" + id.substring(2 % Math.max(1, id.length()));
          case 4 -> "AAECAwQFBgcICQoLDA0ODw==";
          case 5 -> "0".repeat(1 + random.nextInt(4096));
          default -> "";
        };
    return replace(bytes, new Token(open + 1, close, 's'), replacement);
  }

  /** Strings, numbers and literals, by a lenient scan that tolerates broken input. */
  static List<Token> tokens(byte[] bytes) {
    List<Token> tokens = new ArrayList<>();
    int i = 0;
    while (i < bytes.length) {
      byte b = bytes[i];
      if (b == '"') {
        int end = i + 1;
        while (end < bytes.length && bytes[end] != '"') {
          end += bytes[end] == '\\' ? 2 : 1;
        }
        end = Math.min(end + 1, bytes.length);
        tokens.add(new Token(i, end, 's'));
        i = end;
      } else if (b == '-' || (b >= '0' && b <= '9')) {
        int end = i + 1;
        while (end < bytes.length && "0123456789.eE+-".indexOf(bytes[end]) >= 0) {
          end++;
        }
        tokens.add(new Token(i, end, 'n'));
        i = end;
      } else if (b == 't' || b == 'f' || b == 'n') {
        int end = i + 1;
        while (end < bytes.length && bytes[end] >= 'a' && bytes[end] <= 'z') {
          end++;
        }
        tokens.add(new Token(i, end, 'l'));
        i = end;
      } else {
        i++;
      }
    }
    return tokens;
  }

  private static Token pickKind(List<Token> tokens, char kind, SplittableRandom random) {
    List<Token> matching = new ArrayList<>();
    for (Token token : tokens) {
      if (token.kind() == kind) {
        matching.add(token);
      }
    }
    return matching.isEmpty() ? pick(tokens, random) : pick(matching, random);
  }

  private static byte[] replace(byte[] bytes, Token token, String replacement) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(bytes.length + replacement.length());
    out.write(bytes, 0, token.start());
    byte[] inserted = replacement.getBytes(StandardCharsets.UTF_8);
    out.write(inserted, 0, inserted.length);
    out.write(bytes, token.end(), bytes.length - token.end());
    return out.toByteArray();
  }

  private static <T> T pick(List<T> items, SplittableRandom random) {
    return items.get(random.nextInt(items.size()));
  }

  private static <T> T pick(T[] items, SplittableRandom random) {
    return items[random.nextInt(items.length)];
  }
}
