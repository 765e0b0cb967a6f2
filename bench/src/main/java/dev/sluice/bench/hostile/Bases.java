package dev.sluice.bench.hostile;

import dev.sluice.bench.hostile.CaseFactory.Base;
import dev.sluice.bench.load.RequestShapes;
import dev.sluice.bench.load.RequestShapes.SpanShape;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpJsonDecoder;
import dev.sluice.pdata.codec.OtlpJsonEncoder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The valid requests a hostile run starts from: small requests of every signal and span shape from
 * {@link RequestShapes}, and the OTLP specification's example payloads where a directory of them is
 * given ({@code trace.json}, {@code metrics.json}, {@code logs.json}, {@code events.json}).
 */
final class Bases {
  private Bases() {}

  static List<Base> standard(long seed, Path examples) throws IOException {
    List<Base> bases = new ArrayList<>();
    OtlpJsonEncoder encoder = new OtlpJsonEncoder();
    int[] spanCounts = {1, 5, 20};
    for (SpanShape shape : List.of(SpanShape.REALISTIC, SpanShape.MINIMAL)) {
      for (int spans : spanCounts) {
        add(
            bases,
            encoder,
            "traces-" + shape + "-" + spans,
            Signal.TRACES,
            RequestShapes.traces(shape, spans, seed + spans).toByteArray());
      }
    }
    add(
        bases,
        encoder,
        "traces-attrs-100x50-2",
        Signal.TRACES,
        RequestShapes.traces(SpanShape.ATTRS_100X50, 2, seed).toByteArray());
    for (int records : new int[] {1, 10}) {
      add(
          bases,
          encoder,
          "logs-" + records,
          Signal.LOGS,
          RequestShapes.logs(records, seed + records).toByteArray());
    }
    for (int metrics : new int[] {3, 9}) {
      add(
          bases,
          encoder,
          "metrics-" + metrics + "x2",
          Signal.METRICS,
          RequestShapes.metrics(metrics, 2, seed + metrics).toByteArray());
    }
    if (examples != null) {
      addExample(bases, examples, "trace.json", Signal.TRACES);
      addExample(bases, examples, "metrics.json", Signal.METRICS);
      addExample(bases, examples, "logs.json", Signal.LOGS);
      addExample(bases, examples, "events.json", Signal.LOGS);
    }
    return bases;
  }

  private static void add(
      List<Base> bases, OtlpJsonEncoder encoder, String name, Signal signal, byte[] protobuf) {
    bases.add(
        new Base(name, signal, protobuf, encoder.encode(signal, protobuf, 0, protobuf.length)));
  }

  private static void addExample(List<Base> bases, Path dir, String file, Signal signal)
      throws IOException {
    Path path = dir.resolve(file);
    if (!Files.isRegularFile(path)) {
      return;
    }
    byte[] json = Files.readAllBytes(path);
    try {
      bases.add(new Base("spec-" + file, signal, new OtlpJsonDecoder().decode(signal, json), json));
    } catch (MalformedOtlpException e) {
      throw new IOException("the example " + path + " does not decode: " + e.getMessage(), e);
    }
  }
}
