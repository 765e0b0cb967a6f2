package dev.sluice.exporter.prometheusremotewrite;

import com.google.protobuf.ByteString;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.prometheus.TranslationStrategy;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.resource.v1.Resource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import prometheus.Remote.WriteRequest;
import prometheus.Types.Label;
import prometheus.Types.Sample;
import prometheus.Types.TimeSeries;

/** OTLP requests built with protobuf-java, and what the encoder makes of them, decoded. */
final class Otlp {
  static final long T0 = 1_767_225_600_000_000_000L;

  private Otlp() {}

  static KeyValue kv(String key, String value) {
    return KeyValue.newBuilder()
        .setKey(key)
        .setValue(AnyValue.newBuilder().setStringValue(value))
        .build();
  }

  static KeyValue kv(String key, long value) {
    return KeyValue.newBuilder()
        .setKey(key)
        .setValue(AnyValue.newBuilder().setIntValue(value))
        .build();
  }

  static Resource service(String name, KeyValue... more) {
    return Resource.newBuilder()
        .addAttributes(kv("service.name", name))
        .addAllAttributes(List.of(more))
        .build();
  }

  static ExportMetricsServiceRequest request(Resource resource, Metric... metrics) {
    return ExportMetricsServiceRequest.newBuilder()
        .addResourceMetrics(
            ResourceMetrics.newBuilder()
                .setResource(resource)
                .addScopeMetrics(
                    ScopeMetrics.newBuilder()
                        .setScope(
                            InstrumentationScope.newBuilder().setName("lib").setVersion("1.2"))
                        .addAllMetrics(List.of(metrics))))
        .build();
  }

  static Batch batch(ExportMetricsServiceRequest... requests) throws Exception {
    Batch batch = new Batch(Signal.METRICS);
    for (ExportMetricsServiceRequest request : requests) {
      batch.add(new OtlpIndexer().index(Signal.METRICS, request.toByteArray()));
    }
    return batch;
  }

  static TranslationSettings settings() {
    return new TranslationSettings(
        "",
        TranslationStrategy.UNDERSCORE_ESCAPING_WITH_SUFFIXES,
        Map.of(),
        true,
        true,
        ResourceAttributes.NONE);
  }

  static ByteString id(int... bytes) {
    byte[] b = new byte[bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      b[i] = (byte) bytes[i];
    }
    return ByteString.copyFrom(b);
  }

  /** What the encoder writes for the batch, each request parsed by protobuf-java. */
  static final class Encoded {
    final List<WriteRequest> requests = new ArrayList<>();
    final long dropped;
    final String problem;

    Encoded(TranslationSettings settings, int maxBytes, Batch batch) throws Exception {
      RemoteWriteEncoder encoder = new RemoteWriteEncoder(settings, maxBytes, false);
      dropped = encoder.encode(batch);
      problem = encoder.problem();
      while (encoder.nextRequest()) {
        Buf request = encoder.request();
        requests.add(WriteRequest.parseFrom(Arrays.copyOf(request.array, request.size)));
      }
      encoder.release();
    }

    List<TimeSeries> series() {
      List<TimeSeries> all = new ArrayList<>();
      for (WriteRequest request : requests) {
        all.addAll(request.getTimeseriesList());
      }
      return all;
    }

    /** Each series as {@code name{a="x",b="y"}} (labels in the order sent) to its samples. */
    Map<String, List<String>> samples() {
      Map<String, List<String>> out = new TreeMap<>();
      for (TimeSeries series : series()) {
        List<String> samples = out.computeIfAbsent(text(series), k -> new ArrayList<>());
        for (Sample sample : series.getSamplesList()) {
          samples.add(value(sample.getValue()) + "@" + sample.getTimestamp());
        }
      }
      return out;
    }

    TimeSeries only(String text) {
      TimeSeries found = null;
      for (TimeSeries series : series()) {
        if (text(series).equals(text)) {
          if (found != null) {
            throw new AssertionError("two series " + text);
          }
          found = series;
        }
      }
      if (found == null) {
        throw new AssertionError("no series " + text + " in " + samples().keySet());
      }
      return found;
    }
  }

  /** What the encoder writes in remote write 2.0, each request parsed by protobuf-java. */
  static final class EncodedV2 {
    final List<io.prometheus.write.v2.Types.Request> requests = new ArrayList<>();
    final long dropped;

    EncodedV2(TranslationSettings settings, int maxBytes, Batch batch) throws Exception {
      RemoteWriteEncoder encoder = new RemoteWriteEncoder(settings, maxBytes, true);
      dropped = encoder.encode(batch);
      while (encoder.nextRequest()) {
        Buf request = encoder.request();
        requests.add(
            io.prometheus.write.v2.Types.Request.parseFrom(
                Arrays.copyOf(request.array, request.size)));
      }
      encoder.release();
    }

    /** Each series as 1.0 would carry it: labels resolved through its request's symbols. */
    List<TimeSeries> asV1() {
      List<TimeSeries> all = new ArrayList<>();
      for (io.prometheus.write.v2.Types.Request request : requests) {
        List<String> symbols = request.getSymbolsList();
        for (io.prometheus.write.v2.Types.TimeSeries series : request.getTimeseriesList()) {
          TimeSeries.Builder v1 = TimeSeries.newBuilder();
          for (int i = 0; i < series.getLabelsRefsCount(); i += 2) {
            v1.addLabels(
                Label.newBuilder()
                    .setName(symbols.get(series.getLabelsRefs(i)))
                    .setValue(symbols.get(series.getLabelsRefs(i + 1))));
          }
          for (io.prometheus.write.v2.Types.Sample sample : series.getSamplesList()) {
            v1.addSamples(
                Sample.newBuilder()
                    .setValue(sample.getValue())
                    .setTimestamp(sample.getTimestamp()));
          }
          all.add(v1.build());
        }
      }
      return all;
    }

    /** The series whose 1.0 text (see {@link Otlp#text}) is {@code text}, with its request. */
    io.prometheus.write.v2.Types.TimeSeries only(String text) {
      for (io.prometheus.write.v2.Types.Request request : requests) {
        for (io.prometheus.write.v2.Types.TimeSeries series : request.getTimeseriesList()) {
          TimeSeries.Builder v1 = TimeSeries.newBuilder();
          for (int i = 0; i < series.getLabelsRefsCount(); i += 2) {
            v1.addLabels(
                Label.newBuilder()
                    .setName(request.getSymbols(series.getLabelsRefs(i)))
                    .setValue(request.getSymbols(series.getLabelsRefs(i + 1))));
          }
          if (Otlp.text(v1.build()).equals(text)) {
            return series;
          }
        }
      }
      throw new AssertionError("no series " + text);
    }

    String symbol(io.prometheus.write.v2.Types.TimeSeries series, int ref) {
      for (io.prometheus.write.v2.Types.Request request : requests) {
        if (request.getTimeseriesList().contains(series)) {
          return request.getSymbols(ref);
        }
      }
      throw new AssertionError("not in any request");
    }
  }

  static String text(TimeSeries series) {
    String name = "";
    StringBuilder labels = new StringBuilder();
    for (Label label : series.getLabelsList()) {
      if (label.getName().equals("__name__")) {
        name = label.getValue();
        continue;
      }
      labels.append(labels.length() == 0 ? "" : ",");
      labels.append(label.getName()).append("=\"").append(label.getValue()).append('"');
    }
    return name + "{" + labels + "}";
  }

  static String value(double value) {
    if (Double.doubleToRawLongBits(value) == Translator.STALE_NAN) {
      return "stale";
    }
    return value == Math.rint(value) && !Double.isInfinite(value)
        ? Long.toString((long) value)
        : Double.toString(value);
  }
}
