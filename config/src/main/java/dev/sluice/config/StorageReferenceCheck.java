package dev.sluice.config;

import dev.sluice.component.ComponentConfig;
import dev.sluice.component.ComponentId;
import dev.sluice.component.DurableStorageConfig;
import dev.sluice.component.ExporterConfig;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Checks {@code sending_queue.storage} of the exporters pipelines use: it names a {@code
 * file_storage} extension that is configured and listed in {@code service.extensions}, every such
 * exporter names the same one (Sluice keeps one write-ahead log), and no two storages share a
 * directory. Problems of the file, with their positions, rather than failures at start.
 */
final class StorageReferenceCheck {
  private static final String PATH = "sending_queue.storage";

  private final Map<ComponentId, ComponentConfig> extensions;
  private final Set<ComponentId> listed;
  private final UnaryOperator<ComponentId> canonical;
  private final Diagnostics d;
  private ComponentId first;
  private String firstPath;

  StorageReferenceCheck(
      Map<ComponentId, ComponentConfig> extensions,
      Set<ComponentId> listed,
      UnaryOperator<ComponentId> canonical,
      Diagnostics d) {
    this.extensions = extensions;
    this.listed = listed;
    this.canonical = canonical;
    this.d = d;
  }

  /** Two storages in one directory would share (and break) one log. */
  void checkDirectories(Map<ComponentId, Location> locations) {
    Map<Path, ComponentId> byDirectory = new HashMap<>();
    extensions.forEach(
        (id, config) -> {
          if (config instanceof DurableStorageConfig storage
              && storage.directory() != null
              && !storage.directory().isBlank()) {
            Path directory = Path.of(storage.directory()).toAbsolutePath().normalize();
            ComponentId other = byDirectory.putIfAbsent(directory, id);
            if (other != null) {
              d.error(
                  locations.get(id),
                  "extensions." + id + ".directory",
                  "is the directory of extension \""
                      + other
                      + "\" too: each storage needs its own");
            }
          }
        });
  }

  void check(ComponentConfig config, ConfigNode node, Location at, String path) {
    if (!(config instanceof ExporterConfig exporter)) {
      return;
    }
    String storage = exporter.sendingQueue().storage();
    if (storage == null) {
      return;
    }
    String referencePath = Diagnostics.join(path, PATH);
    Location where = ConfigBinder.locate(node, at, PATH);
    ComponentId id;
    try {
      id = canonical.apply(ComponentId.parse(storage));
    } catch (IllegalArgumentException e) {
      d.error(where, referencePath, e.getMessage());
      return;
    }
    if (!extensions.containsKey(id)) {
      d.error(
          where, referencePath, "references extension \"" + storage + "\" which is not configured");
      return;
    }
    if (!listed.contains(id)) {
      d.error(
          where,
          referencePath,
          "references extension \""
              + storage
              + "\" which is not listed in service.extensions, so it would not be started");
      return;
    }
    ComponentConfig extension = extensions.get(id);
    if (extension != null && !(extension instanceof DurableStorageConfig)) {
      d.error(
          where, referencePath, "extension \"" + storage + "\" is not a file_storage extension");
      return;
    }
    if (first == null) {
      first = id;
      firstPath = referencePath;
    } else if (!first.equals(id)) {
      d.error(
          where,
          referencePath,
          "names \""
              + storage
              + "\" but "
              + firstPath
              + " names \""
              + first
              + "\": Sluice keeps one write-ahead log, so durable exporters share one storage");
    }
  }
}
