package dev.sluice.component;

import java.util.List;

/**
 * Makes components of one type. Factories are found with {@link java.util.ServiceLoader}; each kind
 * has its own interface ({@link ReceiverFactory}, {@link ProcessorFactory}, {@link
 * ExporterFactory}, {@link ExtensionFactory}).
 */
public interface ComponentFactory<C extends ComponentConfig> {
  ComponentKind kind();

  /** The type name used in configuration files, such as {@code otlp}. */
  String type();

  /** Other names accepted for the type, such as {@code otlp_grpc}. */
  default List<String> aliases() {
    return List.of();
  }

  /** The record type of the configuration. */
  Class<C> configType();

  /** The configuration used for keys the file leaves out. */
  C defaultConfig();
}
