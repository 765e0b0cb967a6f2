package dev.sluice.config;

import dev.sluice.component.ComponentFactory;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentKind;
import dev.sluice.component.ConnectorFactory;
import dev.sluice.component.ExporterFactory;
import dev.sluice.component.ExtensionFactory;
import dev.sluice.component.ProcessorFactory;
import dev.sluice.component.ReceiverFactory;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * The component factories available to a configuration, looked up by kind and by type or alias.
 *
 * <p>Factories are checked when the registry is made: a factory whose kind does not match its
 * interface, whose config type is not a record, whose default config is missing, or whose type or
 * an alias clashes with another factory of the same kind is a bug in the build, reported with an
 * {@link IllegalStateException}.
 */
public final class ComponentRegistry {
  private final Map<ComponentKind, Map<String, ComponentFactory<?>>> byName =
      new EnumMap<>(ComponentKind.class);
  private final Map<ComponentKind, List<ComponentFactory<?>>> byKind =
      new EnumMap<>(ComponentKind.class);

  private ComponentRegistry(Iterable<? extends ComponentFactory<?>> factories) {
    for (ComponentKind kind : ComponentKind.values()) {
      byName.put(kind, new LinkedHashMap<>());
      byKind.put(kind, new ArrayList<>());
    }
    for (ComponentFactory<?> factory : factories) {
      check(factory);
      byKind.get(factory.kind()).add(factory);
      Map<String, ComponentFactory<?>> names = byName.get(factory.kind());
      List<String> all = new ArrayList<>();
      all.add(factory.type());
      all.addAll(factory.aliases());
      for (String name : all) {
        ComponentFactory<?> other = names.putIfAbsent(name, factory);
        if (other != null && other != factory) {
          throw new IllegalStateException(
              factory.getClass().getName()
                  + " and "
                  + other.getClass().getName()
                  + " both provide "
                  + factory.kind().label()
                  + " type \""
                  + name
                  + "\"");
        }
      }
    }
    byKind.replaceAll((kind, list) -> List.copyOf(list));
  }

  /** The factories that {@link ServiceLoader} finds for {@link ComponentFactory}. */
  @SuppressWarnings("rawtypes")
  public static ComponentRegistry installed() {
    List<ComponentFactory<?>> factories = new ArrayList<>();
    for (ComponentFactory factory : ServiceLoader.load(ComponentFactory.class)) {
      factories.add(factory);
    }
    return new ComponentRegistry(factories);
  }

  /** Exactly {@code factories}. */
  public static ComponentRegistry of(Collection<? extends ComponentFactory<?>> factories) {
    return new ComponentRegistry(factories);
  }

  /** The factory of {@code kind} whose type or alias is {@code type}. */
  public Optional<ComponentFactory<?>> find(ComponentKind kind, String type) {
    return Optional.ofNullable(byName.get(kind).get(type));
  }

  /** The factories of {@code kind}, in the order they were found. */
  public List<ComponentFactory<?>> factories(ComponentKind kind) {
    return byKind.get(kind);
  }

  private static void check(ComponentFactory<?> factory) {
    String name = factory.getClass().getName();
    ComponentKind kind = factory.kind();
    Class<?> expected =
        switch (kind) {
          case RECEIVER -> ReceiverFactory.class;
          case PROCESSOR -> ProcessorFactory.class;
          case EXPORTER -> ExporterFactory.class;
          case CONNECTOR -> ConnectorFactory.class;
          case EXTENSION -> ExtensionFactory.class;
        };
    if (!expected.isInstance(factory)) {
      throw new IllegalStateException(
          name + " is a " + kind.label() + " factory but not a " + expected.getSimpleName());
    }
    try {
      new ComponentId(factory.type(), "");
      for (String alias : factory.aliases()) {
        new ComponentId(alias, "");
      }
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(name + ": " + e.getMessage(), e);
    }
    Class<?> configType = factory.configType();
    if (configType == null || !configType.isRecord()) {
      throw new IllegalStateException(
          name + ": the config type must be a record, is " + configType);
    }
    Object defaults = factory.defaultConfig();
    if (!configType.isInstance(defaults)) {
      throw new IllegalStateException(
          name + ": the default config must be a " + configType.getName() + ", is " + defaults);
    }
    if (factory instanceof ReceiverFactory<?> r && r.signals().isEmpty()) {
      throw new IllegalStateException(name + ": a receiver supports at least one signal");
    }
    if (factory instanceof ExporterFactory<?> e && e.signals().isEmpty()) {
      throw new IllegalStateException(name + ": an exporter supports at least one signal");
    }
  }
}
