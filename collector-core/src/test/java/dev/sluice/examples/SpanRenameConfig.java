package dev.sluice.examples;

import dev.sluice.component.ComponentConfig;
import dev.sluice.component.ConfigProblems;

/**
 * The {@code span_rename} example processor's configuration.
 *
 * @param from the span name to change (compared whole, byte for byte)
 * @param to the name such spans get
 * @param errorFromStatusCode a span whose {@code http.response.status_code} is at least this gets
 *     status ERROR
 * @param errorMessage the status message it gets with it
 */
public record SpanRenameConfig(
    String from, String to, long errorFromStatusCode, String errorMessage)
    implements ComponentConfig {
  public static final SpanRenameConfig DEFAULT = new SpanRenameConfig("", "", 500, "server error");

  @Override
  public void validate(ConfigProblems problems) {
    if (from.isEmpty() != to.isEmpty()) {
      problems.add(from.isEmpty() ? "from" : "to", "set both \"from\" and \"to\", or neither");
    }
    if (errorFromStatusCode < 100 || errorFromStatusCode > 599) {
      problems.add("error_from_status_code", "must be an HTTP status code, 100 to 599");
    }
  }
}
