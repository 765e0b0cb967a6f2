package dev.sluice.component;

/** A pipeline stage between receivers and exporters, such as the batcher. */
public interface Processor extends BatchConsumer, Lifecycle {}
