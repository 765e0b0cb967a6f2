// Command otelcol is the OpenTelemetry Collector at v0.148.0 with the contrib routing connector,
// the newest release of routingconnector that the Go module proxy serves as an approved release.
// conformance.sh runs it against Sluice's routing connector; its pipelines export with otlp to a
// second collector (the v0.161.0 build) that writes what each pipeline got to a file. Every
// collector module is pinned to one release (contrib v0.148.0, core v0.148.0 / v1.54.0) in
// go.mod; see ../README.md.
package main

import (
	"log"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/envprovider"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/confmap/provider/yamlprovider"
	"go.opentelemetry.io/collector/exporter/debugexporter"
	"go.opentelemetry.io/collector/exporter/otlpexporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"

	"github.com/open-telemetry/opentelemetry-collector-contrib/connector/routingconnector"
)

// version is the collector release that go.mod pins; shown by --version.
const version = "0.148.0"

func components() (otelcol.Factories, error) {
	var err error
	factories := otelcol.Factories{Telemetry: otelconftelemetry.NewFactory()}
	if factories.Receivers, err = otelcol.MakeFactoryMap(
		otlpreceiver.NewFactory(),
	); err != nil {
		return otelcol.Factories{}, err
	}
	if factories.Exporters, err = otelcol.MakeFactoryMap(
		otlpexporter.NewFactory(),
		debugexporter.NewFactory(),
	); err != nil {
		return otelcol.Factories{}, err
	}
	if factories.Connectors, err = otelcol.MakeFactoryMap(
		routingconnector.NewFactory(),
	); err != nil {
		return otelcol.Factories{}, err
	}
	return factories, nil
}

func main() {
	settings := otelcol.CollectorSettings{
		BuildInfo: component.BuildInfo{
			Command:     "otelcol",
			Description: "OpenTelemetry Collector with the routing connector: Sluice's conformance peer",
			Version:     version,
		},
		Factories: components,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				ProviderFactories: []confmap.ProviderFactory{
					envprovider.NewFactory(),
					fileprovider.NewFactory(),
					yamlprovider.NewFactory(),
				},
			},
		},
	}
	// The error is printed once, below, on one prefix that scripts can find (cobra would print
	// it a second time).
	log.SetFlags(0)
	command := otelcol.NewCommand(settings)
	command.SilenceErrors = true
	if err := command.Execute(); err != nil {
		log.Fatalf("otelcol: %v", err)
	}
}
