package dev.sluice.component;

/** Makes extensions of one type. */
public interface ExtensionFactory<C extends ComponentConfig> extends ComponentFactory<C> {
  @Override
  default ComponentKind kind() {
    return ComponentKind.EXTENSION;
  }

  Extension create(ComponentSettings settings, C config, CollectorStatus status);
}
