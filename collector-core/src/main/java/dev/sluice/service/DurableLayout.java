package dev.sluice.service;

import dev.sluice.wal.WalOptions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Which pipelines are durable and which of their exporters keep progress of their own in the log. A
 * record's routing has a bit per durable pipeline, in {@link #pipelines()} order; each durable
 * exporter (one with {@code sending_queue.storage}) is a consumer of the log named by its id, so
 * its progress survives restarts and reorderings of the configuration.
 *
 * @param exportersOfPipeline the durable pipelines by name, in routing-bit order, each with the ids
 *     of the exporters with storage it reaches: its own, then those of the pipelines it passes
 *     requests on to through connectors
 */
public record DurableLayout(Map<String, List<String>> exportersOfPipeline) {
  public DurableLayout {
    Map<String, List<String>> copy = new LinkedHashMap<>();
    exportersOfPipeline.forEach((pipeline, ids) -> copy.put(pipeline, List.copyOf(ids)));
    exportersOfPipeline = java.util.Collections.unmodifiableMap(copy);
    if (exportersOfPipeline.size() > WalOptions.MAX_CONSUMERS) {
      throw new IllegalArgumentException(
          "at most " + WalOptions.MAX_CONSUMERS + " durable pipelines, not " + copy.size());
    }
    if (consumers(exportersOfPipeline).size() > WalOptions.MAX_CONSUMERS) {
      throw new IllegalArgumentException(
          "at most " + WalOptions.MAX_CONSUMERS + " exporters with sending_queue.storage");
    }
  }

  /** The durable pipelines, in routing-bit order. */
  public List<String> pipelines() {
    return List.copyOf(exportersOfPipeline.keySet());
  }

  /** The log's consumers: every durable exporter's id, sorted. */
  public List<String> consumers() {
    return consumers(exportersOfPipeline);
  }

  /** The consumer index of exporter {@code id}, or -1 when it has no storage. */
  public int consumerOf(String id) {
    return consumers().indexOf(id);
  }

  /** The consumers (a bit per index) of the pipelines of {@code routing}. */
  public int consumersOfRouting(int routing) {
    List<String> consumers = consumers();
    int mask = 0;
    int bit = 0;
    for (List<String> ids : exportersOfPipeline.values()) {
      if ((routing & (1 << bit)) != 0) {
        for (String id : ids) {
          mask |= 1 << consumers.indexOf(id);
        }
      }
      bit++;
    }
    return mask;
  }

  /** Each routing bit's consumers, for the log's hot path. */
  int[] consumersOfBits() {
    int[] table = new int[exportersOfPipeline.size()];
    for (int bit = 0; bit < table.length; bit++) {
      table[bit] = consumersOfRouting(1 << bit);
    }
    return table;
  }

  private static List<String> consumers(Map<String, List<String>> exportersOfPipeline) {
    TreeSet<String> ids = new TreeSet<>();
    exportersOfPipeline.values().forEach(ids::addAll);
    return new ArrayList<>(ids);
  }
}
