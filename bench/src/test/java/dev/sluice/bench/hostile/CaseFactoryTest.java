package dev.sluice.bench.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.bench.hostile.HostileCase.Expect;
import dev.sluice.bench.hostile.HostileCase.Protocol;
import dev.sluice.bench.load.RequestShapes;
import dev.sluice.pdata.Signal;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

class CaseFactoryTest {
  private static final long SEED = 7;
  private static final int CASES = 3000;

  private static CaseFactory factory(Set<String> skipped) throws Exception {
    return new CaseFactory(
        SEED,
        Bases.standard(SEED, null),
        HostileRun.GRPC_MAX_BYTES,
        HostileRun.HTTP_MAX_BYTES,
        skipped);
  }

  @Test
  void makesTheSameCaseAgainFromSeedAndIndex() throws Exception {
    CaseFactory first = factory(Set.of());
    CaseFactory second = factory(Set.of());
    for (long index = 0; index < 500; index++) {
      HostileCase a = first.make(index);
      HostileCase b = second.make(index);
      assertThat(b.body()).as("case %d", index).isEqualTo(a.body());
      assertThat(b.what()).isEqualTo(a.what());
      assertThat(b.key()).isEqualTo(a.key());
    }
    assertThat(first.make(1).body()).isNotEqualTo(first.make(2).body());
  }

  @Test
  void coversEveryProtocolFormatAndEncodingWithControlsAndBombs() throws Exception {
    CaseFactory cases = factory(Set.of());
    Set<String> keys = new HashSet<>();
    Set<Expect> expectations = new HashSet<>();
    Set<Signal> signals = new HashSet<>();
    for (long index = 0; index < CASES; index++) {
      HostileCase request = cases.make(index);
      keys.add(request.key());
      expectations.add(request.expect());
      signals.add(request.signal());
      if (request.protocol() == Protocol.GRPC) {
        assertThat(request.json()).isFalse();
        assertThat(request.encodingHeader()).isIn(null, "gzip", "zstd");
      }
    }
    assertThat(keys)
        .contains(
            "grpc/protobuf/none",
            "grpc/protobuf/gzip",
            "grpc/protobuf/zstd",
            "http/protobuf/none",
            "http/protobuf/deflate",
            "http/protobuf/snappy",
            "http/protobuf/x-snappy-framed",
            "http/json/zstd",
            "http/json/gzip");
    assertThat(expectations).containsExactlyInAnyOrder(Expect.values());
    assertThat(signals).containsExactlyInAnyOrder(Signal.values());
  }

  @Test
  void leavesOutSkippedMutations() throws Exception {
    CaseFactory cases = factory(Set.of("json-huge-number", "nest-group"));
    for (long index = 0; index < CASES; index++) {
      assertThat(cases.make(index).what()).doesNotContain("json-huge-number", "nest-group");
    }
  }

  @Test
  void bombsAreSmallAndExpandPastTheLimit() throws Exception {
    CaseFactory cases = factory(Set.of());
    int bombs = 0;
    for (long index = 0; index < CASES * 4 && bombs < 3; index++) {
      HostileCase request = cases.make(index);
      if (request.what().equals("bomb gzip")) {
        bombs++;
        long limit =
            request.protocol() == Protocol.GRPC
                ? HostileRun.GRPC_MAX_BYTES
                : HostileRun.HTTP_MAX_BYTES;
        assertThat(request.body().length).isLessThan((int) (limit / 500));
        assertThat(request.expect()).isEqualTo(Expect.TOO_LARGE);
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(request.body()))) {
          assertThat(in.transferTo(OutputStreamSink.INSTANCE)).isGreaterThan(limit);
        }
      }
    }
    assertThat(bombs).isPositive();
  }

  @Test
  void duplicatedAndDroppedSubmessagesKeepTheFramingValid() throws Exception {
    byte[] valid = RequestShapes.traces(RequestShapes.SpanShape.REALISTIC, 5, SEED).toByteArray();
    SplittableRandom random = new SplittableRandom(SEED);
    for (int i = 0; i < 200; i++) {
      // protobuf-java reads them: every enclosing length was written anew.
      ExportTraceServiceRequest.parseFrom(ProtoMutator.duplicate(valid, random));
      ExportTraceServiceRequest.parseFrom(ProtoMutator.drop(valid, random));
    }
  }

  @Test
  void nestsAnyValuesPastProtobufJavasRecursionLimit() throws Exception {
    byte[] valid = RequestShapes.traces(RequestShapes.SpanShape.MINIMAL, 1, SEED).toByteArray();
    byte[] nested = ProtoMutator.nestAnyValue(valid, new SplittableRandom(SEED));
    assertThat(nested.length).isGreaterThan(valid.length + 200 * 4);
    assertThatThrownBy(() -> ExportTraceServiceRequest.parseFrom(nested))
        .hasMessageContaining("nesting");
  }

  @Test
  void corruptsTheLengthOfAField() throws Exception {
    byte[] valid = RequestShapes.traces(RequestShapes.SpanShape.MINIMAL, 3, SEED).toByteArray();
    SplittableRandom random = new SplittableRandom(SEED);
    int changed = 0;
    for (int i = 0; i < 50; i++) {
      byte[] corrupted = ProtoMutator.corruptLength(valid, random);
      if (!java.util.Arrays.equals(corrupted, valid)) {
        changed++;
      }
    }
    assertThat(changed).isGreaterThan(40);
  }

  @Test
  void jsonMutationsChangeTheDocument() throws Exception {
    List<CaseFactory.Base> bases = Bases.standard(SEED, null);
    SplittableRandom random = new SplittableRandom(SEED);
    for (CaseFactory.Base base : bases) {
      StringBuilder what = new StringBuilder();
      byte[] mutated = JsonMutator.mutate(base.json(), random, what);
      assertThat(what.toString()).startsWith("json-");
      if (!what.toString().contains("json-drop") && !what.toString().contains("json-duplicate")) {
        assertThat(mutated).as(what.toString()).isNotEqualTo(base.json());
      }
    }
  }

  /** Counts what it is given, keeps nothing. */
  private static final class OutputStreamSink extends java.io.OutputStream {
    static final OutputStreamSink INSTANCE = new OutputStreamSink();

    @Override
    public void write(int b) {}

    @Override
    public void write(byte[] b, int off, int len) {}
  }
}
