package dev.sluice.component;

import dev.sluice.pdata.Signal;
import java.util.List;

/**
 * Makes connectors of one type. A connector joins pipelines: it is listed among the exporters of
 * some and the receivers of others. One is made per pair of signals it is used with (the signal of
 * the pipelines it ends, the signal of those it starts), when the type supports the pair.
 */
public interface ConnectorFactory<C extends ComponentConfig> extends ComponentFactory<C> {
  @Override
  default ComponentKind kind() {
    return ComponentKind.CONNECTOR;
  }

  /**
   * Whether this type takes {@code from} data at the end of a pipeline and hands {@code to} data to
   * other pipelines.
   */
  boolean supports(Signal from, Signal to);

  /**
   * Whether connectors of this type hand on the requests they are given, as slices of the same
   * requests (items may be left out, or spread over the pipelines fed), and never data they make:
   * then a request logged in the write-ahead log where it was received stays that request behind
   * the connector, and durable pipelines may be fed through it. Connectors that make new data (from
   * spans, metrics; aggregated, counted) keep the default, false: what they make is not logged, so
   * they are refused where logged requests reach them or where what they make would reach an
   * exporter with {@code sending_queue.storage}, unless they {@link #saysWhatItMadeFrom}.
   */
  default boolean passesThrough() {
    return false;
  }

  /**
   * Whether connectors of this type, which make new data, hand every request they build on with
   * what it was made from: the batch it was made from ({@link
   * ConnectorOutput#consume(dev.sluice.pdata.codec.OtlpIndex, dev.sluice.pdata.Batch)}), as count
   * does, or the {@link ConnectorOutput.Sources} gathered from every batch folded into it, as
   * spanmetrics does. Then logged requests may reach them: a logged request stays owed in the
   * write-ahead log to the durable exporters behind the connector until what was made from it is
   * delivered (or dropped for good), and after a restart the connector makes data from the replayed
   * request again. Other types that make data keep the default, false, and are refused where logged
   * requests reach them.
   */
  default boolean saysWhatItMadeFrom() {
    return false;
  }

  /**
   * For a type that {@link #passesThrough}: why a connector configured so still may not take
   * requests logged in the write-ahead log (a replayed request comes back without something it
   * reads, such as the metadata it was sent with); null when it may. Such a connector is refused,
   * with this reason, where logged requests reach it.
   */
  default String notForLoggedRequests(C config) {
    return null;
  }

  /**
   * Makes the connector that ends the pipelines of {@code from} listing it and hands {@code to}
   * data to those of {@code to} listing it, through {@code output}.
   */
  Connector create(
      ComponentSettings settings, C config, Signal from, Signal to, ConnectorOutput output);

  /**
   * Reports what is wrong with {@code config} once the pipelines are known: for a type whose keys
   * name pipelines, or mean something for some signals only. Called when the file is read, once per
   * pair of signals the connector is used with, after {@link ComponentConfig#validate} found
   * nothing; problems go under the connector's keys, as {@code validate} reports them, and are
   * placed at those keys in the file.
   *
   * @param fed the pipelines of {@code to} that list the connector among their receivers, in the
   *     order of the configuration (what {@link ConnectorOutput#pipelines()} will be)
   */
  default void validatePipelines(
      C config, Signal from, Signal to, List<String> fed, ConfigProblems problems) {}
}
