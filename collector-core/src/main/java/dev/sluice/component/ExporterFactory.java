package dev.sluice.component;

import dev.sluice.pdata.Signal;
import java.util.Set;

/** Makes exporters of one type; one instance per configured id, shared by its pipelines. */
public interface ExporterFactory<C extends ExporterConfig> extends ComponentFactory<C> {
  @Override
  default ComponentKind kind() {
    return ComponentKind.EXPORTER;
  }

  /** The signals this type can export. */
  Set<Signal> signals();

  Exporter create(ComponentSettings settings, C config);
}
