package dev.sluice.pdata.internal;

/**
 * An element (a span event or link) being added by a typed editor: written into the editor's buffer
 * of added elements as it is given, and closed, with the fields it keeps until then, when the next
 * element is added or the item is written. One reused per kind of element.
 */
public abstract class AddedElement {
  @Internal public final ItemEdits edits;
  private final String name;
  private final int attributesField;
  private int mark;

  @Internal
  public AddedElement(ItemEdits edits, String name, int attributesField) {
    this.edits = edits;
    this.name = name;
    this.attributesField = attributesField;
  }

  /** Starts a new element of {@code field}, closing the one open. */
  @Internal
  public final void open(int field) {
    if (edits.openElement != null) {
      edits.openElement.close();
    }
    forgetKeptFields();
    mark = edits.appended.beginLengthDelimited(field);
    edits.openElement = this;
    edits.touched();
  }

  /**
   * @throws IllegalStateException when this element is no longer the one being added
   */
  @Internal
  public final void checkOpen() {
    if (edits.openElement != this) {
      throw new IllegalStateException(
          "an added "
              + name
              + " takes fields only until the next event or link is added or the visitor's call"
              + " ends");
    }
  }

  /** Adds an attribute: the key and value are ranges the editor encoded. */
  @Internal
  public final void entry(long key, long value) {
    edits.writeEntry(edits.appended, attributesField, key, value);
  }

  /** Writes the fields kept until now and ends the element. */
  final void close() {
    writeKeptFields(edits.appended);
    edits.appended.endLengthDelimited(mark);
    edits.openElement = null;
  }

  /** Writes the fields given once (the last value given wins), when the element is closed. */
  @Internal
  public abstract void writeKeptFields(ProtoWriter out);

  /** The fields given once go back to their defaults, for a new element. */
  @Internal
  public abstract void forgetKeptFields();
}
