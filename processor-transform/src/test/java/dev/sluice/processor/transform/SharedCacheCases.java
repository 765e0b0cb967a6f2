package dev.sluice.processor.transform;

import static dev.sluice.processor.transform.Harness.kv;
import static dev.sluice.processor.transform.Harness.resource;
import static dev.sluice.processor.transform.Harness.span;
import static dev.sluice.processor.transform.Harness.traces;

import dev.sluice.processor.transform.TransformConformanceTest.Case;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.util.stream.Stream;

/** The conformance cases of {@code shared_cache}, run by {@link TransformConformanceTest}. */
final class SharedCacheCases {
  private SharedCacheCases() {}

  static final String WRITER =
      "  - context: span\n    shared_cache: true\n"
          + "    statements: ['set(cache[\"first\"], name) where name == \"a\"']\n";

  static Stream<Case> cases() {
    ExportTraceServiceRequest in = traces(resource("svc"), span("a"), span("b"));
    return Stream.of(
        new Case(
            "shared_cache: later groups of the context read it, for every item of the batch",
            "trace_statements:\n"
                + WRITER
                + "  - context: span\n    shared_cache: true\n"
                + "    statements: ['set(attributes[\"seen\"], cache[\"first\"])']\n",
            in,
            traces(resource("svc"), span("a", kv("seen", "a")), span("b", kv("seen", "a")))),
        new Case(
            "shared_cache: a group without it, or of another context, has its own cache",
            "trace_statements:\n"
                + WRITER
                + "  - context: span\n"
                + "    statements: ['set(attributes[\"own\"], cache[\"first\"])']\n"
                + "  - context: span\n    shared_cache: false\n"
                + "    statements: ['set(attributes[\"off\"], cache[\"first\"])']\n"
                + "  - context: resource\n    shared_cache: true\n"
                + "    statements: ['set(attributes[\"resource\"], cache[\"first\"])']\n",
            in,
            in));
  }
}
