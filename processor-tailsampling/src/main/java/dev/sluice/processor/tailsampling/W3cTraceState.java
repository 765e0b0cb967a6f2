package dev.sluice.processor.tailsampling;

import dev.sluice.pdata.view.TextView;
import java.nio.charset.StandardCharsets;

/**
 * A W3C {@code tracestate} list parsed into a reusable buffer, with the rules and limits of Go's
 * {@code go.opentelemetry.io/otel/trace.ParseTraceState} (v1.46.0): members split at {@code ','},
 * empty ones skipped; each split at its first {@code '='}, spaces and tabs trimmed before the key
 * and after the value only; keys {@code simple-key} or {@code tenant@system}; values of 1 to 256
 * characters in {@code 0x20-0x7e} without {@code ','} and {@code '='}, not ending in a space; no
 * key twice; at most 32 members. Anything else makes the whole list invalid.
 */
final class W3cTraceState {
  private byte[] bytes = new byte[256];
  private final int[] keyFrom = new int[SpanPolicies.MAX_TRACE_STATE_MEMBERS];
  private final int[] keyTo = new int[SpanPolicies.MAX_TRACE_STATE_MEMBERS];
  private final int[] valueFrom = new int[SpanPolicies.MAX_TRACE_STATE_MEMBERS];
  private final int[] valueTo = new int[SpanPolicies.MAX_TRACE_STATE_MEMBERS];
  private int members;

  /** Parses {@code text}; false when it is not a valid list (then it has no members). */
  boolean parse(TextView text) {
    if (bytes.length < text.length()) {
      bytes = new byte[Math.max(text.length(), bytes.length * 2)];
    }
    int length = text.copyTo(bytes, 0);
    return parse(length);
  }

  /** Parses {@code utf8} (for tests). */
  boolean parse(byte[] utf8) {
    if (bytes.length < utf8.length) {
      bytes = new byte[utf8.length];
    }
    System.arraycopy(utf8, 0, bytes, 0, utf8.length);
    return parse(utf8.length);
  }

  private boolean parse(int length) {
    members = 0;
    int position = 0;
    while (position < length) {
      int end = indexOf(bytes, (byte) ',', position, length);
      int next = end + 1;
      if (end == position) {
        position = next;
        continue;
      }
      int equals = indexOf(bytes, (byte) '=', position, end);
      if (equals == end) {
        return invalid();
      }
      int kFrom = position;
      while (kFrom < equals && (bytes[kFrom] == ' ' || bytes[kFrom] == '\t')) {
        kFrom++;
      }
      int vTo = end;
      while (vTo > equals + 1 && (bytes[vTo - 1] == ' ' || bytes[vTo - 1] == '\t')) {
        vTo--;
      }
      if (!validKey(bytes, kFrom, equals) || !validValue(bytes, equals + 1, vTo)) {
        return invalid();
      }
      for (int m = 0; m < members; m++) {
        if (java.util.Arrays.equals(bytes, keyFrom[m], keyTo[m], bytes, kFrom, equals)) {
          return invalid();
        }
      }
      if (members == SpanPolicies.MAX_TRACE_STATE_MEMBERS) {
        return invalid();
      }
      keyFrom[members] = kFrom;
      keyTo[members] = equals;
      valueFrom[members] = equals + 1;
      valueTo[members] = vTo;
      members++;
      position = next;
    }
    return true;
  }

  private boolean invalid() {
    members = 0;
    return false;
  }

  /** The members of the list parsed last. */
  int members() {
    return members;
  }

  /** Member {@code member}'s key, copied (for tests). */
  byte[] key(int member) {
    return java.util.Arrays.copyOfRange(bytes, keyFrom[member], keyTo[member]);
  }

  /** Member {@code member}'s value, copied (for tests). */
  byte[] valueBytes(int member) {
    return java.util.Arrays.copyOfRange(bytes, valueFrom[member], valueTo[member]);
  }

  /** The member with {@code key}, or -1. */
  int find(byte[] key) {
    for (int m = 0; m < members; m++) {
      if (java.util.Arrays.equals(bytes, keyFrom[m], keyTo[m], key, 0, key.length)) {
        return m;
      }
    }
    return -1;
  }

  boolean valueEquals(int member, byte[] value) {
    return java.util.Arrays.equals(
        bytes, valueFrom[member], valueTo[member], value, 0, value.length);
  }

  String value(int member) {
    return new String(
        bytes, valueFrom[member], valueTo[member] - valueFrom[member], StandardCharsets.US_ASCII);
  }

  private static int indexOf(byte[] bytes, byte b, int from, int to) {
    for (int i = from; i < to; i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    return to;
  }

  static boolean validKey(byte[] key) {
    return validKey(key, 0, key.length);
  }

  /** {@code simple-key} or {@code tenant-id "@" system-id}, split at the first {@code '@'}. */
  static boolean validKey(byte[] b, int from, int to) {
    int at = indexOf(b, (byte) '@', from, to);
    if (at == to) {
      return validKeyPart(b, from, to, 255, false);
    }
    return validKeyPart(b, from, at, 240, true) && validKeyPart(b, at + 1, to, 13, false);
  }

  /**
   * A key part: a first character ({@code a-z}, or also {@code 0-9} for a tenant) and at most
   * {@code maxRest} more of {@code a-z 0-9 _ - * /}.
   */
  private static boolean validKeyPart(byte[] b, int from, int to, int maxRest, boolean tenant) {
    if (from >= to || to - from - 1 > maxRest) {
      return false;
    }
    byte first = b[from];
    boolean firstOk = (first >= 'a' && first <= 'z') || (tenant && first >= '0' && first <= '9');
    if (!firstOk) {
      return false;
    }
    for (int i = from + 1; i < to; i++) {
      byte c = b[i];
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= '0' && c <= '9')
              || c == '_'
              || c == '-'
              || c == '*'
              || c == '/';
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /** 1 to 256 characters of {@code 0x20-0x7e} but {@code ','} and {@code '='}, no final space. */
  static boolean validValue(byte[] b, int from, int to) {
    int n = to - from;
    if (n == 0 || n > 256) {
      return false;
    }
    for (int i = from; i < to; i++) {
      byte c = b[i];
      if (c < 0x20 || c > 0x7e || c == ',' || c == '=') {
        return false;
      }
    }
    return b[to - 1] != ' ';
  }
}
