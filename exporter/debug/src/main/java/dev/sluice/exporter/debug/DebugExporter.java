package dev.sluice.exporter.debug;

import dev.sluice.component.ComponentSettings;
import dev.sluice.component.ExportResult;
import dev.sluice.component.Exporter;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.json.OtlpJsonEncoder;
import dev.sluice.pdata.otlp.Batch;
import dev.sluice.pdata.otlp.MarshalContext;
import dev.sluice.pdata.otlp.OtlpFields;
import dev.sluice.pdata.otlp.OtlpMarshaler;
import dev.sluice.pdata.otlp.Signal;
import dev.sluice.pdata.wire.ProtoWriter;
import dev.sluice.pdata.wire.WireReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.logging.Logger;

/**
 * Writes what passes through, for people: counts per batch, one line of OTLP/JSON per item, or the
 * whole batch as indented OTLP/JSON. Decoding happens here only, straight from the wire.
 */
final class DebugExporter implements Exporter {
  private final DebugConfig config;
  private final Logger logger;
  private final PrintStream stdout;
  private final OutputSampler sampler;

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
    MarshalContext context = new MarshalContext(new ProtoWriter(4096));
    int size = OtlpMarshaler.marshal(batch, context);
    byte[] request = context.output().array();
    Signal signal = batch.signal();
    StringBuilder text = new StringBuilder();
    text.append(summary(signal, request, size, batch.unitCount()));
    if (config.verbosity() == DebugConfig.Verbosity.NORMAL) {
      appendItems(text, signal, request, size);
    } else if (config.verbosity() == DebugConfig.Verbosity.DETAILED) {
      ByteArrayOutputStream json = new ByteArrayOutputStream();
      new OtlpJsonEncoder().encode(signal, request, 0, size, json, true);
      text.append('\n').append(json.toString(StandardCharsets.UTF_8));
    }
    if (config.useInternalLogger()) {
      logger.info(text.toString());
    } else {
      stdout.println(text);
    }
    return ExportResult.SUCCESS;
  }

  private static String summary(Signal signal, byte[] request, int size, long units) {
    int[] counts = countBlocks(request, size);
    return signal.name().charAt(0)
        + signal.name().substring(1).toLowerCase(java.util.Locale.ROOT)
        + ": "
        + counts[0]
        + " resource blocks, "
        + counts[1]
        + " scope blocks, "
        + counts[2]
        + " "
        + itemName(signal)
        + (signal == Signal.METRICS ? ", " + units + " data points" : "");
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

  /** Resource blocks, scope blocks and items in a marshaled request. */
  private static int[] countBlocks(byte[] request, int size) {
    int[] counts = new int[3];
    walk(
        request, size, (item, offset, length) -> counts[2]++, () -> counts[1]++, () -> counts[0]++);
    return counts;
  }

  private static void appendItems(StringBuilder text, Signal signal, byte[] request, int size) {
    OtlpJsonEncoder encoder = new OtlpJsonEncoder();
    walk(
        request,
        size,
        (item, offset, length) -> {
          ByteArrayOutputStream json = new ByteArrayOutputStream();
          try (com.fasterxml.jackson.core.JsonGenerator generator =
              new com.fasterxml.jackson.core.JsonFactory().createGenerator(json)) {
            encoder.write(signal.item(), request, offset, length, generator);
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
          text.append('\n').append(json.toString(StandardCharsets.UTF_8));
        },
        () -> {},
        () -> {});
  }

  private interface ItemVisitor {
    void item(int index, int offset, int length);
  }

  /** Walks the three levels of a marshaled request, which the marshaler wrote and is valid. */
  private static void walk(
      byte[] request, int size, ItemVisitor items, Runnable scopeSeen, Runnable resourceSeen) {
    WireReader resources = new WireReader().wrap(request, 0, size);
    WireReader scopes = new WireReader();
    WireReader itemReader = new WireReader();
    int index = 0;
    try {
      while (resources.hasRemaining()) {
        int tag = resources.readTag();
        if ((tag >>> 3) != OtlpFields.Request.RESOURCE_BLOCKS) {
          resources.skipValue(tag, 8);
          continue;
        }
        int length = resources.readLength();
        resourceSeen.run();
        scopes.wrap(request, resources.position(), length);
        resources.position(resources.position() + length);
        while (scopes.hasRemaining()) {
          int scopeTag = scopes.readTag();
          if ((scopeTag >>> 3) != OtlpFields.ResourceBlock.SCOPE_BLOCKS) {
            scopes.skipValue(scopeTag, 8);
            continue;
          }
          int scopeLength = scopes.readLength();
          scopeSeen.run();
          itemReader.wrap(request, scopes.position(), scopeLength);
          scopes.position(scopes.position() + scopeLength);
          while (itemReader.hasRemaining()) {
            int itemTag = itemReader.readTag();
            if ((itemTag >>> 3) != OtlpFields.ScopeBlock.ITEMS) {
              itemReader.skipValue(itemTag, 8);
              continue;
            }
            int itemLength = itemReader.readLength();
            items.item(index++, itemReader.position(), itemLength);
            itemReader.position(itemReader.position() + itemLength);
          }
        }
      }
    } catch (MalformedOtlpException e) {
      throw new IllegalStateException("the marshaler wrote an unreadable request", e);
    }
  }
}
