package dev.sluice.pdata;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a request's sender said beside its data: the gRPC metadata or the HTTP headers the receiver
 * kept with the request ({@link dev.sluice.pdata.codec.OtlpIndex#metadata()}). Keys are matched
 * without regard to case, as HTTP and gRPC treat header names. It travels with the request's data
 * through batching; data a connector builds has none. Immutable.
 */
public interface RequestMetadata {
  /** No metadata: what a request carries unless its receiver kept some. */
  RequestMetadata NONE = key -> List.of();

  /** The values of {@code key} (any case), in the order they were sent; empty when it is absent. */
  List<String> values(String key);

  /**
   * Memory the metadata keeps reachable, about: counted with its request's bytes in the memory
   * bound, so that a sender cannot hold more memory with large headers on small requests.
   */
  default long retainedBytes() {
    return 0;
  }

  /** The first value of {@code key} (any case), or null when it is absent. */
  default String first(String key) {
    List<String> values = values(key);
    return values.isEmpty() ? null : values.get(0);
  }

  /** A copy of {@code headers}; names that differ only in case are one key, values in order. */
  static RequestMetadata of(Map<String, ? extends List<String>> headers) {
    if (headers.isEmpty()) {
      return NONE;
    }
    Map<String, List<String>> copy = new HashMap<>();
    for (Map.Entry<String, ? extends List<String>> header : headers.entrySet()) {
      copy.computeIfAbsent(header.getKey().toLowerCase(Locale.ROOT), k -> new ArrayList<>())
          .addAll(header.getValue());
    }
    long bytes = 0;
    for (Map.Entry<String, List<String>> header : copy.entrySet()) {
      bytes += ENTRY_BYTES + 2L * header.getKey().length();
      for (String value : header.getValue()) {
        bytes += ENTRY_BYTES + 2L * value.length();
      }
    }
    copy.replaceAll((k, v) -> List.copyOf(v));
    Map<String, List<String>> frozen = Map.copyOf(copy);
    long retained = bytes;
    return new RequestMetadata() {
      @Override
      public List<String> values(String key) {
        return frozen.getOrDefault(key.toLowerCase(Locale.ROOT), List.of());
      }

      @Override
      public long retainedBytes() {
        return retained;
      }
    };
  }

  /** What a key or a value costs beside its characters: its object, array and map entry. */
  long ENTRY_BYTES = 64;
}
