package dev.sluice.processor.attributes;

import com.google.protobuf.Message;
import dev.sluice.component.BatchFunction;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.config.ConfigBinder;
import dev.sluice.config.ConfigException;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpMarshaler;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

/** Runs the processor as the collector does: YAML bound and validated, then one batch through. */
final class Harness {
  static final ComponentSettings SETTINGS =
      new ComponentSettings(
          ComponentId.parse("attributes"), ComponentKind.PROCESSOR, new MetricRegistry());

  private Harness() {}

  static AttributesConfig bind(String yaml) throws ConfigException {
    return new ConfigBinder()
        .bind(yaml, "attributes.yaml", AttributesConfig.class, AttributesConfig.DEFAULT);
  }

  static Signal signalOf(Message request) {
    if (request instanceof ExportTraceServiceRequest) {
      return Signal.TRACES;
    }
    return request instanceof ExportLogsServiceRequest ? Signal.LOGS : Signal.METRICS;
  }

  /** The request after the processor configured by {@code yaml}, parsed back with protobuf-java. */
  static Message run(String yaml, Message request) throws Exception {
    AttributesConfig config = bind(yaml);
    Signal signal = signalOf(request);
    BatchFunction<AttributesConfig> function =
        new AttributesProcessorFactory().createFunction(SETTINGS, config, signal);
    Batch batch = Batch.of(new OtlpIndexer().index(signal, request.toByteArray()));
    function.apply(batch, config);
    byte[] output = OtlpMarshaler.toByteArray(batch);
    batch.clear();
    return switch (signal) {
      case TRACES -> ExportTraceServiceRequest.parseFrom(output);
      case LOGS -> ExportLogsServiceRequest.parseFrom(output);
      case METRICS -> ExportMetricsServiceRequest.parseFrom(output);
    };
  }
}
