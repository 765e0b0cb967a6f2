package dev.sluice.receiver.kafka;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.MarshalContext;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.codec.OtlpJsonDecoder;
import dev.sluice.pdata.codec.OtlpMarshaler;
import dev.sluice.pdata.edit.ResourceEditor;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * Turns a record's value into an indexed request: OTLP/JSON through the decoder the OTLP/HTTP
 * receiver uses, then the indexer that validates every OTLP request at the edge; with header
 * extraction, the configured headers become resource attributes through the data API's resource
 * replacement. One per poll thread: it keeps the indexer's and the marshaler's scratch state.
 */
final class RecordDecoder {
  static final String HEADER_ATTRIBUTE_PREFIX = "kafka.header.";

  private final OtlpIndexer indexer = new OtlpIndexer();
  private final OtlpJsonDecoder jsonDecoder = new OtlpJsonDecoder();
  private final MarshalContext marshalContext = new MarshalContext();
  private final List<String> headers;
  private final String[] attributeKeys;

  RecordDecoder(KafkaReceiverConfig.HeaderExtraction extraction) {
    this.headers = extraction.extractHeaders() ? List.copyOf(extraction.headers()) : List.of();
    this.attributeKeys = new String[headers.size()];
    for (int i = 0; i < attributeKeys.length; i++) {
      attributeKeys[i] = HEADER_ATTRIBUTE_PREFIX + headers.get(i);
    }
  }

  /**
   * The record's request, validated and indexed; the pipelines may own the returned index's bytes,
   * which are the record's value (or new bytes made from it), never changed afterwards.
   *
   * @throws MalformedOtlpException when the value is not a valid request of the signal in the
   *     encoding
   */
  OtlpIndex decode(Signal signal, boolean json, byte[] value, Headers recordHeaders)
      throws MalformedOtlpException {
    byte[] protobuf = json ? jsonDecoder.decode(signal, value) : value;
    OtlpIndex index = indexer.index(signal, protobuf);
    return headers.isEmpty() ? index : withHeaders(index, recordHeaders);
  }

  /** The request with the configured headers the record has as resource attributes. */
  private OtlpIndex withHeaders(OtlpIndex index, Headers recordHeaders)
      throws MalformedOtlpException {
    String[] values = new String[attributeKeys.length];
    boolean any = false;
    for (int i = 0; i < attributeKeys.length; i++) {
      Header header = recordHeaders.lastHeader(headers.get(i));
      if (header != null && header.value() != null) {
        values[i] = new String(header.value(), StandardCharsets.UTF_8);
        any = true;
      }
    }
    if (!any) {
      return index;
    }
    Batch batch = Batch.of(index);
    try {
      // Each resource block once: the headers are the same for every resource of the record.
      batch.visitHeaders(
          item -> {
            ResourceEditor resource = item.editResource();
            for (int i = 0; i < values.length; i++) {
              if (values[i] != null) {
                resource.putAttribute(attributeKeys[i], values[i]);
              }
            }
          });
      int size = OtlpMarshaler.marshal(batch, marshalContext);
      byte[] rewritten = new byte[size];
      System.arraycopy(marshalContext.outputArray(), 0, rewritten, 0, size);
      return indexer.index(index.signal(), rewritten);
    } finally {
      batch.clear();
    }
  }
}
