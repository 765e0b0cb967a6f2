package dev.sluice.exporter.kafka;

import dev.sluice.kafka.KafkaEncoding;
import dev.sluice.pdata.Batch;

/**
 * Cuts a batch into records that each fit {@code producer.max_message_bytes} (key and value). A
 * batch that is too big is cut by units ({@link Batch#moveTo}) into pieces sized from its encoded
 * size, and a piece that still comes out too big is halved until it fits; an item (a span, a log
 * record, a data point with its metric) that alone is too big is dropped, and counted in {@link
 * #droppedUnits()}. Cutting never copies item bytes; each piece is encoded once more.
 *
 * <p>One per sending thread at a time, with its encoder.
 */
final class RecordSplitter {
  /** Pieces are aimed this far under the limit: headers repeat in every piece. */
  private static final double FILL_RATIO = 0.9;

  private final RecordEncoder encoder;
  private final int maxMessageBytes;
  private KafkaEncoding encoding = KafkaEncoding.OTLP_PROTO;
  private long droppedUnits;
  private int largestDroppedBytes;

  RecordSplitter(RecordEncoder encoder, int maxMessageBytes) {
    this.encoder = encoder;
    this.maxMessageBytes = maxMessageBytes;
  }

  /** Starts an export: counts start again at 0. */
  void begin(KafkaEncoding encoding) {
    this.encoding = encoding;
    droppedUnits = 0;
    largestDroppedBytes = 0;
  }

  /** Units dropped since {@link #begin} because one alone did not fit. */
  long droppedUnits() {
    return droppedUnits;
  }

  /** The encoded size of the largest piece dropped since {@link #begin}. */
  int largestDroppedBytes() {
    return largestDroppedBytes;
  }

  /**
   * Sends {@code batch}, which may be shared and is not changed, as one record if it fits; returns
   * false, having sent nothing, if it does not.
   */
  boolean sendWhole(Batch batch, byte[] key, RecordSink sink) {
    int size = encoder.encode(batch, encoding);
    if (!fits(size, key)) {
      return false;
    }
    sink.send(key, encoder.copyValue());
    return true;
  }

  /** Sends {@code owned} in records that fit, and clears it. */
  void sendSplit(Batch owned, byte[] key, RecordSink sink) {
    try {
      int size = encoder.encode(owned, encoding);
      if (fits(size, key)) {
        sink.send(key, encoder.copyValue());
        return;
      }
      long units = owned.unitCount();
      if (units <= 1) {
        drop(owned, size);
        return;
      }
      long perPiece = Math.max(1, (long) (units * FILL_RATIO * budget(key) / size));
      while (!owned.isEmpty() && sink.accepting()) {
        Batch piece = new Batch(owned.signal());
        owned.moveTo(piece, perPiece);
        sendHalving(piece, key, sink);
      }
    } finally {
      owned.clear();
    }
  }

  private void sendHalving(Batch piece, byte[] key, RecordSink sink) {
    try {
      if (piece.unitCount() == 0) {
        // Only blocks left without items: nothing to send.
        return;
      }
      int size = encoder.encode(piece, encoding);
      if (fits(size, key)) {
        sink.send(key, encoder.copyValue());
        return;
      }
      long units = piece.unitCount();
      if (units <= 1) {
        drop(piece, size);
        return;
      }
      Batch front = new Batch(piece.signal());
      piece.moveTo(front, units / 2);
      sendHalving(front, key, sink);
      if (sink.accepting()) {
        sendHalving(piece, key, sink);
      }
    } finally {
      piece.clear();
    }
  }

  private void drop(Batch piece, int size) {
    droppedUnits += piece.unitCount();
    largestDroppedBytes = Math.max(largestDroppedBytes, size);
  }

  private boolean fits(int valueBytes, byte[] key) {
    return valueBytes <= budget(key);
  }

  private int budget(byte[] key) {
    return maxMessageBytes - (key == null ? 0 : key.length);
  }
}
