package dev.sluice.prometheus;

import dev.sluice.pdata.view.AnyValueView;
import dev.sluice.pdata.view.AttributeCursor;
import dev.sluice.pdata.view.ResourceView;
import dev.sluice.pdata.view.TextView;
import dev.sluice.pdata.view.ValueText;

/**
 * The series the OpenTelemetry Collector v0.161's Prometheus exporters derive from a metric's
 * resource and scope: the {@code job} and {@code instance} labels, the {@code target_info} series,
 * and the {@code otel_scope_*} labels.
 *
 * <p><b>job and instance.</b> {@code job} is {@code service.namespace/service.name}, or {@code
 * service.name} when there is no {@code service.namespace} attribute; {@code instance} is {@code
 * service.instance.id}. Both go on every series of the resource and on its {@code target_info}; in
 * {@code prometheusremotewrite} they replace a data point attribute that makes the same label.
 * Values are the attributes' text as Go's {@code AsString} writes it (ints in decimal, doubles in
 * Go's shortest form, bytes in base64).
 *
 * <p><b>target_info.</b> One gauge of value 1 per resource, named {@link #TARGET_INFO} (with the
 * exporter's namespace and {@code _} in front), labelled with {@code job}, {@code instance} and
 * every resource attribute but the {@link #identifying} ones, through {@link LabelNames}. The
 * {@code prometheusremotewrite} exporter writes it unless {@code target_info.enabled} is false,
 * only for a resource with at least one other attribute and a {@code job} or {@code instance}, at
 * the latest timestamp of the resource's points; the {@code prometheus} exporter writes one per
 * distinct non-empty {@code job} and {@code instance} pair, and puts the namespace through the
 * label rules first.
 *
 * <p><b>Scope labels.</b> Unless disabled ({@code without_scope_info} / {@code
 * disable_scope_info}), every series carries {@link #SCOPE_NAME} and {@link #SCOPE_VERSION}, and
 * every scope attribute but {@code name}, {@code version} and {@code schema_url} as a label named
 * {@code otel_scope_<key>} ({@link LabelNames#scopeAttribute}). The {@code prometheus} exporter
 * also writes {@link #SCOPE_SCHEMA_URL}, and writes the three even when empty; {@code
 * prometheusremotewrite} writes name and version only when not empty, and no schema URL. No {@code
 * otel_scope_info} series is written.
 *
 * <p><b>Where the OpenTelemetry specification says otherwise</b>: it forms {@code job} from {@code
 * service.name} alone when the namespace is <em>empty</em> (the Collector writes {@code /name} for
 * a namespace attribute of empty value), asks for an {@code instance} label of empty value when
 * {@code service.instance.id} is absent (the Collector leaves it out), and asks for an {@code
 * otel_scope_info} series per scope with attributes instead of scope attribute labels on every
 * series.
 */
public final class ResourceLabels {
  /** The resource's info series, {@code target_info}. */
  public static final String TARGET_INFO = "target_info";

  /** The instrumentation scope's name. */
  public static final String SCOPE_NAME = "otel_scope_name";

  /** The instrumentation scope's version. */
  public static final String SCOPE_VERSION = "otel_scope_version";

  /** The scope block's schema URL: the {@code prometheus} exporter's only. */
  public static final String SCOPE_SCHEMA_URL = "otel_scope_schema_url";

  /** What goes in front of a scope attribute's key to make its label. */
  public static final String SCOPE_ATTRIBUTE_PREFIX = "otel_scope_";

  /** {@code job}. */
  public static final String JOB = "job";

  /** {@code instance}. */
  public static final String INSTANCE = "instance";

  private static final String SERVICE_NAME = "service.name";
  private static final String SERVICE_NAMESPACE = "service.namespace";
  private static final String SERVICE_INSTANCE_ID = "service.instance.id";

  private ResourceLabels() {}

  /**
   * {@code job}: {@code service.namespace + "/" + service.name}, or {@code service.name} alone
   * without a {@code service.namespace} attribute; empty when {@code service.name} is absent or
   * empty, and then the series has no {@code job} (as {@code prometheusremotewrite} does; the
   * {@code prometheus} exporter would write {@code job="ns/"} for an empty name in namespace {@code
   * ns}). Allocates a cursor; see {@link #job(ResourceView, AttributeCursor)}.
   */
  public static String job(ResourceView resource) {
    return job(resource, new AttributeCursor());
  }

  /** {@link #job(ResourceView)} with the caller's cursor. */
  public static String job(ResourceView resource, AttributeCursor cursor) {
    resource.attributes(cursor);
    if (!cursor.find(SERVICE_NAME)) {
      return "";
    }
    String name = text(cursor.value());
    if (name.isEmpty()) {
      return "";
    }
    return cursor.find(SERVICE_NAMESPACE) ? text(cursor.value()) + "/" + name : name;
  }

  /**
   * {@code instance}: {@code service.instance.id}; empty when absent or empty, and then the series
   * has no {@code instance}. Allocates a cursor; see {@link #instance(ResourceView,
   * AttributeCursor)}.
   */
  public static String instance(ResourceView resource) {
    return instance(resource, new AttributeCursor());
  }

  /** {@link #instance(ResourceView)} with the caller's cursor. */
  public static String instance(ResourceView resource, AttributeCursor cursor) {
    resource.attributes(cursor);
    return cursor.find(SERVICE_INSTANCE_ID) ? text(cursor.value()) : "";
  }

  /**
   * Whether a resource attribute is left out of {@code target_info}'s labels: {@code service.name},
   * {@code service.namespace} and {@code service.instance.id}, which make {@code job} and {@code
   * instance}.
   */
  public static boolean identifying(TextView key) {
    return key.contentEquals(SERVICE_NAME)
        || key.contentEquals(SERVICE_NAMESPACE)
        || key.contentEquals(SERVICE_INSTANCE_ID);
  }

  /**
   * Whether a scope attribute is left out of a series' labels: {@code name}, {@code version} and
   * {@code schema_url}, which would stand for the scope's own fields.
   */
  public static boolean reservedScopeAttribute(TextView key) {
    return key.contentEquals("name")
        || key.contentEquals("version")
        || key.contentEquals("schema_url");
  }

  /** A value's text as Go's {@code AsString} writes it. */
  private static String text(AnyValueView value) {
    return ValueText.goString(value);
  }
}
