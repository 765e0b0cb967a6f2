package dev.sluice.component;

/**
 * The exporter side of a connector: it takes the batches that reach the end of the pipelines
 * listing it among their exporters, and hands what it makes of them (the same data, a part of it,
 * or new data such as metrics about it) to the pipelines listing it among their receivers, through
 * its {@link ConnectorOutput}.
 *
 * <p>Backpressure crosses it: {@link #consume} answers what the output answered for the data it
 * handed on, so a full pipeline downstream makes the pipeline feeding the connector refuse too. A
 * connector that keeps state and hands data on later (on a timer) refuses new data while its output
 * refuses what it has to hand on.
 */
public interface Connector extends BatchConsumer, Lifecycle {}
