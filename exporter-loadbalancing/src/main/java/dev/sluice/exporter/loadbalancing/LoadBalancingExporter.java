package dev.sluice.exporter.loadbalancing;

import dev.sluice.component.Backoff;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.ExportResult;
import dev.sluice.component.Exporter;
import dev.sluice.component.Host;
import dev.sluice.component.RetryConfig;
import dev.sluice.component.Scheduler;
import dev.sluice.component.telemetry.MetricRegistry;
import dev.sluice.component.telemetry.RateLimitedLog;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Routes each batch over the ring and sends every part to its backend, synchronously, on the
 * calling sending thread. There is no queue per backend: the one queue is the service's, in front
 * of this exporter, so nothing waits for a backend that could go away. A part whose backend fails
 * retryably is retried there within {@code protocol.otlp.retry_on_failure}; when that fails too,
 * when the backend refuses it for its own reasons (anything but malformed data: see {@link
 * BackendFailures}), or when the backend was removed meanwhile, the part is split again over the
 * ring without that backend, each key going to the next backend on the ring for it, and counted as
 * re-routed. Only when no backend is left for some of it is the batch answered retryable, for the
 * service to send again later under the exporter's own {@code retry_on_failure}; only malformed
 * data is answered as rejected.
 */
final class LoadBalancingExporter implements Exporter {
  /** How often a re-route, or a batch with no backend left, is logged at most. */
  private static final long LOG_INTERVAL_MILLIS = 10_000;

  private final String configPath;
  private final String routingKey;
  private final BackendResolver resolver;
  private final Membership membership;
  private final Scheduler scheduler;
  private final RetryConfig backendRetry;
  private final long attemptNanos;
  private final long downNanos;
  private final Logger logger;
  private final RateLimitedLog rerouteLog;
  private final RateLimitedLog noBackendLog;
  private final RateLimitedLog refusalLog;
  private final Map<Signal, MetricRegistry.Counter> reroutedItems = new EnumMap<>(Signal.class);
  private final LoadBalancingExporterFactory.HostHolder host;

  /** Per signal: whether a routing key that does not apply to it was logged (once is enough). */
  private final boolean[] misfitLogged = new boolean[Signal.values().length];

  private final ThreadLocal<Router> routers = ThreadLocal.withInitial(Router::new);

  /**
   * @param downNanos how long a backend that failed past its retries is left out before it is tried
   *     again
   * @param host where the backends' exporters find the collector's extensions once started
   */
  LoadBalancingExporter(
      ComponentSettings settings,
      LoadBalancingExporterConfig config,
      BackendResolver resolver,
      Membership membership,
      long downNanos,
      LoadBalancingExporterFactory.HostHolder host) {
    this.host = host;
    this.configPath = "exporters." + settings.id();
    this.routingKey = config.routingKey();
    this.resolver = resolver;
    this.membership = membership;
    this.scheduler = settings.scheduler();
    this.backendRetry = config.protocol().otlp().retryOnFailure();
    this.attemptNanos = config.protocol().otlp().timeout().toNanos();
    this.downNanos = downNanos;
    this.logger = settings.logger();
    this.rerouteLog = new RateLimitedLog(logger, Level.WARNING, LOG_INTERVAL_MILLIS);
    this.noBackendLog = new RateLimitedLog(logger, Level.WARNING, LOG_INTERVAL_MILLIS);
    this.refusalLog = new RateLimitedLog(logger, Level.WARNING, LOG_INTERVAL_MILLIS);
    for (Signal signal : Signal.values()) {
      reroutedItems.put(
          signal,
          settings
              .metrics()
              .counter(
                  "sluice_loadbalancer_rerouted_" + signal.unitName(),
                  "Number of "
                      + signal.unitName()
                      + " sent to the next backend on the ring because theirs was removed or"
                      + " failed past its retries.",
                  "exporter",
                  settings.id().toString()));
    }
    if (!LoadBalancingExporterConfig.PLACEHOLDER_ENDPOINT.equals(
        config.protocol().otlp().endpoint())) {
      logger.warning(
          configPath + ".protocol.otlp.endpoint is ignored: each backend's address replaces it");
    }
  }

  @Override
  public void start(Host host) throws Exception {
    // The backends' exporters start with the collector's extensions (their authenticators).
    this.host.host = host;
    resolver.start(membership::update);
  }

  @Override
  public void start() throws Exception {
    start(Host.NONE);
  }

  long reroutedItems(Signal signal) {
    return reroutedItems.get(signal).get();
  }

  Membership membership() {
    return membership;
  }

  @Override
  public ExportResult export(Batch batch, long deadlineNanos) throws InterruptedException {
    if (batch.isEmpty()) {
      return ExportResult.SUCCESS;
    }
    return routers.get().route(batch, deadlineNanos);
  }

  /** One sending thread's reusable state: its placement and its parts per signal. */
  private final class Router {
    private final Placement placement = new Placement();
    private final Map<Signal, Batch[]> parts = new EnumMap<>(Signal.class);
    private boolean[] leftOut = new boolean[0];

    ExportResult route(Batch batch, long deadlineNanos) throws InterruptedException {
      Membership.Snapshot snapshot = membership.current();
      int size = snapshot.size();
      if (size == 0) {
        noBackendLog.log("No backend to send to; the batch will be sent again");
        return ExportResult.retryable("no backend is resolved", 0);
      }
      Signal signal = batch.signal();
      RoutingKey key = RoutingKey.forSignal(routingKey, signal);
      if (!misfitLogged[signal.ordinal()] && !RoutingKey.fits(routingKey, signal)) {
        misfitLogged[signal.ordinal()] = true;
        logger.warning(
            configPath
                + ".routing_key "
                + routingKey
                + " does not apply to "
                + signal.unitName()
                + "; they are placed by "
                + key.key);
      }
      Batch[] split = parts(signal, size);
      boolean[] out = leftOut(snapshot);
      long rejected = 0;
      String rejection = "";
      String lastFailure = "";
      Batch source = batch;
      Batch failed = null;
      try {
        while (true) {
          placement.prepare(key, signal, snapshot.ring(), out);
          source.partitionInto(split, placement);
          placement.release();
          long rerouted = placement.rerouted();
          if (source != batch) {
            source.clear();
          }
          if (rerouted > 0) {
            reroutedItems.get(signal).add(rerouted);
            rerouteLog.log(
                "Sent "
                    + rerouted
                    + " "
                    + signal.unitName()
                    + " to the next backend on the ring: theirs was removed or failing");
          }
          boolean anyFailed = false;
          for (int i = 0; i < size; i++) {
            Batch part = split[i];
            if (part.unitCount() == 0) {
              // Blocks without units (a metric without data points) need not travel.
              part.clear();
              continue;
            }
            Backend backend = snapshot.backends()[i];
            ExportResult result = send(backend, part, deadlineNanos);
            switch (result.outcome()) {
              case SUCCESS -> {
                rejected += result.rejectedUnits();
                if (result.rejectedUnits() > 0) {
                  rejection = result.message();
                }
                part.clear();
              }
              case PERMANENT -> {
                if (BackendFailures.isTheDatasFault(result)) {
                  // Malformed: another backend would refuse it too.
                  rejected += part.unitCount();
                  rejection = backend.name + ": " + result.message();
                  part.clear();
                } else {
                  // Refused for the backend's own reasons: like any failure of the backend.
                  lastFailure = backend.name + ": " + result.message();
                  refusalLog.log(
                      "Backend "
                          + lastFailure
                          + "; its "
                          + signal.unitName()
                          + " go to the next backend on the ring");
                  leaveOut(backend, i, out);
                  failed = addTo(failed, part, signal);
                  anyFailed = true;
                }
              }
              default -> {
                lastFailure = backend.name + ": " + result.message();
                leaveOut(backend, i, out);
                failed = addTo(failed, part, signal);
                anyFailed = true;
              }
            }
          }
          if (!anyFailed) {
            return rejected > 0
                ? ExportResult.partialSuccess(rejected, rejection)
                : ExportResult.SUCCESS;
          }
          boolean anyLeft = false;
          for (int i = 0; i < size; i++) {
            anyLeft |= !out[i];
          }
          Membership.Snapshot newer = membership.current();
          if (!anyLeft && newer != snapshot && newer.size() > 0) {
            // The list changed while this batch was out: what is left goes over the new ring.
            snapshot = newer;
            size = newer.size();
            split = parts(signal, size);
            out = leftOut(snapshot);
            anyLeft = true;
          }
          if (!anyLeft || deadlineNanos - scheduler.nanoTime() <= 0) {
            long units = failed.unitCount();
            String why =
                "no backend left for " + units + " " + signal.unitName() + " (" + lastFailure + ")";
            noBackendLog.log(why + "; the batch will be sent again");
            failed.clear();
            return ExportResult.retryable(why, 0);
          }
          source = failed;
          failed = null;
        }
      } finally {
        for (Batch part : split) {
          part.clear();
        }
        if (failed != null) {
          failed.clear();
        }
        if (source != batch) {
          source.clear();
        }
      }
    }

    /**
     * Which backends of {@code snapshot} are left out now (removed, or down after failing); none
     * when all are, so that a batch tries them all again rather than give up.
     */
    private boolean[] leftOut(Membership.Snapshot snapshot) {
      int size = snapshot.size();
      if (leftOut.length != size) {
        leftOut = new boolean[size];
      }
      boolean[] out = leftOut;
      long now = scheduler.nanoTime();
      int left = 0;
      for (int i = 0; i < size; i++) {
        out[i] = snapshot.backends()[i].leftOut(now);
        left += out[i] ? 0 : 1;
      }
      if (left == 0) {
        Arrays.fill(out, false);
      }
      return out;
    }

    /** A backend that failed is left out of this batch, and of others for a while. */
    private void leaveOut(Backend backend, int index, boolean[] out) {
      if (!backend.removed()) {
        backend.markDown(scheduler.nanoTime() + downNanos);
      }
      out[index] = true;
    }

    /** {@code part}'s slices, added to the batch to place again; made on first use. */
    private Batch addTo(Batch failed, Batch part, Signal signal) {
      Batch into = failed == null ? new Batch(signal) : failed;
      into.addAll(part);
      return into;
    }

    private Batch[] parts(Signal signal, int size) {
      Batch[] split = parts.get(signal);
      if (split == null || split.length != size) {
        split = new Batch[size];
        for (int i = 0; i < size; i++) {
          split[i] = new Batch(signal);
        }
        parts.put(signal, split);
      }
      return split;
    }
  }

  /**
   * Sends one part to its backend, retrying within {@code protocol.otlp.retry_on_failure} while the
   * backend is still listed and the batch's deadline leaves room for one more attempt elsewhere.
   */
  private ExportResult send(Backend backend, Batch part, long deadlineNanos)
      throws InterruptedException {
    long start = scheduler.nanoTime();
    Backoff backoff = null;
    while (true) {
      if (!backend.beginSend()) {
        return ExportResult.retryable(backend.name + " was removed", 0);
      }
      long now = scheduler.nanoTime();
      long attemptDeadline =
          deadlineNanos - now < attemptNanos ? deadlineNanos : now + attemptNanos;
      ExportResult result;
      try {
        result = backend.exporter.export(part, attemptDeadline);
      } catch (RuntimeException e) {
        logger.log(Level.WARNING, "Sending to backend " + backend.name + " failed", e);
        result = ExportResult.retryable("exporter failed: " + e, 0);
      } finally {
        // A removed backend's exporter is stopped once its last send has ended.
        backend.endSend();
      }
      if (result.outcome() != ExportResult.Outcome.RETRYABLE
          || backend.removed()
          || !backendRetry.enabled()) {
        return result;
      }
      now = scheduler.nanoTime();
      if (backoff == null) {
        backoff = new Backoff(backendRetry, start, () -> ThreadLocalRandom.current().nextDouble());
      }
      long delay = backoff.nextDelayNanos(now);
      if (delay == Backoff.STOP) {
        return result;
      }
      delay = Math.max(delay, result.retryAfterNanos());
      if (deadlineNanos - (now + delay + attemptNanos) < 0) {
        return result;
      }
      scheduler.sleep(delay);
    }
  }

  @Override
  public void shutdown(long deadlineNanos) throws InterruptedException {
    resolver.shutdown();
    membership.shutdown(deadlineNanos);
  }

  @Override
  public String toString() {
    return "loadbalancing exporter " + configPath;
  }
}
