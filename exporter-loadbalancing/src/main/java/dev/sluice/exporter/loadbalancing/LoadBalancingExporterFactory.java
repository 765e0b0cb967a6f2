package dev.sluice.exporter.loadbalancing;

import dev.sluice.component.ComponentId;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Exporter;
import dev.sluice.component.ExporterFactory;
import dev.sluice.component.Host;
import dev.sluice.exporter.otlp.OtlpExporterConfig;
import dev.sluice.exporter.otlp.OtlpExporterFactory;
import dev.sluice.pdata.Signal;
import java.net.InetAddress;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/** The {@code loadbalancing} exporter type. */
public final class LoadBalancingExporterFactory
    implements ExporterFactory<LoadBalancingExporterConfig> {
  /**
   * How long a backend that failed past its retries is left out before it is tried again; its keys
   * go to the next backends on the ring meanwhile.
   */
  static final long DOWN_NANOS = TimeUnit.SECONDS.toNanos(5);

  @Override
  public String type() {
    return "loadbalancing";
  }

  @Override
  public Class<LoadBalancingExporterConfig> configType() {
    return LoadBalancingExporterConfig.class;
  }

  @Override
  public LoadBalancingExporterConfig defaultConfig() {
    return LoadBalancingExporterConfig.DEFAULT;
  }

  @Override
  public Set<Signal> signals() {
    return EnumSet.allOf(Signal.class);
  }

  @Override
  public Exporter create(ComponentSettings settings, LoadBalancingExporterConfig config) {
    return create(settings, config, InetAddress::getAllByName, DOWN_NANOS);
  }

  /** With the DNS lookup and the time a failed backend is left out given, for tests. */
  static LoadBalancingExporter create(
      ComponentSettings settings,
      LoadBalancingExporterConfig config,
      DnsBackendResolver.Lookup lookup,
      long downNanos) {
    String threadName = "sluice-loadbalancing-" + settings.id();
    LoadBalancingExporterConfig.Resolver r = config.resolver();
    BackendResolver resolver =
        r.static_() != null
            ? new StaticBackendResolver(r.static_().hostnames())
            : new DnsBackendResolver(
                r.dns(), lookup, settings.scheduler(), settings.logger(), threadName + "-dns");
    OtlpExporterConfig template = config.protocol().otlp();
    OtlpExporterFactory otlp = new OtlpExporterFactory();
    HostHolder host = new HostHolder();
    Membership membership =
        new Membership(
            endpoint -> {
              Exporter exporter =
                  otlp.create(
                      backendSettings(settings, endpoint),
                      LoadBalancingExporterConfig.withEndpoint(template, endpoint));
              exporter.start(host.host);
              return exporter;
            },
            // A removed backend's exporter outlives the attempts in flight to it.
            template.timeout().toNanos() + TimeUnit.SECONDS.toNanos(1),
            Membership.MAX_RETIRING,
            settings.scheduler(),
            settings.logger(),
            threadName + "-retire");
    return new LoadBalancingExporter(settings, config, resolver, membership, downNanos, host);
  }

  /** The backend's exporter is named for the load balancer and the backend: for its log lines. */
  private static ComponentSettings backendSettings(ComponentSettings settings, String endpoint) {
    ComponentId id = settings.id();
    String name = (id.name().isEmpty() ? "" : id.name() + "_") + endpoint;
    return new ComponentSettings(
        new ComponentId(id.type(), name),
        settings.kind(),
        settings.metrics(),
        settings.scheduler(),
        settings.pipelineMemoryBytes());
  }

  /** Where the backends' exporters find the host once the load balancer is started. */
  static final class HostHolder {
    volatile Host host = Host.NONE;
  }
}
