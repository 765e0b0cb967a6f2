package dev.sluice.exporter.debug;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.ExportResult;
import dev.sluice.component.Exporter;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchView;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.MarshalContext;
import dev.sluice.pdata.codec.OtlpJsonEncoder;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.pdata.view.LogRecordView;
import dev.sluice.pdata.view.MetricView;
import dev.sluice.pdata.view.ResourceView;
import dev.sluice.pdata.view.ScopeView;
import dev.sluice.pdata.view.SpanView;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.logging.Logger;

/**
 * Writes what passes through, for people: counts per batch, one line of OTLP/JSON per item, or the
 * whole batch as indented OTLP/JSON. Counts and items are read through the batch's views ({@link
 * BatchView}), so {@code basic} and {@code normal} never marshal the batch; {@code detailed}
 * marshals it once and writes it as JSON in one pass.
 */
final class DebugExporter implements Exporter {
  private static final JsonFactory JSON = new JsonFactory();
  private static final int ITEM_BUFFER_BYTES = 4096;

  private final DebugConfig config;
  private final Logger logger;
  private final PrintStream stdout;
  private final OutputSampler sampler;
  // Reused across batches; export is synchronized.
  private final BatchView views = new BatchView();
  private final OtlpJsonEncoder encoder = new OtlpJsonEncoder();
  private final ItemLines itemLines = new ItemLines();

  DebugExporter(ComponentSettings settings, DebugConfig config, PrintStream stdout) {
    this.config = config;
    this.logger = settings.logger();
    this.stdout = stdout;
    this.sampler = new OutputSampler(config.samplingInitial(), config.samplingThereafter());
  }

  @Override
  public synchronized ExportResult export(Batch batch, long deadlineNanos) {
    if (!sampler.take(System.nanoTime())) {
      return ExportResult.SUCCESS;
    }
    Signal signal = batch.signal();
    StringBuilder text = new StringBuilder(summary(batch));
    if (config.verbosity() == DebugConfig.Verbosity.NORMAL) {
      itemLines.append(batch, text);
    } else if (config.verbosity() == DebugConfig.Verbosity.DETAILED) {
      MarshalContext context = new MarshalContext(ITEM_BUFFER_BYTES);
      int size = OtlpMarshaler.marshal(batch, context);
      ByteArrayOutputStream json = new ByteArrayOutputStream();
      encoder.encode(signal, context.outputArray(), 0, size, json, true);
      text.append('\n').append(json.toString(StandardCharsets.UTF_8));
    }
    if (config.useInternalLogger()) {
      logger.info(text.toString());
    } else {
      stdout.println(text);
    }
    return ExportResult.SUCCESS;
  }

  /** Counts as the batch is marshaled: coalesced resource and scope blocks, items, units. */
  private static String summary(Batch batch) {
    Signal signal = batch.signal();
    return signal.name().charAt(0)
        + signal.name().substring(1).toLowerCase(Locale.ROOT)
        + ": "
        + BatchView.resourceBlockCount(batch)
        + " resource blocks, "
        + BatchView.scopeBlockCount(batch)
        + " scope blocks, "
        + BatchView.itemCount(batch)
        + " "
        + itemName(signal)
        + (signal == Signal.METRICS ? ", " + batch.unitCount() + " data points" : "");
  }

  private static String itemName(Signal signal) {
    switch (signal) {
      case TRACES:
        return "spans";
      case METRICS:
        return "metrics";
      default:
        return "log records";
    }
  }

  /**
   * A line of compact OTLP/JSON per span, log record or metric part (a metric that slice boundaries
   * cut shows only its own data points, as the marshaler writes it).
   */
  private final class ItemLines
      implements BatchView.SpanVisitor, BatchView.LogRecordVisitor, BatchView.MetricVisitor {
    private final ByteArrayOutputStream json = new ByteArrayOutputStream();
    private StringBuilder text;
    private Signal signal;

    void append(Batch batch, StringBuilder text) {
      this.text = text;
      this.signal = batch.signal();
      switch (signal) {
        case TRACES:
          views.forEachSpan(batch, this);
          break;
        case LOGS:
          views.forEachLogRecord(batch, this);
          break;
        default:
          views.forEachMetric(batch, this);
          break;
      }
      this.text = null;
    }

    @Override
    public void visit(ResourceView resource, ScopeView scope, SpanView span) {
      json.reset();
      try (JsonGenerator generator = JSON.createGenerator(json)) {
        encoder.write(span, generator);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      line();
    }

    @Override
    public void visit(ResourceView resource, ScopeView scope, LogRecordView logRecord) {
      json.reset();
      try (JsonGenerator generator = JSON.createGenerator(json)) {
        encoder.write(logRecord, generator);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      line();
    }

    @Override
    public void visit(ResourceView resource, ScopeView scope, MetricView metric) {
      json.reset();
      try (JsonGenerator generator = JSON.createGenerator(json)) {
        encoder.write(metric, generator);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      line();
    }

    private void line() {
      text.append('\n').append(json.toString(StandardCharsets.UTF_8));
    }
  }
}
