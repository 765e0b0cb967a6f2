package dev.sluice.bench.hostile;

import dev.sluice.bench.hostile.HostileCase.Expect;
import dev.sluice.bench.hostile.HostileCase.Protocol;
import dev.sluice.pdata.Signal;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Makes case {@code i} of a run from the seed and {@code i} alone: a valid base request, perhaps
 * mutated (protobuf or JSON), compressed, perhaps with its compressed stream corrupted, truncated
 * or labelled with the wrong encoding; a few are controls (valid, must be accepted) and bombs
 * (small bodies that expand past the size limit, must be refused as too large).
 */
final class CaseFactory {
  /** Per mille of cases that are valid controls, bombs, and raw gRPC bodies over the limit. */
  private static final int CONTROLS_PER_MILLE = 50;

  private static final int BOMBS_PER_MILLE = 5;
  private static final int RAW_OVERSIZE_PER_TEN_THOUSAND = 5;

  /** Percent of mutated cases whose payload is left valid (only the compression is attacked). */
  private static final int PAYLOAD_KEPT_PERCENT = 15;

  /** Percent of compressed cases whose compressed stream is attacked. */
  private static final int STREAM_ATTACK_PERCENT = 30;

  private static final String[] UNKNOWN_HTTP_ENCODINGS = {"br", "gzip, deflate", "x-unknown", "*"};

  private static final Encoding[] GRPC_ENCODINGS = {Encoding.NONE, Encoding.GZIP, Encoding.ZSTD};
  private static final Encoding[] HTTP_ENCODINGS = Encoding.values();

  /** A valid request in both formats. */
  record Base(String name, Signal signal, byte[] protobuf, byte[] json) {}

  private final long seed;
  private final Set<String> skipped;
  private final List<Base> bases;
  private final long grpcMaxBytes;
  private final long httpMaxBytes;
  private final Map<Encoding, byte[]> httpBombs = new EnumMap<>(Encoding.class);
  private final Map<Encoding, byte[]> grpcBombs = new EnumMap<>(Encoding.class);
  private byte[] grpcOversize;

  /**
   * @param skipped mutations left out (by name, such as {@code json-huge-number}): a case that
   *     would apply one is made again from another draw
   */
  CaseFactory(
      long seed, List<Base> bases, long grpcMaxBytes, long httpMaxBytes, Set<String> skipped) {
    this.seed = seed;
    this.skipped = Set.copyOf(skipped);
    this.bases = List.copyOf(bases);
    this.grpcMaxBytes = grpcMaxBytes;
    this.httpMaxBytes = httpMaxBytes;
  }

  /** Case {@code index}: the same for the same seed, bases, limits and skipped mutations. */
  HostileCase make(long index) {
    long draw = mix(seed, index);
    for (int attempt = 0; ; attempt++) {
      HostileCase made = make(index, new SplittableRandom(draw + attempt));
      if (!skips(made.what())) {
        return made;
      }
    }
  }

  private boolean skips(String what) {
    for (String mutation : skipped) {
      if (what.contains(mutation)) {
        return true;
      }
    }
    return false;
  }

  private HostileCase make(long index, SplittableRandom random) {
    Protocol protocol = random.nextBoolean() ? Protocol.GRPC : Protocol.HTTP;
    Base base = bases.get(random.nextInt(bases.size()));
    boolean json = protocol == Protocol.HTTP && random.nextInt(3) == 0;
    Encoding encoding =
        protocol == Protocol.GRPC
            ? GRPC_ENCODINGS[random.nextInt(GRPC_ENCODINGS.length)]
            : HTTP_ENCODINGS[random.nextInt(HTTP_ENCODINGS.length)];
    int kind = random.nextInt(1000);
    if (kind < CONTROLS_PER_MILLE) {
      byte[] body = encoding.compress(json ? base.json() : base.protobuf());
      return new HostileCase(
          index,
          protocol,
          base.signal(),
          json,
          header(encoding),
          body,
          "control " + base.name(),
          Expect.ACCEPTED);
    }
    if (kind < CONTROLS_PER_MILLE + BOMBS_PER_MILLE && encoding != Encoding.NONE) {
      return new HostileCase(
          index,
          protocol,
          base.signal(),
          json,
          header(encoding),
          bomb(protocol, encoding),
          "bomb " + encoding.header(),
          Expect.TOO_LARGE);
    }
    if (protocol == Protocol.GRPC && random.nextInt(10_000) < RAW_OVERSIZE_PER_TEN_THOUSAND) {
      return new HostileCase(
          index,
          protocol,
          base.signal(),
          false,
          null,
          grpcOversize(),
          "raw body over the limit",
          Expect.TOO_LARGE);
    }
    StringBuilder what = new StringBuilder(base.name()).append(": ");
    byte[] payload = json ? base.json() : base.protobuf();
    if (random.nextInt(100) >= PAYLOAD_KEPT_PERCENT) {
      StringBuilder mutations = new StringBuilder();
      payload =
          json
              ? JsonMutator.mutate(payload, random, mutations)
              : ProtoMutator.mutate(payload, random, mutations);
      what.append(mutations);
    } else {
      what.append("valid payload");
    }
    byte[] body = encoding.compress(payload);
    String header = header(encoding);
    if (encoding != Encoding.NONE && random.nextInt(100) < STREAM_ATTACK_PERCENT) {
      switch (random.nextInt(5)) {
        case 0 -> {
          what.append(", corrupt ").append(encoding.header());
          body = ProtoMutator.bitFlip(body, random);
        }
        case 1 -> {
          what.append(", truncated ").append(encoding.header());
          body = Arrays.copyOf(body, random.nextInt(body.length));
        }
        case 2 -> {
          what.append(", trailing garbage after ").append(encoding.header());
          body = ProtoMutator.insert(body, random);
          body = ProtoMutator.concat(body, new byte[] {1, 2, 3, (byte) random.nextInt(256)});
        }
        default -> {
          Encoding[] choices = protocol == Protocol.GRPC ? GRPC_ENCODINGS : HTTP_ENCODINGS;
          Encoding label = choices[random.nextInt(choices.length)];
          if (protocol == Protocol.HTTP && random.nextInt(4) == 0) {
            header = UNKNOWN_HTTP_ENCODINGS[random.nextInt(UNKNOWN_HTTP_ENCODINGS.length)];
          } else {
            header = header(label);
          }
          what.append(", ").append(encoding.header()).append(" sent as ").append(header);
        }
      }
    }
    return new HostileCase(
        index, protocol, base.signal(), json, header, body, what.toString(), Expect.ANY);
  }

  private static String header(Encoding encoding) {
    return encoding == Encoding.NONE ? null : encoding.header();
  }

  /** A small body that decompresses to zeros one MiB past the protocol's limit. */
  private synchronized byte[] bomb(Protocol protocol, Encoding encoding) {
    Map<Encoding, byte[]> bombs = protocol == Protocol.GRPC ? grpcBombs : httpBombs;
    long limit = protocol == Protocol.GRPC ? grpcMaxBytes : httpMaxBytes;
    return bombs.computeIfAbsent(
        encoding,
        e -> e.compress(new byte[(int) Math.min(Integer.MAX_VALUE - 8, limit + (1 << 20))]));
  }

  private synchronized byte[] grpcOversize() {
    if (grpcOversize == null) {
      grpcOversize = new byte[(int) grpcMaxBytes + 1];
      Arrays.fill(grpcOversize, (byte) 0x0a);
    }
    return grpcOversize;
  }

  /** A seed for case {@code index}: SplitMix64's finalizer over the two. */
  static long mix(long seed, long index) {
    long z = seed + 0x9e3779b97f4a7c15L * (index + 1);
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
