package dev.sluice.component;

/** The kinds of components a configuration declares, with the section that holds each. */
public enum ComponentKind {
  RECEIVER("receivers", "receiver"),
  PROCESSOR("processors", "processor"),
  EXPORTER("exporters", "exporter"),
  CONNECTOR("connectors", "connector"),
  EXTENSION("extensions", "extension");

  private final String section;
  private final String label;

  ComponentKind(String section, String label) {
    this.section = section;
    this.label = label;
  }

  /** The configuration section: {@code receivers}, {@code processors}, ... */
  public String section() {
    return section;
  }

  /** The kind as a word in messages: {@code receiver}, {@code processor}, ... */
  public String label() {
    return label;
  }
}
