package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.pdata.MalformedOtlpException;
import dev.sluice.pdata.MalformedOtlpException.Kind;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.internal.OtlpFields.Request;
import dev.sluice.pdata.internal.OtlpFields.ResourceBlock;
import dev.sluice.pdata.internal.OtlpFields.ScopeBlock;
import dev.sluice.testkit.AllocationBound;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/**
 * What a request may cost the indexer, accepted or refused: within {@link AllocationBound} (8 x its
 * size + 64 KiB) on an indexer that has seen only one small request, and never sized by a number
 * read from the input.
 */
class IndexCostTest {
  /** The body of the issue: an unknown field numbered 63,229,985, then bytes that do not parse. */
  private static final byte[] HUGE_FIELD_NUMBER =
      Base64.getDecoder()
          .decode(
              "CjGLgprxAQoYChYKDHNlcnZpY2UubmFtZRIGCgRmdXp6EtQBChEKCmZ1enotc2NvcGUSAzEuMBK+AQoQOLTmUuRNp/I3DZ4mDicTZRIIUKSjptB/XAwqCkdFVCAvYXBpLzAwAjkAACo2/pyXF0EA4R88/pyXF0oUCgtodHRwLm1ldGhvZBIFCgNHRVRKFwoQaHR0cC5zdGF0o6bQf1wMKgpHRVQgL2FwaW8SCSEAAAAAAADgP0p1c19jb2RlEgOYyAFKCAoCb2sSAhABShIKBXJhdPo3DZ4mDicTZRIIUKSjptB/XAwqCkdFVCAvYXBpbxIJIQAAAAAAAOA/ShAKBHRleHQSCAoGaMOpbGxvWhcRhPAkOf6clxcaA2V2dCIHCgHaEgIYAHoIEgRmaf9uZRgB");

  private static final int MIB = 1 << 20;

  // The fields that lead from a request into its first resource block, scope block and item.
  private static final int[] IN_RESOURCE_BLOCK = {Request.RESOURCE_BLOCKS};
  private static final int[] IN_SCOPE_BLOCK = {Request.RESOURCE_BLOCKS, ResourceBlock.SCOPE_BLOCKS};
  private static final int[] IN_ITEM = {
    Request.RESOURCE_BLOCKS, ResourceBlock.SCOPE_BLOCKS, ScopeBlock.ITEMS
  };

  private static OtlpIndexer warmIndexer() throws Exception {
    OtlpIndexer indexer = new OtlpIndexer();
    for (Signal signal : Signal.values()) {
      indexer.index(signal, OtlpIndexerFuzzTest.validRequest(signal));
    }
    return indexer;
  }

  private static AllocationBound.Outcome index(OtlpIndexer indexer, Signal signal, byte[] request) {
    AllocationBound.Outcome outcome = AllocationBound.measure(() -> indexer.index(signal, request));
    return outcome.assertWithin(
        signal + " request of " + request.length + " bytes", request.length);
  }

  private static MalformedOtlpException refused(AllocationBound.Outcome outcome) {
    assertThat(outcome.thrown()).isInstanceOf(MalformedOtlpException.class);
    return (MalformedOtlpException) outcome.thrown();
  }

  /** {@code count} copies of {@code field}, wrapped in a field of each number in {@code levels}. */
  private static byte[] repeated(byte[] field, int count, int... levels) {
    ProtoWriter out = new ProtoWriter();
    for (int i = 0; i < count; i++) {
      out.writeBytes(field, 0, field.length);
    }
    byte[] bytes = out.toByteArray();
    for (int i = levels.length - 1; i >= 0; i--) {
      ProtoWriter wrapper = new ProtoWriter();
      wrapper.writeLengthDelimitedHeader(levels[i], bytes.length);
      wrapper.writeBytes(bytes, 0, bytes.length);
      bytes = wrapper.toByteArray();
    }
    return bytes;
  }

  @Test
  void rejectsHugeFieldNumberWithoutAllocatingByIt() throws Exception {
    MalformedOtlpException e = refused(index(warmIndexer(), Signal.TRACES, HUGE_FIELD_NUMBER));

    assertThat(e.kind()).isEqualTo(Kind.WIRE_FORMAT);
    assertThat(e.fieldPath()).startsWith("resource_spans[0]");
  }

  @Test
  void namesTheLargestFieldNumberInAPath() throws Exception {
    // A span holding field 2^29 - 1 (a five-byte tag, wire type LEN) whose length overruns.
    byte[] span = {(byte) 0xFA, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x0F, 0x7F};
    byte[] request = repeated(span, 1, IN_ITEM);

    MalformedOtlpException e = refused(index(warmIndexer(), Signal.TRACES, request));

    assertThat(e.fieldPath())
        .isEqualTo("resource_spans[0].scope_spans[0].spans[0].field#536870911");
  }

  @Test
  void namesTheOccurrenceOfARepeatedFieldAfterManyOthers() throws Exception {
    // 3000 valid attributes, then one whose key is not UTF-8.
    byte[] good = {0x4A, 0x05, 0x0A, 0x01, 'k', 0x12, 0x00};
    byte[] bad = {0x4A, 0x03, 0x0A, 0x01, (byte) 0xFF};
    ProtoWriter span = new ProtoWriter();
    for (int i = 0; i < 3000; i++) {
      span.writeBytes(good, 0, good.length);
    }
    span.writeBytes(bad, 0, bad.length);
    byte[] request = repeated(span.toByteArray(), 1, IN_ITEM);

    MalformedOtlpException e = refused(index(warmIndexer(), Signal.TRACES, request));

    assertThat(e.kind()).isEqualTo(Kind.INVALID_UTF8);
    assertThat(e.fieldPath())
        .isEqualTo("resource_spans[0].scope_spans[0].spans[0].attributes[3000].key");
  }

  @Test
  void findsInvalidUtf8BeforeThousandsOfValidStrings() throws Exception {
    // The string record holds 1024 strings and is checked when full: an early bad string counts.
    ProtoWriter span = new ProtoWriter();
    span.writeBytes(new byte[] {0x2A, 0x02, (byte) 0xC3, 0x28}, 0, 4);
    for (int i = 0; i < 5000; i++) {
      span.writeBytes(new byte[] {0x1A, 0x01, 'x'}, 0, 3);
    }
    byte[] request = repeated(span.toByteArray(), 1, IN_ITEM);

    MalformedOtlpException e = refused(index(warmIndexer(), Signal.TRACES, request));

    assertThat(e.kind()).isEqualTo(Kind.INVALID_UTF8);
    assertThat(e.fieldPath()).isEqualTo("resource_spans[0].scope_spans[0].spans[0].name");
  }

  @Test
  void acceptsHalfAMillionTinyStringsWithoutGrowingTheStringRecord() throws Exception {
    byte[] request = repeated(new byte[] {0x1A, 0x01, 'x'}, MIB / 3, 1, 2, 2);

    AllocationBound.Outcome outcome = index(warmIndexer(), Signal.TRACES, request);

    assertThat(outcome.thrown()).isNull();
    // One span: the index is a few rows, so nearly nothing is allocated.
    assertThat(outcome.allocatedBytes()).isLessThan(AllocationBound.FIXED_BYTES);
  }

  @Test
  void acceptsAMegabyteOfSmallSpansWithinTheBoundOnAFreshIndexer() throws Exception {
    // Spans of 5 bytes (a one-letter name): 8 bytes of index each, in tables that grow by chunks.
    byte[] request = repeated(new byte[] {0x12, 0x03, 0x2A, 0x01, 'a'}, MIB / 5, IN_SCOPE_BLOCK);

    AllocationBound.Outcome outcome = index(warmIndexer(), Signal.TRACES, request);

    assertThat(outcome.thrown()).isNull();
  }

  @Test
  void refusesAMegabyteOfEmptyScopeBlocksAtTheIndexBudget() throws Exception {
    // Each empty scope block is 2 bytes of input and 36 bytes of index.
    byte[] request = repeated(new byte[] {0x12, 0x00}, MIB / 2, IN_RESOURCE_BLOCK);

    MalformedOtlpException e = refused(index(warmIndexer(), Signal.TRACES, request));

    assertThat(e.kind()).isEqualTo(Kind.LIMIT);
    assertThat(e.getMessage()).contains("the index of this request needs more than");
  }

  @Test
  void refusesAMegabyteOfEmptyMetricsAtTheIndexBudget() throws Exception {
    byte[] request = repeated(new byte[] {0x12, 0x00}, MIB / 2, IN_SCOPE_BLOCK);

    MalformedOtlpException e = refused(index(warmIndexer(), Signal.METRICS, request));

    assertThat(e.kind()).isEqualTo(Kind.LIMIT);
  }

  @Test
  void refusesAMegabyteOfHeaderFieldsAtTheIndexBudget() throws Exception {
    // Unknown varint fields in one resource block's header: 2 bytes of input, 12 of index each.
    byte[] request = repeated(new byte[] {(byte) 0x78, 0x00}, MIB / 2, IN_RESOURCE_BLOCK);

    MalformedOtlpException e = refused(index(warmIndexer(), Signal.LOGS, request));

    assertThat(e.kind()).isEqualTo(Kind.LIMIT);
  }

  @Test
  void refusesOverBudgetRequestsAlsoOnceTheTablesHaveGrown() throws Exception {
    OtlpIndexer indexer = warmIndexer();
    byte[] big = repeated(new byte[] {0x12, 0x03, 0x2A, 0x01, 'a'}, MIB / 5, IN_SCOPE_BLOCK);
    indexer.index(Signal.TRACES, big);
    byte[] scopes = repeated(new byte[] {0x12, 0x00}, 64 << 10, IN_RESOURCE_BLOCK);

    // The tables have room for all the rows now; the budget counts rows, not room.
    MalformedOtlpException e = refused(index(indexer, Signal.TRACES, scopes));

    assertThat(e.kind()).isEqualTo(Kind.LIMIT);
    assertThat(e.offset()).isZero();
  }

  @Test
  void acceptsCompactMetricsWithOneDataPointEach() throws Exception {
    // A gauge named "m" with one data point of a time and an integer: 27 bytes and 68 bytes of
    // index, within the budget of 3 per byte.
    byte[] point = {0x19, 1, 2, 3, 4, 5, 6, 7, 8, 0x31, 5, 0, 0, 0, 0, 0, 0, 0};
    byte[] metric = new byte[2 + 3 + 2 + 2 + point.length];
    int p = 0;
    metric[p++] = (byte) WireType.tag(ScopeBlock.ITEMS, WireType.LEN);
    metric[p++] = (byte) (metric.length - 2);
    metric[p++] = (byte) WireType.tag(OtlpFields.Metric.NAME, WireType.LEN);
    metric[p++] = 0x01;
    metric[p++] = 'm';
    metric[p++] = (byte) WireType.tag(OtlpFields.Metric.GAUGE, WireType.LEN);
    metric[p++] = (byte) (2 + point.length);
    metric[p++] = (byte) WireType.tag(OtlpFields.Gauge.DATA_POINTS, WireType.LEN);
    metric[p++] = (byte) point.length;
    System.arraycopy(point, 0, metric, p, point.length);
    byte[] request = repeated(metric, 10_000, IN_SCOPE_BLOCK);

    AllocationBound.Outcome outcome = index(warmIndexer(), Signal.METRICS, request);

    assertThat(outcome.thrown()).isNull();
  }

  @Test
  void cutsTheFieldPathOfAnErrorHundredsOfMessagesDeep() throws Exception {
    // An AnyValue whose string is not UTF-8, at the bottom of 400 arrays in arrays.
    byte[] value = {0x0A, 0x01, (byte) 0xFF};
    for (int i = 0; i < 400; i++) {
      value = repeated(value, 1, OtlpFields.AnyValue.ARRAY_VALUE, OtlpFields.ArrayValue.VALUES);
    }
    byte[] request =
        repeated(
            repeated(value, 1, OtlpFields.KeyValue.VALUE),
            1,
            Request.RESOURCE_BLOCKS,
            ResourceBlock.SCOPE_BLOCKS,
            ScopeBlock.ITEMS,
            OtlpFields.Span.ATTRIBUTES);
    OtlpIndexer deep = new OtlpIndexer(new IndexLimits(MIB, 1000));
    deep.index(Signal.TRACES, OtlpIndexerFuzzTest.validRequest(Signal.TRACES));
    // The error path's classes load (and its string concatenations link) once per JVM: not what
    // the request costs, so they are warmed first.
    refused(AllocationBound.measure(() -> deep.index(Signal.TRACES, request)));

    MalformedOtlpException e = refused(index(deep, Signal.TRACES, request));

    assertThat(e.kind()).isEqualTo(Kind.INVALID_UTF8);
    assertThat(e.getMessage().length())
        .isLessThanOrEqualTo(MalformedOtlpException.MAX_MESSAGE_CHARS);
    assertThat(e.fieldPath())
        .startsWith("resource_spans[0].scope_spans[0].spans[0].attributes[0].value.array_value")
        .contains("...")
        .endsWith("array_value.values[0].string_value");
  }
}
