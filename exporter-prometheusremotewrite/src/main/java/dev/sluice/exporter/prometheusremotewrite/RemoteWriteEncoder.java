package dev.sluice.exporter.prometheusremotewrite;

import dev.sluice.exporter.prometheusremotewrite.RemoteWriteFields.RequestV2;
import dev.sluice.exporter.prometheusremotewrite.RemoteWriteFields.WriteRequest;
import dev.sluice.pdata.Batch;

/**
 * Writes a batch of metrics as remote-write requests of at most {@code maxBytes} each (a series
 * larger than that goes alone): {@link #encode} translates the batch, then each {@link
 * #nextRequest} writes the next request's protobuf into {@link #request()}. Owned by one sending
 * thread; its buffers are kept for the next batch, up to {@link #MAX_RETAINED_BYTES} each.
 */
final class RemoteWriteEncoder {
  static final int MAX_RETAINED_BYTES = 8 * 1024 * 1024;

  private final Translator translator;
  private final SeriesTable table = new SeriesTable();
  private final Buf request = new Buf(16 * 1024);
  private final int maxBytes;
  private final boolean v2;
  private final Symbols symbols;
  private final Buf series;
  private final Buf one;
  private int nextSeries;
  private int nextFamily;
  private final boolean metadata;
  private int requestSamples;
  private int requestHistograms;

  /**
   * @param v2 remote write 2.0 ({@code io.prometheus.write.v2.Request}) rather than 1.0
   */
  RemoteWriteEncoder(TranslationSettings settings, int maxBytes, boolean v2) {
    this.translator = new Translator(settings, v2);
    this.maxBytes = maxBytes;
    this.v2 = v2;
    this.metadata = !v2 && settings.sendMetadata();
    this.symbols = v2 ? new Symbols() : null;
    this.series = v2 ? new Buf(16 * 1024) : null;
    this.one = v2 ? new Buf(1024) : null;
  }

  /**
   * Translates the batch, forgetting the last one; returns the data points that cannot be written
   * to Prometheus ({@link #problem()} says why).
   */
  long encode(Batch batch) {
    table.clear();
    nextSeries = 0;
    nextFamily = 0;
    return translator.translate(batch, table);
  }

  /** Series the last batch made. */
  int seriesCount() {
    return table.seriesCount();
  }

  String problem() {
    return translator.problem();
  }

  /** Writes the next request into {@link #request()}; false when every series was written. */
  boolean nextRequest() {
    return v2 ? nextRequestV2() : nextRequestV1();
  }

  /**
   * A 2.0 request: its own symbol table (written first, as field 4) and its series (field 5), as
   * many as fit in {@code maxBytes} with the symbols they add; at least one.
   */
  private boolean nextRequestV2() {
    request.reset();
    series.reset();
    symbols.reset();
    requestSamples = 0;
    requestHistograms = 0;
    int count = table.seriesCount();
    while (nextSeries < count) {
      int s = nextSeries;
      if (!table.hasData(s)) {
        nextSeries++;
        continue;
      }
      int symbolMark = symbols.count();
      int symbolBytesMark = symbols.out.size;
      one.reset();
      table.writeTimeSeriesV2(s, one, symbols);
      int field = 1 + Buf.varintSize(one.size) + one.size;
      if (series.size > 0 && symbols.out.size + series.size + field > maxBytes) {
        symbols.truncate(symbolMark, symbolBytesMark);
        break;
      }
      series.tag(RequestV2.TIMESERIES, Buf.LEN);
      series.varint(one.size);
      series.bytes(one.array, 0, one.size);
      requestSamples += table.sampleCount(s);
      requestHistograms += table.histogramCount(s);
      nextSeries++;
    }
    if (series.size == 0) {
      return false;
    }
    request.bytes(symbols.out.array, 0, symbols.out.size);
    request.bytes(series.array, 0, series.size);
    return true;
  }

  /**
   * A 1.0 request: series while they last, then, with {@code send_metadata}, the metrics' metadata
   * in requests of their own, as the Collector sends them.
   */
  private boolean nextRequestV1() {
    if (nextSeries >= table.seriesCount() && metadata) {
      return nextMetadataRequest();
    }
    return nextSeriesRequest() || (metadata && nextMetadataRequest());
  }

  private boolean nextMetadataRequest() {
    request.reset();
    requestSamples = 0;
    requestHistograms = 0;
    int count = table.familyCount();
    while (nextFamily < count) {
      int size = table.metadataSize(nextFamily);
      int field = 1 + Buf.varintSize(size) + size;
      if (request.size > 0 && request.size + field > maxBytes) {
        break;
      }
      request.tag(WriteRequest.METADATA, Buf.LEN);
      request.varint(size);
      table.writeMetadata(nextFamily, request);
      nextFamily++;
    }
    return request.size > 0;
  }

  private boolean nextSeriesRequest() {
    request.reset();
    requestSamples = 0;
    requestHistograms = 0;
    int count = table.seriesCount();
    while (nextSeries < count) {
      int s = nextSeries;
      if (!table.hasData(s)) {
        nextSeries++;
        continue;
      }
      int size = table.timeSeriesSize(s);
      int field = 1 + Buf.varintSize(size) + size;
      if (request.size > 0 && request.size + field > maxBytes) {
        break;
      }
      request.tag(WriteRequest.TIMESERIES, Buf.LEN);
      request.varint(size);
      table.writeTimeSeries(s, request);
      requestSamples += table.sampleCount(s);
      requestHistograms += table.histogramCount(s);
      nextSeries++;
    }
    return request.size > 0;
  }

  /** The request {@link #nextRequest} wrote: {@code array[0, size)}. */
  Buf request() {
    return request;
  }

  int requestSamples() {
    return requestSamples;
  }

  int requestHistograms() {
    return requestHistograms;
  }

  /** Lets go of the batch's data and of buffers an outsized batch grew. */
  void release() {
    table.release(MAX_RETAINED_BYTES);
    request.release(MAX_RETAINED_BYTES);
    if (v2) {
      series.release(MAX_RETAINED_BYTES);
      one.release(MAX_RETAINED_BYTES);
      symbols.out.release(MAX_RETAINED_BYTES);
    }
  }
}
