package dev.sluice.component;

/** Takes data in from outside (a network endpoint) and hands it to its {@link RequestConsumer}s. */
public interface Receiver extends Lifecycle {}
