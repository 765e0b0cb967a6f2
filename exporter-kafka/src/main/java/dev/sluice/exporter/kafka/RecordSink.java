package dev.sluice.exporter.kafka;

/** Where the records of one export go. */
interface RecordSink {
  /** Hands one record over; it may refuse silently once sending failed (see {@link #accepting}). */
  void send(byte[] key, byte[] value);

  /** False once a send failed: the rest of the batch is not sent, the export is answered failed. */
  boolean accepting();
}
