package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import dev.sluice.component.ComponentId;
import dev.sluice.exporter.otlp.testkit.OtlpSink;
import dev.sluice.receiver.otlp.OtlpReceiver;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The OTLP specification's example JSON payloads, posted to the HTTP receiver, arrive at an OTLP
 * destination equal to the message protobuf-java builds from the same JSON.
 */
class JsonExamplesTest {
  @Test
  void specificationExamplesAreDeliveredAsTheirProtobufForm() throws Exception {
    try (OtlpSink sink = OtlpSink.start()) {
      String yaml =
          String.join(
              "\n",
              "receivers:",
              "  otlp:",
              "    protocols:",
              "      http:",
              "        endpoint: 127.0.0.1:0",
              "exporters:",
              "  otlp:",
              "    endpoint: " + sink.endpoint(),
              "    tls:",
              "      insecure: true",
              "service:",
              "  telemetry:",
              "    metrics:",
              "      level: none",
              "  pipelines:",
              "    traces: {receivers: [otlp], exporters: [otlp]}",
              "    metrics: {receivers: [otlp], exporters: [otlp]}",
              "    logs: {receivers: [otlp], exporters: [otlp]}",
              "");
      Collector collector = TestCollectors.start(yaml, Collector.Options.defaults());
      try {
        String base =
            "http://127.0.0.1:"
                + ((OtlpReceiver) collector.receiver(ComponentId.parse("otlp"))).httpPort();
        post(base + "/v1/traces", example("trace.json"));
        post(base + "/v1/metrics", example("metrics.json"));
        post(base + "/v1/logs", example("logs.json"));
        post(base + "/v1/logs", example("events.json"));

        assertThat(
                sink.await(
                    () ->
                        sink.traces().size() == 1
                            && sink.metrics().size() == 1
                            && sink.logs().size() == 2,
                    30,
                    TimeUnit.SECONDS))
            .isTrue();
        assertThat(sink.traces().get(0))
            .isEqualTo(parse(ExportTraceServiceRequest.newBuilder(), example("trace.json")));
        assertThat(sink.metrics().get(0))
            .isEqualTo(parse(ExportMetricsServiceRequest.newBuilder(), example("metrics.json")));
        assertThat(sink.logs())
            .containsExactlyInAnyOrder(
                (ExportLogsServiceRequest)
                    parse(ExportLogsServiceRequest.newBuilder(), example("logs.json")),
                (ExportLogsServiceRequest)
                    parse(ExportLogsServiceRequest.newBuilder(), example("events.json")));
      } finally {
        collector.shutdown(TimeUnit.SECONDS.toNanos(10));
      }
    }
  }

  private static void post(String url, String json) throws Exception {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(url))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(json))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
  }

  private static String example(String name) throws Exception {
    try (InputStream in = JsonExamplesTest.class.getResourceAsStream("/otlp-examples/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** protobuf-java's JSON parser, after turning OTLP's hex IDs into proto3 JSON's base64. */
  private static Message parse(Message.Builder builder, String otlpJson) throws Exception {
    Matcher m =
        Pattern.compile("\"(traceId|spanId|parentSpanId)\"\\s*:\\s*\"([0-9A-Fa-f]*)\"")
            .matcher(otlpJson);
    StringBuilder json = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(
          json,
          "\""
              + m.group(1)
              + "\":\""
              + Base64.getEncoder().encodeToString(HexFormat.of().parseHex(m.group(2)))
              + "\"");
    }
    m.appendTail(json);
    JsonFormat.parser().merge(json.toString(), builder);
    return builder.build();
  }
}
