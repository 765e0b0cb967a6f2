package dev.sluice.component;

/** A component outside the pipelines, such as the health check endpoint. */
public interface Extension extends Lifecycle {}
