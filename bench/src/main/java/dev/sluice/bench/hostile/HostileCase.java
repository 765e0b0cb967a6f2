package dev.sluice.bench.hostile;

import dev.sluice.pdata.Signal;

/**
 * One request of a hostile run, made from the run's seed and its index alone (so that it can be
 * made again to replay it).
 *
 * @param encodingHeader the {@code grpc-encoding} or {@code Content-Encoding} sent; null for none.
 *     It need not be how {@code body} is actually compressed.
 * @param what the base request and the mutations applied, for people
 */
record HostileCase(
    long index,
    Protocol protocol,
    Signal signal,
    boolean json,
    String encodingHeader,
    byte[] body,
    String what,
    Expect expect) {

  /** How a case travels. */
  enum Protocol {
    GRPC,
    HTTP
  }

  /** What the answer must be, beyond the classes every answer must fall in. */
  enum Expect {
    /** Any allowed class: accepted, malformed, too large, backpressure. */
    ANY,
    /** A valid request: accepted (or refused as backpressure). */
    ACCEPTED,
    /** A body over the size limit once decompressed: too large. */
    TOO_LARGE
  }

  /** The tally key: protocol, body format and the encoding sent, such as {@code http/json/gzip}. */
  String key() {
    return (protocol == Protocol.GRPC ? "grpc" : "http")
        + "/"
        + (json ? "json" : "protobuf")
        + "/"
        + (encodingHeader == null ? "none" : encodingHeader);
  }
}
