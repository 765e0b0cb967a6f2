package dev.sluice.processor.resourcedetection;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchFunction;
import dev.sluice.component.telemetry.RateLimitedLog;
import dev.sluice.pdata.otlp.AttributeEditor;
import dev.sluice.pdata.otlp.AttributeValue;
import dev.sluice.pdata.otlp.Batch;
import dev.sluice.pdata.otlp.BatchItem;
import dev.sluice.pdata.otlp.ItemVisitor;
import dev.sluice.pdata.otlp.OtlpIndex;
import dev.sluice.pdata.otlp.RawMessages;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Sets the detected attributes on every resource of a batch: each resource block is re-encoded once
 * per batch, as its original bytes plus the detected entries ({@link
 * AttributeEditor#editResource}); spans, log records and data points are not touched. With {@code
 * override} the detected attributes replace the resource's own (upsert), without it they only fill
 * in missing keys (insert). The detected schema URL is written into each resource block that has
 * none; a block's own schema URL wins, as in Go. Applying the same attributes again gives the same
 * bytes, so a batch offered again is safe.
 *
 * <p>Nothing is set until {@link #set} is called with what detection found. Batches may come from
 * several threads at once: each thread has its own editor (editors keep scratch buffers), made from
 * the same values, encoded once in {@link #set}; each editor encodes its key-value entries when it
 * is made.
 */
final class ResourceMerge implements BatchFunction<ResourceDetectionConfig> {
  private static final long LOG_INTERVAL_MILLIS = 10_000;

  /** Each thread's editor of what to set; null until detection has found something. */
  private volatile ThreadLocal<ResourceVisitor> visitors;

  private final RateLimitedLog malformedLog;

  ResourceMerge(Logger logger) {
    this.malformedLog = new RateLimitedLog(logger, Level.WARNING, LOG_INTERVAL_MILLIS);
  }

  /**
   * From now on, sets {@code attributes} (in their order) on every resource, and {@code schemaUrl}
   * (when not empty) on every resource block without one.
   */
  void set(Map<String, String> attributes, String schemaUrl, boolean override) {
    if (attributes.isEmpty() && schemaUrl.isEmpty()) {
      visitors = null;
      return;
    }
    byte[] schemaUrlBytes = schemaUrl.getBytes(StandardCharsets.UTF_8);
    String[] keys = attributes.keySet().toArray(new String[0]);
    AttributeValue[] values = new AttributeValue[keys.length];
    for (int i = 0; i < keys.length; i++) {
      values[i] = AttributeValue.string(attributes.get(keys[i]));
    }
    visitors =
        ThreadLocal.withInitial(
            () -> {
              AttributeEditor editor = new AttributeEditor();
              for (int i = 0; i < keys.length; i++) {
                if (override) {
                  editor.upsert(keys[i], values[i]);
                } else {
                  editor.insert(keys[i], values[i]);
                }
              }
              return new ResourceVisitor(editor, schemaUrlBytes);
            });
  }

  @Override
  public Admission apply(Batch batch, ResourceDetectionConfig config) {
    ThreadLocal<ResourceVisitor> current = visitors;
    if (current == null) {
      return Admission.ACCEPTED;
    }
    ResourceVisitor visitor = current.get();
    visitor.start();
    try {
      batch.visitHeaders(visitor);
    } finally {
      visitor.finish();
    }
    long malformed = visitor.newlyMalformed();
    if (malformed > 0) {
      malformedLog.log(
          "Left " + malformed + " resources without the detected attributes: they did not parse");
    }
    return Admission.ACCEPTED;
  }

  /** Edits each resource block the visit reaches, once per block. */
  private static final class ResourceVisitor implements ItemVisitor {
    private final AttributeEditor editor;
    private final byte[] schemaUrl;
    private final RawMessages resource = new RawMessages();
    private long malformedSeen;
    // The block last seen in this visit, so that its schema URL is looked at once.
    private OtlpIndex lastRequest;
    private int lastBlock = -1;

    ResourceVisitor(AttributeEditor editor, byte[] schemaUrl) {
      this.editor = editor;
      this.schemaUrl = schemaUrl;
    }

    void start() {
      lastRequest = null;
      lastBlock = -1;
    }

    @Override
    public void visit(BatchItem item) {
      editor.editResource(item);
      if (schemaUrl.length == 0
          || (item.request() == lastRequest && item.resource() == lastBlock)) {
        return;
      }
      lastRequest = item.request();
      lastBlock = item.resource();
      if (item.resourceView().schemaUrl().length() == 0) {
        RawMessages current = resource.resourceOf(item);
        item.replaceResource(current.array(), current.offset(), current.length(), schemaUrl);
        resource.clear();
      }
    }

    /** Lets go of the batch. */
    void finish() {
      lastRequest = null;
    }

    long newlyMalformed() {
      long total = editor.malformedCount();
      long added = total - malformedSeen;
      malformedSeen = total;
      return added;
    }
  }
}
