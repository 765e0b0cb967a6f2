package dev.sluice.component;

/**
 * The configuration of an extension that can hold durable pipelines' write-ahead log ({@code
 * file_storage}): what {@code sending_queue.storage} may name.
 */
public interface DurableStorageConfig extends ComponentConfig {
  /** The log's directory, as configured. */
  String directory();
}
