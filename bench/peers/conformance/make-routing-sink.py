#!/usr/bin/env python3
"""Writes routing-sink.yaml (to standard output): the sink of conformance.sh's routing cases.

    python3 make-routing-sink.py > routing-sink.yaml

One otlp receiver per pipeline of routing.yaml, on the port that pipeline's exporter sends to
(${env:CONFORMANCE_SINK_<PIPE>}), each written as it arrives to
${env:CONFORMANCE_OUT}/routing_<pipe>.json.
"""
PIPES = [("checkout", "traces"), ("db", "traces"), ("cart", "traces"), ("db2", "traces"),
         ("get", "traces"), ("default", "traces"),
         ("m_cpu", "metrics"), ("m_idle", "metrics"), ("m_inventory", "metrics"),
         ("m_default", "metrics"),
         ("l_cache", "logs"), ("l_warn", "logs"), ("l_data", "logs"), ("l_default", "logs")]

print("""# The sink of the routing cases (made by make-routing-sink.py): the Go collector's v0.161.0
# build, one otlp receiver per pipeline of routing.yaml (on the port that pipeline's exporter sends
# to), each written as it arrives to ${env:CONFORMANCE_OUT}/routing_<pipe>.json. Both collectors'
# routing output goes through it.
receivers:""")
for p, _ in PIPES:
    print("""  otlp/%s:
    protocols:
      grpc:
        endpoint: 127.0.0.1:${env:CONFORMANCE_SINK_%s}""" % (p, p.upper()))
print("\nexporters:")
for p, _ in PIPES:
    print("""  file/%s:
    path: ${env:CONFORMANCE_OUT}/routing_%s.json""" % (p, p))
print("""
service:
  telemetry:
    metrics:
      level: none
  pipelines:""")
for p, signal in PIPES:
    print("""    %s/%s:
      receivers: [otlp/%s]
      exporters: [file/%s]""" % (signal, p, p, p))
