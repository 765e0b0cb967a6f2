package dev.sluice.extension.filestorage;

import dev.sluice.component.CollectorStatus;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Extension;
import dev.sluice.component.ExtensionFactory;

/** The {@code file_storage} extension type. */
public final class FileStorageExtensionFactory implements ExtensionFactory<FileStorageConfig> {
  @Override
  public String type() {
    return "file_storage";
  }

  @Override
  public Class<FileStorageConfig> configType() {
    return FileStorageConfig.class;
  }

  @Override
  public FileStorageConfig defaultConfig() {
    return FileStorageConfig.DEFAULT;
  }

  @Override
  public Extension create(
      ComponentSettings settings, FileStorageConfig config, CollectorStatus status) {
    return new FileStorageExtension(config);
  }
}
