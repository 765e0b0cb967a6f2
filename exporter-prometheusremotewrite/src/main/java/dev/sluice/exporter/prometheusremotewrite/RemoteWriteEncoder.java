package dev.sluice.exporter.prometheusremotewrite;

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
  private int nextSeries;
  private int requestSamples;
  private int requestHistograms;

  RemoteWriteEncoder(TranslationSettings settings, int maxBytes) {
    this.translator = new Translator(settings);
    this.maxBytes = maxBytes;
  }

  /**
   * Translates the batch, forgetting the last one; returns the data points that cannot be written
   * to Prometheus ({@link #problem()} says why).
   */
  long encode(Batch batch) {
    table.clear();
    nextSeries = 0;
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
  }
}
