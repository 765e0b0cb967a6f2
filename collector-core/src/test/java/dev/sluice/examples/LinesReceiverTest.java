package dev.sluice.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ComponentId;
import dev.sluice.service.ComponentSpec;
import dev.sluice.testkit.RecordingExporter;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@code lines} example receiver in a pipeline the collector builds, with the {@code
 * span_rename} example after it: lines sent over a loopback socket, and the requests the exporter
 * is asked to send parsed by protobuf-java.
 */
class LinesReceiverTest {
  private ExamplePipeline pipeline;

  @BeforeEach
  void startPipeline() throws Exception {
    pipeline =
        new ExamplePipeline(
            new ComponentSpec(
                ComponentId.parse("lines"),
                new LinesReceiverFactory(),
                new LinesReceiverConfig("127.0.0.1:0")),
            List.of(
                new ComponentSpec(
                    ComponentId.parse("span_rename"),
                    new SpanRenameProcessorFactory(),
                    new SpanRenameConfig("charge", "charge card", 500, "server error"))));
  }

  @AfterEach
  void stopPipeline() throws InterruptedException {
    pipeline.close();
  }

  @Test
  void makesEachLineASpanOfItsServiceAndAnswersEachLine() throws Exception {
    List<String> answers =
        exchange("checkout,GET /cart,12", "billing,charge,250", "no duration here", "a,b,-1");

    assertThat(answers.subList(0, 2)).containsExactly("OK", "OK");
    assertThat(answers.get(2)).isEqualTo("ERROR expected service,span-name,duration-ms");
    assertThat(answers.get(3)).isEqualTo("ERROR expected service,span-name,duration-ms");

    RecordingExporter exporter = pipeline.exported();
    assertThat(exporter.awaitDeliveredUnits(2, 30, TimeUnit.SECONDS)).isTrue();
    Map<String, Span> byService = new TreeMap<>();
    for (RecordingExporter.Attempt attempt : exporter.delivered()) {
      for (ResourceSpans resource :
          ExportTraceServiceRequest.parseFrom(attempt.request()).getResourceSpansList()) {
        String service = resource.getResource().getAttributes(0).getValue().getStringValue();
        assertThat(resource.getResource().getAttributes(0).getKey()).isEqualTo("service.name");
        assertThat(resource.getScopeSpans(0).getScope().getName())
            .isEqualTo("dev.sluice.examples.lines");
        assertThat(resource.getScopeSpans(0).getSpansList()).hasSize(1);
        byService.put(service, resource.getScopeSpans(0).getSpans(0));
      }
    }
    assertThat(byService).containsOnlyKeys("billing", "checkout");
    assertSpan(byService.get("checkout"), "GET /cart", 12);
    // The processor after the receiver renamed it.
    assertSpan(byService.get("billing"), "charge card", 250);
  }

  private static void assertSpan(Span span, String name, long durationMillis) {
    assertThat(span.getName()).isEqualTo(name);
    assertThat(span.getEndTimeUnixNano() - span.getStartTimeUnixNano())
        .isEqualTo(TimeUnit.MILLISECONDS.toNanos(durationMillis));
    assertThat(span.getTraceId().size()).isEqualTo(16);
    assertThat(span.getSpanId().size()).isEqualTo(8);
    assertThat(span.getKind()).isEqualTo(Span.SpanKind.SPAN_KIND_INTERNAL);
    assertThat(span.getStatus()).isEqualTo(Status.getDefaultInstance());
  }

  /** Sends the lines on one connection and reads an answer line for each. */
  private List<String> exchange(String... lines) throws Exception {
    int port = ((LinesReceiver) pipeline.graph.receiver(ComponentId.parse("lines"))).port();
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      socket.setSoTimeout(30_000);
      OutputStream out = socket.getOutputStream();
      out.write((String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
      out.flush();
      BufferedReader in =
          new BufferedReader(
              new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      List<String> answers = new ArrayList<>();
      for (int i = 0; i < lines.length; i++) {
        answers.add(in.readLine());
      }
      return answers;
    }
  }
}
