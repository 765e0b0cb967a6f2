package dev.sluice.exporter.prometheusremotewrite;

import dev.sluice.prometheus.TranslationStrategy;
import java.util.Map;

/**
 * How metrics become series: the parts of the configuration the translation reads.
 *
 * @param namespace prefix of every metric name, empty for none
 * @param strategy how names and label names are escaped and suffixed
 * @param externalLabels labels added to every series that does not have them, names translated
 * @param targetInfo whether each resource with attributes beyond the service ones makes a {@code
 *     target_info} series
 * @param scopeInfo whether series carry {@code otel_scope_name}, {@code otel_scope_version} and
 *     {@code otel_scope_<attribute>} labels
 * @param resourceAttributes which resource attributes become labels of every series
 * @param sendMetadata remote write 1.0: send each metric's type, help and unit as well
 */
record TranslationSettings(
    String namespace,
    TranslationStrategy strategy,
    Map<String, String> externalLabels,
    boolean targetInfo,
    boolean scopeInfo,
    ResourceAttributes resourceAttributes,
    boolean sendMetadata) {

  /** Settings that send no 1.0 metadata. */
  TranslationSettings(
      String namespace,
      TranslationStrategy strategy,
      Map<String, String> externalLabels,
      boolean targetInfo,
      boolean scopeInfo,
      ResourceAttributes resourceAttributes) {
    this(namespace, strategy, externalLabels, targetInfo, scopeInfo, resourceAttributes, false);
  }
}
