package dev.sluice.pdata.build;

import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.ByteArrays;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.internal.OtlpFields.EntityRef;
import dev.sluice.pdata.internal.OtlpFields.InstrumentationScope;
import dev.sluice.pdata.internal.OtlpFields.Request;
import dev.sluice.pdata.internal.OtlpFields.Resource;
import dev.sluice.pdata.internal.OtlpFields.ResourceBlock;
import dev.sluice.pdata.internal.OtlpFields.ScopeBlock;
import dev.sluice.pdata.internal.ProtoWriter;
import dev.sluice.pdata.internal.Varint;
import dev.sluice.pdata.internal.WireType;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Writes an {@code Export*ServiceRequest} into wire bytes: resource blocks, each holding scope
 * blocks, each holding items (spans, log records or metrics) that {@link TracesBuilder}, {@link
 * LogsBuilder} and {@link MetricsBuilder} add. What this class has is what the three share: the
 * blocks, and the output.
 *
 * <p>Writing is a stream. {@link #resource()} begins a resource block, {@link #scope()} a scope
 * block in it, and each item call (such as {@code span()}) an item in that; beginning one ends the
 * one before at its level and below. Each returns the writer of what it began: one object per
 * builder, re-pointed each time, so a writer held across calls writes into what was begun last.
 * Fields may be set in any order and until their message ends; the output has them in field-number
 * order, as protobuf-java writes them, so it equals protobuf-java's {@code toByteArray()} of the
 * same content byte for byte. Fields left at their default (zero, empty) are left out, as in
 * protobuf-java; a resource block always has a {@code Resource}, a scope block an {@code
 * InstrumentationScope}, even when empty.
 *
 * <p>Valid by construction: IDs are 16 or 8 bytes or absent, enums are in range, strings are UTF-8,
 * values nest within the indexer's limits. Misuse throws at the call: an {@link
 * IllegalArgumentException} for a bad value, an {@link IllegalStateException} for a call out of
 * order (a span before any scope block, a histogram point in a sum), naming what to do instead. Not
 * written: the profiles signal's string-table indexes ({@code key_strindex}, {@code
 * string_value_strindex}), which mean nothing without that signal's dictionary.
 *
 * <p>{@link #toByteArray()}, {@link #writeTo} and {@link #build()} end what is open and finish the
 * request; {@link #reset()} starts the next one. The builder keeps its scratch buffers between
 * requests, so once they have grown, building a request of the same shape allocates nothing but the
 * output (none with {@link #writeTo}). Not thread-safe: one builder per thread.
 */
public abstract class RequestBuilder {
  // Resource block rows: where its Resource field and its schema_url field are in `headers`, and
  // its scope blocks; then its content length, worked out when the request is finished.
  private static final int R_RESOURCE_START = 0;
  private static final int R_RESOURCE_END = 1;
  private static final int R_URL_START = 2;
  private static final int R_URL_END = 3;
  private static final int R_FIRST_SCOPE = 4;
  private static final int R_SCOPE_END = 5;
  private static final int R_CONTENT = 6;
  private static final int R_COLUMNS = 7;

  // Scope block rows: its InstrumentationScope and schema_url fields in `headers`, and its items
  // in `items`; then its content length.
  private static final int S_SCOPE_START = 0;
  private static final int S_SCOPE_END = 1;
  private static final int S_URL_START = 2;
  private static final int S_URL_END = 3;
  private static final int S_ITEMS_START = 4;
  private static final int S_ITEMS_END = 5;
  private static final int S_CONTENT = 6;
  private static final int S_COLUMNS = 7;

  private final Signal signal;
  private final String itemName;

  /** The items of every scope block, one after another, each a complete field of its block. */
  final ProtoWriter items = new ProtoWriter(4096);

  private final ProtoWriter headers = new ProtoWriter(256);
  private int[] resources = new int[4 * R_COLUMNS];
  private int resourceCount;
  private int[] scopes = new int[8 * S_COLUMNS];
  private int scopeCount;
  private final ResourceWriter resource = new ResourceWriter();
  private final ScopeWriter scope = new ScopeWriter();
  private boolean finished;
  private int encodedSize;
  private OtlpIndexer indexer;

  RequestBuilder(Signal signal, String itemName) {
    this.signal = signal;
    this.itemName = itemName;
  }

  public final Signal signal() {
    return signal;
  }

  /** Begins a resource block, ending the one before. */
  public final ResourceWriter resource() {
    checkNotFinished();
    endResourceBlock();
    resources = room(resources, resourceCount, R_COLUMNS);
    int row = resourceCount++ * R_COLUMNS;
    resources[row + R_FIRST_SCOPE] = scopeCount;
    resource.start();
    return resource;
  }

  /** Begins a scope block in the current resource block, ending the scope block before. */
  public final ScopeWriter scope() {
    checkNotFinished();
    if (!resource.open) {
      throw new IllegalStateException(
          "a scope block belongs to a resource block: call resource() first");
    }
    endScopeBlock();
    scopes = room(scopes, scopeCount, S_COLUMNS);
    int row = scopeCount++ * S_COLUMNS;
    scopes[row + S_ITEMS_START] = items.size();
    scope.start();
    return scope;
  }

  /** Checks that an item may begin here, and ends the item before. */
  final void beginItem() {
    checkNotFinished();
    if (!scope.open) {
      throw new IllegalStateException(
          "a " + itemName + " belongs to a scope block: call scope() first");
    }
    endItem();
  }

  /**
   * Writes the open item, if any, into {@link #items}; checks first, so a throw changes nothing.
   */
  abstract void endItem();

  /** Forgets the open item without writing it. */
  abstract void dropItem();

  /** The request's size in bytes; finishes it. */
  public final int encodedSize() {
    finish();
    return encodedSize;
  }

  /** Finishes the request and returns its bytes, in a new array of exactly its size. */
  public final byte[] toByteArray() {
    finish();
    byte[] bytes = ByteArrays.forOverwrite(encodedSize);
    write(bytes, 0);
    return bytes;
  }

  /**
   * Finishes the request and writes it into {@code destination} from {@code offset}; returns its
   * size ({@link #encodedSize()}). Allocates nothing.
   *
   * @throws IndexOutOfBoundsException when it does not fit; nothing is written then
   */
  public final int writeTo(byte[] destination, int offset) {
    finish();
    Objects.checkFromIndexSize(offset, encodedSize, destination.length);
    return write(destination, offset) - offset;
  }

  /**
   * Finishes the request, validates and indexes it: the index is what a receiver's indexer gives,
   * and {@code Batch.of(index)} makes the batch to send downstream. The bytes are the index's own.
   *
   * @throws IllegalStateException when the request is over the indexer's size limit (64 MiB)
   */
  public final OtlpIndex build() {
    byte[] bytes = toByteArray();
    if (indexer == null) {
      indexer = new OtlpIndexer();
    }
    try {
      return indexer.index(signal, bytes);
    } catch (MalformedOtlpException e) {
      throw new IllegalStateException("the request built cannot be indexed: " + e.getMessage(), e);
    }
  }

  /** Forgets everything written, finished or not; the scratch buffers are kept. */
  public final void reset() {
    dropItem();
    resource.close();
    scope.close();
    items.reset();
    headers.reset();
    resourceCount = 0;
    scopeCount = 0;
    finished = false;
    encodedSize = 0;
  }

  private void checkNotFinished() {
    if (finished) {
      throw new IllegalStateException(
          "the request is finished (toByteArray(), writeTo(), build() or encodedSize() was"
              + " called): reset() to build another");
    }
  }

  private void finish() {
    if (finished) {
      return;
    }
    endResourceBlock();
    long total = 0;
    for (int r = 0; r < resourceCount; r++) {
      int row = r * R_COLUMNS;
      long content =
          (long) resources[row + R_RESOURCE_END]
              - resources[row + R_RESOURCE_START]
              + resources[row + R_URL_END]
              - resources[row + R_URL_START];
      for (int s = resources[row + R_FIRST_SCOPE]; s < resources[row + R_SCOPE_END]; s++) {
        int srow = s * S_COLUMNS;
        long scopeContent =
            (long) scopes[srow + S_SCOPE_END]
                - scopes[srow + S_SCOPE_START]
                + scopes[srow + S_ITEMS_END]
                - scopes[srow + S_ITEMS_START]
                + scopes[srow + S_URL_END]
                - scopes[srow + S_URL_START];
        checkSize(scopeContent);
        scopes[srow + S_CONTENT] = (int) scopeContent;
        content += Varint.lengthDelimitedSize(ResourceBlock.SCOPE_BLOCKS, (int) scopeContent);
      }
      checkSize(content);
      resources[row + R_CONTENT] = (int) content;
      total += Varint.lengthDelimitedSize(Request.RESOURCE_BLOCKS, (int) content);
      checkSize(total);
    }
    encodedSize = (int) total;
    finished = true;
  }

  private static void checkSize(long bytes) {
    if (bytes > Integer.MAX_VALUE - 16) {
      throw new IllegalStateException("the request is larger than 2 GiB");
    }
  }

  /** Writes the finished request at {@code p}; returns where it ends. */
  private int write(byte[] out, int p) {
    byte[] header = headers.array();
    for (int r = 0; r < resourceCount; r++) {
      int row = r * R_COLUMNS;
      p = lengthDelimitedHeader(out, p, Request.RESOURCE_BLOCKS, resources[row + R_CONTENT]);
      p = copy(header, resources[row + R_RESOURCE_START], resources[row + R_RESOURCE_END], out, p);
      for (int s = resources[row + R_FIRST_SCOPE]; s < resources[row + R_SCOPE_END]; s++) {
        int srow = s * S_COLUMNS;
        p = lengthDelimitedHeader(out, p, ResourceBlock.SCOPE_BLOCKS, scopes[srow + S_CONTENT]);
        p = copy(header, scopes[srow + S_SCOPE_START], scopes[srow + S_SCOPE_END], out, p);
        p = copy(items.array(), scopes[srow + S_ITEMS_START], scopes[srow + S_ITEMS_END], out, p);
        p = copy(header, scopes[srow + S_URL_START], scopes[srow + S_URL_END], out, p);
      }
      p = copy(header, resources[row + R_URL_START], resources[row + R_URL_END], out, p);
    }
    return p;
  }

  private static int copy(byte[] from, int start, int end, byte[] out, int p) {
    System.arraycopy(from, start, out, p, end - start);
    return p + end - start;
  }

  /** A one-byte tag (the block fields are 1 and 2) and a length. */
  private static int lengthDelimitedHeader(byte[] out, int p, int field, int length) {
    out[p++] = (byte) WireType.tag(field, WireType.LEN);
    while ((length & ~0x7F) != 0) {
      out[p++] = (byte) (length & 0x7F | 0x80);
      length >>>= 7;
    }
    out[p++] = (byte) length;
    return p;
  }

  private void endResourceBlock() {
    endScopeBlock();
    if (resource.open) {
      resource.writeHeader(resources, (resourceCount - 1) * R_COLUMNS);
      resources[(resourceCount - 1) * R_COLUMNS + R_SCOPE_END] = scopeCount;
    }
  }

  private void endScopeBlock() {
    endItem();
    if (scope.open) {
      int row = (scopeCount - 1) * S_COLUMNS;
      scope.writeHeader(scopes, row);
      scopes[row + S_ITEMS_END] = items.size();
    }
  }

  private static int[] room(int[] table, int rows, int columns) {
    return (rows + 1) * columns <= table.length ? table : Arrays.copyOf(table, table.length * 2);
  }

  /** The header of the current resource block: its {@code Resource} and its schema URL. */
  public final class ResourceWriter {
    private final ValueWriter attributes = new ValueWriter("resource", "attributes");
    private int droppedAttributesCount;
    private final ProtoWriter entityRefs = new ProtoWriter(64);
    private final ProtoWriter schemaUrl = new ProtoWriter(64);
    private boolean open;

    ResourceWriter() {}

    public ValueWriter attributes() {
      checkOpen();
      return attributes;
    }

    /** Unsigned, as protobuf-java takes a {@code uint32}. */
    public ResourceWriter droppedAttributesCount(int count) {
      checkOpen();
      droppedAttributesCount = count;
      return this;
    }

    /**
     * Adds an {@code EntityRef}: the entity's type, the keys of the resource attributes that
     * identify it and of those that describe it, and the schema URL (each may be empty).
     */
    public ResourceWriter entityRef(
        CharSequence schemaUrl,
        CharSequence type,
        List<? extends CharSequence> idKeys,
        List<? extends CharSequence> descriptionKeys) {
      checkOpen();
      int mark = entityRefs.beginLengthDelimited(Resource.ENTITY_REFS);
      Fields.string(entityRefs, EntityRef.SCHEMA_URL, schemaUrl);
      Fields.string(entityRefs, EntityRef.TYPE, type);
      for (int i = 0, n = idKeys.size(); i < n; i++) {
        Fields.stringAlways(entityRefs, EntityRef.ID_KEYS, idKeys.get(i));
      }
      for (int i = 0, n = descriptionKeys.size(); i < n; i++) {
        Fields.stringAlways(entityRefs, EntityRef.DESCRIPTION_KEYS, descriptionKeys.get(i));
      }
      entityRefs.endLengthDelimited(mark);
      return this;
    }

    /** The resource block's {@code schema_url}. */
    public ResourceWriter schemaUrl(CharSequence url) {
      checkOpen();
      schemaUrl.reset();
      Fields.string(schemaUrl, ResourceBlock.SCHEMA_URL, url);
      return this;
    }

    void start() {
      attributes.start(Resource.ATTRIBUTES);
      droppedAttributesCount = 0;
      entityRefs.reset();
      schemaUrl.reset();
      open = true;
    }

    void writeHeader(int[] rows, int row) {
      attributes.checkClosed();
      rows[row + R_RESOURCE_START] = headers.size();
      int mark = headers.beginLengthDelimited(ResourceBlock.RESOURCE);
      Fields.copy(headers, attributes.bytes());
      Fields.uint32(headers, Resource.DROPPED_ATTRIBUTES_COUNT, droppedAttributesCount);
      Fields.copy(headers, entityRefs);
      headers.endLengthDelimited(mark);
      rows[row + R_RESOURCE_END] = headers.size();
      writeSchemaUrl(schemaUrl, rows, row + R_URL_START, row + R_URL_END);
      close();
    }

    void close() {
      attributes.close();
      open = false;
    }

    private void checkOpen() {
      if (!open) {
        throw new IllegalStateException("no resource block is open: call resource() first");
      }
    }
  }

  /** Appends a block's {@code schema_url} field to the headers, its bounds to two rows. */
  private void writeSchemaUrl(ProtoWriter schemaUrl, int[] rows, int startRow, int endRow) {
    rows[startRow] = headers.size();
    Fields.copy(headers, schemaUrl);
    rows[endRow] = headers.size();
  }

  /** The header of the current scope block: its {@code InstrumentationScope} and schema URL. */
  public final class ScopeWriter {
    private final ProtoWriter name = new ProtoWriter(64);
    private final ProtoWriter version = new ProtoWriter(32);
    private final ValueWriter attributes = new ValueWriter("scope", "attributes");
    private int droppedAttributesCount;
    private final ProtoWriter schemaUrl = new ProtoWriter(64);
    private boolean open;

    ScopeWriter() {}

    public ScopeWriter name(CharSequence name) {
      checkOpen();
      this.name.reset();
      Fields.string(this.name, InstrumentationScope.NAME, name);
      return this;
    }

    public ScopeWriter version(CharSequence version) {
      checkOpen();
      this.version.reset();
      Fields.string(this.version, InstrumentationScope.VERSION, version);
      return this;
    }

    public ValueWriter attributes() {
      checkOpen();
      return attributes;
    }

    /** Unsigned, as protobuf-java takes a {@code uint32}. */
    public ScopeWriter droppedAttributesCount(int count) {
      checkOpen();
      droppedAttributesCount = count;
      return this;
    }

    /** The scope block's {@code schema_url}. */
    public ScopeWriter schemaUrl(CharSequence url) {
      checkOpen();
      schemaUrl.reset();
      Fields.string(schemaUrl, ScopeBlock.SCHEMA_URL, url);
      return this;
    }

    void start() {
      name.reset();
      version.reset();
      attributes.start(InstrumentationScope.ATTRIBUTES);
      droppedAttributesCount = 0;
      schemaUrl.reset();
      open = true;
    }

    void writeHeader(int[] rows, int row) {
      attributes.checkClosed();
      rows[row + S_SCOPE_START] = headers.size();
      int mark = headers.beginLengthDelimited(ScopeBlock.SCOPE);
      Fields.copy(headers, name);
      Fields.copy(headers, version);
      Fields.copy(headers, attributes.bytes());
      Fields.uint32(headers, InstrumentationScope.DROPPED_ATTRIBUTES_COUNT, droppedAttributesCount);
      headers.endLengthDelimited(mark);
      rows[row + S_SCOPE_END] = headers.size();
      writeSchemaUrl(schemaUrl, rows, row + S_URL_START, row + S_URL_END);
      close();
    }

    void close() {
      attributes.close();
      open = false;
    }

    private void checkOpen() {
      if (!open) {
        throw new IllegalStateException("no scope block is open: call scope() first");
      }
    }
  }
}
