package dev.sluice.examples;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchFunction;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.edit.SpanEditor;
import dev.sluice.pdata.view.AnyValueView;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.SpanView;
import dev.sluice.pdata.view.ValueType;
import java.nio.charset.StandardCharsets;

/**
 * Renames the spans called {@code from} to {@code to}, and gives every span whose {@code
 * http.response.status_code} is {@code errorFromStatusCode} or more the status ERROR with {@code
 * errorMessage}. Spans it does not change keep their bytes.
 */
final class SpanRenameProcessor implements BatchFunction<SpanRenameConfig> {
  private static final byte[] STATUS_CODE_KEY =
      "http.response.status_code".getBytes(StandardCharsets.UTF_8);

  private final byte[] from;

  SpanRenameProcessor(SpanRenameConfig config) {
    this.from = config.from().getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public Admission apply(Batch batch, SpanRenameConfig config) {
    // Several receiver threads may call apply at once: the cursor is this call's own.
    AttributeCursor attributes = new AttributeCursor();
    batch.visit(
        item -> {
          SpanView span = item.span();
          boolean rename = from.length > 0 && span.nameEquals(from);
          boolean error = serverError(span, attributes, config.errorFromStatusCode());
          if (!rename && !error) {
            return; // untouched: the span keeps its bytes
          }
          SpanEditor edit = item.editSpan();
          if (rename) {
            edit.setName(config.to());
          }
          if (error) {
            edit.setStatus(SpanView.STATUS_ERROR, config.errorMessage());
          }
        });
    return Admission.ACCEPTED;
  }

  private static boolean serverError(SpanView span, AttributeCursor attributes, long threshold) {
    if (!span.attributes(attributes).find(STATUS_CODE_KEY)) {
      return false;
    }
    AnyValueView value = attributes.value();
    return value.type() == ValueType.INT && value.intValue() >= threshold;
  }
}
