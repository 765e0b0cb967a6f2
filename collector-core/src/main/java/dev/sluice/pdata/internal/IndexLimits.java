package dev.sluice.pdata.internal;

import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.MalformedOtlpException.Kind;

/**
 * Bounds the indexer enforces on every request.
 *
 * @param maxRequestBytes the largest request accepted, in bytes (default 64 MiB; receivers usually
 *     enforce smaller limits of their own before this one)
 * @param maxNestingDepth how deep messages may nest below the request (default 100, the recursion
 *     limit protobuf-java applies, so that everything protobuf-java parses is accepted); it bounds
 *     {@code AnyValue} recursion through arrays and key-value lists
 */
public record IndexLimits(int maxRequestBytes, int maxNestingDepth) {
  public static final int DEFAULT_MAX_REQUEST_BYTES = 64 << 20;
  public static final int DEFAULT_MAX_NESTING_DEPTH = 100;

  public static final IndexLimits DEFAULT =
      new IndexLimits(DEFAULT_MAX_REQUEST_BYTES, DEFAULT_MAX_NESTING_DEPTH);

  public IndexLimits {
    if (maxRequestBytes <= 0) {
      throw new IllegalArgumentException("maxRequestBytes must be positive: " + maxRequestBytes);
    }
    if (maxNestingDepth < 4) {
      throw new IllegalArgumentException(
          "maxNestingDepth must be at least 4 (request, resource, scope, item): "
              + maxNestingDepth);
    }
  }

  /**
   * Rejects a request of {@code lengthBytes} over {@link #maxRequestBytes}, before any of it is
   * read, with the error every decoder that keeps to these limits reports.
   */
  public void checkRequestBytes(int lengthBytes) throws MalformedOtlpException {
    if (lengthBytes > maxRequestBytes) {
      throw new MalformedOtlpException(
          "",
          0,
          Kind.LIMIT,
          "request of "
              + lengthBytes
              + " bytes exceeds the limit of "
              + maxRequestBytes
              + " bytes");
    }
  }
}
