package dev.sluice.processor.resourcedetection;

/**
 * Whether a detector sets one resource attribute.
 *
 * @param enabled true or false; null (left out) keeps the attribute's default
 */
public record ResourceAttributeConfig(Boolean enabled) {}
