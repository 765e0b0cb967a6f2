package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.config.ConfigException;
import dev.sluice.config.ConfigLoader;
import dev.sluice.config.ConfigProblem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What validation says about file_storage and sending_queue.storage, before anything starts. */
class DurableConfigTest {
  private static String config(String extensions, String listed, String storageA, String storageB) {
    return String.join(
        "\n",
        "extensions:",
        extensions,
        "receivers:",
        "  otlp:",
        "    protocols:",
        "      grpc:",
        "exporters:",
        "  otlp/a:",
        "    endpoint: a.example:4317",
        "    sending_queue:",
        "      storage: " + storageA,
        "  otlp/b:",
        "    endpoint: b.example:4317",
        "    sending_queue:",
        "      storage: " + storageB,
        "service:",
        "  extensions: " + listed,
        "  pipelines:",
        "    traces:",
        "      receivers: [otlp]",
        "      exporters: [otlp/a]",
        "    logs:",
        "      receivers: [otlp]",
        "      exporters: [otlp/b]",
        "");
  }

  private static void assertRefused(String yaml, String... messages) {
    assertThatThrownBy(() -> new ConfigLoader().load(yaml, "durable.yaml"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContainingAll(messages);
  }

  @Test
  void aStorageMustBeAConfiguredAndListedFileStorage() {
    assertRefused(
        config(
            "  file_storage:\n    directory: /tmp/x",
            "[file_storage]",
            "file_storage/other",
            "file_storage"),
        "exporters.otlp/a.sending_queue.storage",
        "references extension \"file_storage/other\" which is not configured");
    assertRefused(
        config("  file_storage:\n    directory: /tmp/x", "[]", "file_storage", "file_storage"),
        "which is not listed in service.extensions");
    assertRefused(
        config("  health_check:", "[health_check]", "health_check", "health_check"),
        "extension \"health_check\" is not a file_storage extension");
  }

  @Test
  void durableExportersShareOneStorage() {
    assertRefused(
        config(
            "  file_storage/a:\n    directory: /tmp/a\n  file_storage/b:\n    directory: /tmp/b",
            "[file_storage/a, file_storage/b]",
            "file_storage/a",
            "file_storage/b"),
        "exporters.otlp/b.sending_queue.storage",
        "Sluice keeps one write-ahead log");
  }

  @Test
  void twoStoragesCannotShareADirectory() {
    assertRefused(
        config(
            "  file_storage/a:\n    directory: /tmp/same\n  file_storage/b:\n    directory: /tmp/same/",
            "[file_storage/a, file_storage/b]",
            "file_storage/a",
            "file_storage/a"),
        "extensions.file_storage/b.directory",
        "each storage needs its own");
  }

  @Test
  void aFileStorageNeedsADirectoryAndSaneSizes() {
    assertRefused(
        config(
            "  file_storage:\n    segment_size_mib: 0\n    max_size_mib: 10\n    commit_interval: 5s",
            "[file_storage]",
            "file_storage",
            "file_storage"),
        "extensions.file_storage.directory: is required",
        "extensions.file_storage.segment_size_mib: must be at least 1",
        "extensions.file_storage.commit_interval: must be between 0s and 1s");
  }

  /** Lines 1-17 declare the components; the pipelines start at line 20, four spaces in. */
  private static String joined(String pipelines) {
    return String.join(
            "\n",
            "extensions:",
            "  file_storage:",
            "    directory: /tmp/x",
            "receivers:",
            "  otlp:",
            "    protocols:",
            "      grpc:",
            "exporters:",
            "  otlp/durable:",
            "    endpoint: a.example:4317",
            "    sending_queue:",
            "      storage: file_storage",
            "  debug:",
            "connectors:",
            "  forward:",
            "  count:",
            "  spanmetrics:",
            "  servicegraph:",
            "service:",
            "  extensions: [file_storage]",
            "  pipelines:",
            "")
        + pipelines.indent(4);
  }

  @Test
  void aDurablePipelineMayBeFedThroughForwardAndRouting() throws Exception {
    new ConfigLoader()
        .load(
            joined(
                """
                traces/in: {receivers: [otlp], exporters: [forward, debug]}
                traces/out: {receivers: [forward], exporters: [otlp/durable]}
                """),
            "durable.yaml");
  }

  @ParameterizedTest
  @ValueSource(strings = {"count", "spanmetrics", "servicegraph"})
  void aLoggedPipelineMayEndInAConnectorThatSaysWhatItMadeFromAndItMayFeedADurablePipeline(
      String connector) throws Exception {
    new ConfigLoader()
        .load(
            joined(
                """
                traces: {receivers: [otlp], exporters: [otlp/durable, %1$s]}
                metrics: {receivers: [%1$s], exporters: [debug]}
                """
                    .formatted(connector)),
            "durable.yaml");
    new ConfigLoader()
        .load(
            joined(
                """
                traces: {receivers: [otlp], exporters: [%1$s]}
                metrics: {receivers: [%1$s], exporters: [otlp/durable]}
                """
                    .formatted(connector)),
            "durable.yaml");
  }

  /** A routing connector with {@code route} as its one route, in front of a durable pipeline. */
  private static String routing(String route) {
    return String.join(
        "\n",
        "extensions:",
        "  file_storage:",
        "    directory: /tmp/x",
        "receivers:",
        "  otlp:",
        "    protocols:",
        "      grpc:",
        "exporters:",
        "  otlp/durable:",
        "    endpoint: a.example:4317",
        "    sending_queue:",
        "      storage: file_storage",
        "  debug:",
        "connectors:",
        "  routing:",
        "    default_pipelines: [traces/other]",
        "    table:",
        route.indent(6).stripTrailing(),
        "        pipelines: [traces/out]",
        "service:",
        "  extensions: [file_storage]",
        "  pipelines:",
        "    traces/in: {receivers: [otlp], exporters: [routing]}",
        "    traces/out: {receivers: [routing], exporters: [otlp/durable]}",
        "    traces/other: {receivers: [routing], exporters: [debug]}",
        "");
  }

  @Test
  void aRoutingConnectorWithRequestRoutesIsRefusedWhereTheLogIs() throws Exception {
    new ConfigLoader()
        .load(routing("- condition: attributes[\"tenant\"] == \"acme\""), "durable.yaml");
    ConfigException refused =
        catchThrowableOfType(
            ConfigException.class,
            () ->
                new ConfigLoader()
                    .load(
                        routing(
                            "- context: request\n  condition: request[\"x-tenant\"] == \"acme\""),
                        "durable.yaml"));
    assertThat(refused.problems())
        .extracting(ConfigProblem::toString)
        .containsExactly(
            "durable.yaml:24:48: service.pipelines.traces/in.exporters: pipeline traces/in lists"
                + " connector \"routing\", and the requests that reach traces/in are logged in the"
                + " write-ahead log (receiver \"otlp\" feeds traces/in, where what it takes goes on"
                + " to exporter \"otlp/durable\" of traces/out, which has sending_queue.storage):"
                + " its request routes read the metadata a request came with, which the"
                + " write-ahead log does not keep, so a request replayed after a restart would be"
                + " routed differently; route on resource attributes instead, or give the routed"
                + " pipelines a receiver without file_storage");
  }
}
