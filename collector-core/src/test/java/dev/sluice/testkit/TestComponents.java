package dev.sluice.testkit;

import dev.sluice.component.Admission;
import dev.sluice.component.BatchConsumer;
import dev.sluice.component.CollectorStatus;
import dev.sluice.component.ComponentConfig;
import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Connector;
import dev.sluice.component.ConnectorFactory;
import dev.sluice.component.ConnectorOutput;
import dev.sluice.component.ExportResult;
import dev.sluice.component.Exporter;
import dev.sluice.component.ExporterConfig;
import dev.sluice.component.ExporterFactory;
import dev.sluice.component.Extension;
import dev.sluice.component.ExtensionFactory;
import dev.sluice.component.Processor;
import dev.sluice.component.ProcessorFactory;
import dev.sluice.component.Receiver;
import dev.sluice.component.ReceiverFactory;
import dev.sluice.component.RequestConsumer;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Factories of components for tests of the service's pipeline graph. Every part they make writes
 * what happens to it in one {@link Journal} ({@code start exporter x}, {@code stop processor p},
 * {@code consume processor p}), so a test reads the order of starts, stops and stages from it.
 */
public final class TestComponents {
  private TestComponents() {}

  /** What the parts did, in order. Thread-safe. */
  public static final class Journal {
    private final List<String> events = new ArrayList<>();

    synchronized void add(String what, ComponentSettings settings) {
      events.add(what + " " + settings.kind().label() + " " + settings.id());
    }

    public synchronized List<String> events() {
      return List.copyOf(events);
    }

    /** The events that start with {@code what}: {@code start}, {@code stop}, {@code consume}. */
    public synchronized List<String> events(String what) {
      return events.stream().filter(event -> event.startsWith(what + " ")).toList();
    }
  }

  /** The configuration of the components here that have no keys. */
  public record NoConfig() implements ComponentConfig {}

  /**
   * A receiver that keeps the consumers the graph gave it; a test hands requests to them as a
   * network receiver would.
   */
  public static final class TestReceiver implements Receiver {
    private final ComponentSettings settings;
    private final Journal journal;
    private final Map<Signal, RequestConsumer> consumers;

    TestReceiver(
        ComponentSettings settings, Journal journal, Map<Signal, RequestConsumer> consumers) {
      this.settings = settings;
      this.journal = journal;
      this.consumers = Map.copyOf(consumers);
    }

    /** Where this receiver's requests of each signal go; absent for signals no pipeline takes. */
    public Map<Signal, RequestConsumer> consumers() {
      return consumers;
    }

    @Override
    public void start() {
      journal.add("start", settings);
    }

    @Override
    public void shutdown(long deadlineNanos) {
      journal.add("stop", settings);
    }
  }

  /** Receivers of every signal. */
  public static ReceiverFactory<NoConfig> receivers(Journal journal) {
    return new ReceiverFactory<>() {
      @Override
      public String type() {
        return "test";
      }

      @Override
      public Class<NoConfig> configType() {
        return NoConfig.class;
      }

      @Override
      public NoConfig defaultConfig() {
        return new NoConfig();
      }

      @Override
      public Set<Signal> signals() {
        return EnumSet.allOf(Signal.class);
      }

      @Override
      public Receiver create(
          ComponentSettings settings, NoConfig config, Map<Signal, RequestConsumer> consumers) {
        return new TestReceiver(settings, journal, consumers);
      }
    };
  }

  /**
   * A processor's configuration.
   *
   * @param holds whether it keeps every batch until it stops, then hands them on, as a batcher
   *     flushes (otherwise it hands each batch on at once)
   */
  public record ProcessorConfig(boolean holds) implements ComponentConfig {}

  /** Makes processors; counts the instances made by id. */
  public static final class TestProcessors implements ProcessorFactory<ProcessorConfig> {
    private final Journal journal;
    private final Map<ComponentId, Integer> made = new ConcurrentHashMap<>();

    TestProcessors(Journal journal) {
      this.journal = journal;
    }

    /** Instances made of processor {@code id}. */
    public int made(String id) {
      return made.getOrDefault(ComponentId.parse(id), 0);
    }

    @Override
    public String type() {
      return "test";
    }

    @Override
    public Class<ProcessorConfig> configType() {
      return ProcessorConfig.class;
    }

    @Override
    public ProcessorConfig defaultConfig() {
      return new ProcessorConfig(false);
    }

    @Override
    public Processor create(
        ComponentSettings settings, ProcessorConfig config, Signal signal, BatchConsumer next) {
      made.merge(settings.id(), 1, Integer::sum);
      return new TestProcessor(settings, journal, config.holds(), next);
    }
  }

  public static TestProcessors processors(Journal journal) {
    return new TestProcessors(journal);
  }

  private static final class TestProcessor implements Processor {
    private final ComponentSettings settings;
    private final Journal journal;
    private final boolean holds;
    private final BatchConsumer next;
    private final List<Batch> held = new ArrayList<>();
    private boolean stopped;

    TestProcessor(ComponentSettings settings, Journal journal, boolean holds, BatchConsumer next) {
      this.settings = settings;
      this.journal = journal;
      this.holds = holds;
      this.next = next;
    }

    @Override
    public synchronized Admission consume(Batch batch) {
      if (stopped) {
        return Admission.CLOSED;
      }
      journal.add("consume", settings);
      if (holds) {
        held.add(batch);
        return Admission.ACCEPTED;
      }
      return next.consume(batch);
    }

    @Override
    public void start() {
      journal.add("start", settings);
    }

    /** Hands on what it holds, then takes nothing more; what the next stage refuses is lost. */
    @Override
    public synchronized void shutdown(long deadlineNanos) {
      journal.add("stop", settings);
      for (Batch batch : held) {
        if (next.consume(batch) != Admission.ACCEPTED) {
          batch.clear();
        }
      }
      held.clear();
      stopped = true;
    }
  }

  /** The test connectors' common part: no configuration, data of one signal to the same signal. */
  abstract static class SameSignalConnectors implements ConnectorFactory<NoConfig> {
    @Override
    public Class<NoConfig> configType() {
      return NoConfig.class;
    }

    @Override
    public NoConfig defaultConfig() {
      return new NoConfig();
    }

    @Override
    public boolean supports(Signal from, Signal to) {
      return from == to;
    }
  }

  /**
   * Makes connectors that hand each batch on as it is (pipelines of one signal), and keeps the
   * output each was given, by id. Of type {@code link}, which says it passes requests on; or of
   * type {@code make} ({@link #makingConnectors}), which says it makes new data, as count does,
   * though it hands batches on all the same.
   */
  public static final class TestConnectors extends SameSignalConnectors {
    private final Journal journal;
    private final boolean passesThrough;
    private final Map<ComponentId, ConnectorOutput> outputs = new ConcurrentHashMap<>();

    TestConnectors(Journal journal, boolean passesThrough) {
      this.journal = journal;
      this.passesThrough = passesThrough;
    }

    @Override
    public String type() {
      return passesThrough ? "link" : "make";
    }

    @Override
    public boolean passesThrough() {
      return passesThrough;
    }

    @Override
    public Connector create(
        ComponentSettings settings,
        NoConfig config,
        Signal from,
        Signal to,
        ConnectorOutput output) {
      outputs.put(settings.id(), output);
      return new Connector() {
        @Override
        public Admission consume(Batch batch) {
          journal.add("consume", settings);
          return output.consume(batch);
        }

        @Override
        public void start() {
          journal.add("start", settings);
        }

        @Override
        public void shutdown(long deadlineNanos) {
          journal.add("stop", settings);
        }
      };
    }

    /** The output the connector {@code id} was made with. */
    public ConnectorOutput output(String id) {
      return outputs.get(ComponentId.parse(id));
    }
  }

  public static TestConnectors connectors(Journal journal) {
    return new TestConnectors(journal, true);
  }

  /** Connectors that say they make new data ({@code passesThrough()} false). */
  public static TestConnectors makingConnectors(Journal journal) {
    return new TestConnectors(journal, false);
  }

  /**
   * Connectors of type {@code build} that make data from each batch as count does, and say so
   * ({@link ConnectorFactory#saysWhatItMadeFrom()}): for each request a batch holds they build a
   * request of their own with the same bytes and hand it on with the batch it was made from.
   */
  public static ConnectorFactory<NoConfig> buildingConnectors(Journal journal) {
    return new BuildingConnectors(journal);
  }

  /**
   * Makes connectors of type {@code fold} that fold the batches they take into a state, as
   * spanmetrics does, and hand it on only when told ({@link FoldingConnectors#flush}): a request
   * with the bytes of the last request taken, handed on with the {@link ConnectorOutput.Sources} of
   * every batch taken since the last flush that was taken. The batches' sources are kept apart
   * until a flush, which adds them to its own ({@link ConnectorOutput.Sources#addAll}), as a
   * connector that keeps sources by age does.
   */
  public static FoldingConnectors foldingConnectors(Journal journal) {
    return new FoldingConnectors(journal);
  }

  public static final class FoldingConnectors extends SameSignalConnectors {
    private final Journal journal;
    private final Map<ComponentId, Folding> made = new ConcurrentHashMap<>();

    FoldingConnectors(Journal journal) {
      this.journal = journal;
    }

    @Override
    public String type() {
      return "fold";
    }

    @Override
    public boolean saysWhatItMadeFrom() {
      return true;
    }

    @Override
    public Connector create(
        ComponentSettings settings,
        NoConfig config,
        Signal from,
        Signal to,
        ConnectorOutput output) {
      Folding folding = new Folding(journal, settings, output);
      made.put(settings.id(), folding);
      return folding;
    }

    /** Hands connector {@code id}'s state on; its answer (ACCEPTED when there is none). */
    public Admission flush(String id) {
      return made.get(ComponentId.parse(id)).flush();
    }
  }

  private static final class Folding implements Connector {
    private final Journal journal;
    private final ComponentSettings settings;
    private final ConnectorOutput output;
    private final ConnectorOutput.Sources taken;
    private final ConnectorOutput.Sources sources;
    private byte[] state;

    Folding(Journal journal, ComponentSettings settings, ConnectorOutput output) {
      this.journal = journal;
      this.settings = settings;
      this.output = output;
      this.taken = output.sources();
      this.sources = output.sources();
    }

    @Override
    public synchronized Admission consume(Batch batch) {
      journal.add("consume", settings);
      state = BuildingConnectors.bytesOf(batch.requestOf(batch.sliceCount() - 1));
      taken.add(batch);
      batch.clear();
      return Admission.ACCEPTED;
    }

    synchronized Admission flush() {
      if (state == null) {
        return Admission.ACCEPTED;
      }
      sources.addAll(taken);
      taken.release();
      Admission answer =
          output.consume(BuildingConnectors.indexed(output.signal(), state), sources);
      if (answer == Admission.ACCEPTED) {
        sources.release();
        state = null;
      }
      return answer;
    }
  }

  private static final class BuildingConnectors extends SameSignalConnectors {
    private final Journal journal;

    BuildingConnectors(Journal journal) {
      this.journal = journal;
    }

    @Override
    public String type() {
      return "build";
    }

    @Override
    public boolean saysWhatItMadeFrom() {
      return true;
    }

    @Override
    public Connector create(
        ComponentSettings settings,
        NoConfig config,
        Signal from,
        Signal to,
        ConnectorOutput output) {
      return new Connector() {
        @Override
        public Admission consume(Batch batch) {
          journal.add("consume", settings);
          OtlpIndex previous = null;
          for (int i = 0; i < batch.sliceCount(); i++) {
            OtlpIndex request = batch.requestOf(i);
            if (request == previous) {
              continue;
            }
            previous = request;
            Admission answer = output.consume(copy(request), batch);
            if (answer != Admission.ACCEPTED) {
              return answer;
            }
          }
          batch.clear();
          return Admission.ACCEPTED;
        }
      };
    }

    /** A request of its own with the bytes of {@code request}. */
    private static OtlpIndex copy(OtlpIndex request) {
      return indexed(request.signal(), bytesOf(request));
    }

    static byte[] bytesOf(OtlpIndex request) {
      byte[] bytes = new byte[request.sourceLength()];
      request.readSource(
          (source, offset, length) -> {
            System.arraycopy(source, offset, bytes, 0, length);
            return length;
          });
      return bytes;
    }

    static OtlpIndex indexed(Signal signal, byte[] bytes) {
      try {
        return new OtlpIndexer().index(signal, bytes);
      } catch (MalformedOtlpException e) {
        throw new AssertionError(e);
      }
    }
  }

  /**
   * Makes exporters that send to a {@link RecordingExporter} per id, made on first use, and counts
   * the exporters made by id. Any {@link ExporterConfig} configures them.
   */
  public static final class TestExporters implements ExporterFactory<ExporterConfig> {
    private final Journal journal;
    private final Map<ComponentId, RecordingExporter> recorders = new ConcurrentHashMap<>();
    private final Map<ComponentId, Integer> made = new ConcurrentHashMap<>();

    TestExporters(Journal journal) {
      this.journal = journal;
    }

    /** What exporter {@code id} is asked to send, and how it answers. */
    public RecordingExporter recorder(String id) {
      return recorders.computeIfAbsent(ComponentId.parse(id), key -> new RecordingExporter());
    }

    /** Instances made of exporter {@code id}. */
    public int made(String id) {
      return made.getOrDefault(ComponentId.parse(id), 0);
    }

    @Override
    public String type() {
      return "test";
    }

    @Override
    public Class<ExporterConfig> configType() {
      return ExporterConfig.class;
    }

    @Override
    public ExporterConfig defaultConfig() {
      return new ExporterConfig() {};
    }

    @Override
    public Set<Signal> signals() {
      return EnumSet.allOf(Signal.class);
    }

    @Override
    public Exporter create(ComponentSettings settings, ExporterConfig config) {
      made.merge(settings.id(), 1, Integer::sum);
      RecordingExporter recorder = recorder(settings.id().toString());
      return new Exporter() {
        @Override
        public ExportResult export(Batch batch, long deadlineNanos) throws InterruptedException {
          return recorder.export(batch, deadlineNanos);
        }

        @Override
        public void start() {
          journal.add("start", settings);
        }

        @Override
        public void shutdown(long deadlineNanos) {
          journal.add("stop", settings);
        }
      };
    }
  }

  public static TestExporters exporters(Journal journal) {
    return new TestExporters(journal);
  }

  /**
   * A {@code file_storage}-like extension's configuration.
   *
   * @param directory where the write-ahead log goes
   */
  public record StorageConfig(Path directory) implements ComponentConfig {}

  /** Storage extensions: the write-ahead log in their directory, forced to disk at each commit. */
  public static ExtensionFactory<StorageConfig> storages(Journal journal) {
    return new ExtensionFactory<>() {
      @Override
      public String type() {
        return "file_storage";
      }

      @Override
      public Class<StorageConfig> configType() {
        return StorageConfig.class;
      }

      @Override
      public StorageConfig defaultConfig() {
        return new StorageConfig(Path.of("."));
      }

      @Override
      public Extension create(
          ComponentSettings settings, StorageConfig config, CollectorStatus status) {
        return new TestStorage(config.directory()) {
          @Override
          public void start() {
            journal.add("start", settings);
          }

          @Override
          public void shutdown(long deadlineNanos) {
            journal.add("stop", settings);
          }
        };
      }
    };
  }
}
