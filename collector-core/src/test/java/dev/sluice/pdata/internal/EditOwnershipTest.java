package dev.sluice.pdata.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.pdata.Batch;
import dev.sluice.pdata.ItemVisitor;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpIndexer;
import dev.sluice.pdata.edit.AttributeActions;
import dev.sluice.pdata.edit.AttributeValue;
import dev.sluice.testkit.AllocationBound;
import dev.sluice.testkit.RefCheckExtension;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Reference counts and memory accounting through edits, and the test mode that checks them ({@link
 * RefCheck}, run by {@link RefCheckExtension} for every test class).
 */
class EditOwnershipTest {
  private final OtlpIndexer indexer = new OtlpIndexer();

  /** A memory account as the pipeline's budget keeps one: request bytes plus replacement bytes. */
  static final class Account implements OtlpIndex.Releaser {
    final AtomicLong bytes = new AtomicLong();
    final AtomicInteger released = new AtomicInteger();

    void admit(OtlpIndex request) {
      bytes.addAndGet(request.retainedBytes());
      request.hold(this);
    }

    @Override
    public void released(OtlpIndex request) {
      bytes.addAndGet(-request.retainedBytes());
      released.incrementAndGet();
    }

    @Override
    public void editBytesChanged(OtlpIndex request, long deltaBytes) {
      bytes.addAndGet(deltaBytes);
    }
  }

  private OtlpIndex request(int spans) throws Exception {
    ExportTraceServiceRequest request = OtlpTestData.realisticTraces(2, spans / 2);
    return indexer.index(Signal.TRACES, request.toByteArray());
  }

  private static final AttributeActions UPSERT =
      AttributeActions.builder()
          .upsert("deployment.environment", AttributeValue.string("production"))
          .build();

  private static final AttributeActions MARK =
      AttributeActions.builder().upsert("copy.mark", AttributeValue.string("original")).build();

  private static ExportTraceServiceRequest parsed(Batch batch) throws Exception {
    dev.sluice.pdata.codec.MarshalContext context = new dev.sluice.pdata.codec.MarshalContext();
    dev.sluice.pdata.codec.OtlpMarshaler.marshal(batch, context);
    return ExportTraceServiceRequest.parseFrom(context.toByteArray());
  }

  private static long spansWith(ExportTraceServiceRequest request, String key) {
    return request.getResourceSpansList().stream()
        .flatMap(r -> r.getScopeSpansList().stream())
        .flatMap(s -> s.getSpansList().stream())
        .filter(span -> span.getAttributesList().stream().anyMatch(kv -> kv.getKey().equals(key)))
        .count();
  }

  private static long spans(ExportTraceServiceRequest request) {
    return request.getResourceSpansList().stream()
        .flatMap(r -> r.getScopeSpansList().stream())
        .mapToLong(s -> s.getSpansCount())
        .sum();
  }

  @Test
  void aCopyIsEditedApartFromItsOriginalAndTheRequestIsFreedWhenBothAreCleared() throws Exception {
    Account account = new Account();
    OtlpIndex index = request(100);
    account.admit(index);
    Batch batch = Batch.of(index);
    index.releaseHold();
    // An edit before the copy: both see it.
    batch.visit(ActionVisitors.items(UPSERT));

    Batch copy = batch.copy();
    assertThat(copy.unitCount()).isEqualTo(100);
    copy.dropIf(item -> item.item() % 2 == 0);
    batch.visit(ActionVisitors.items(MARK));

    ExportTraceServiceRequest original = parsed(batch);
    ExportTraceServiceRequest copied = parsed(copy);
    assertThat(spans(original)).isEqualTo(100);
    assertThat(spansWith(original, "deployment.environment")).isEqualTo(100);
    assertThat(spansWith(original, "copy.mark")).isEqualTo(100);
    assertThat(spans(copied)).isEqualTo(50);
    assertThat(spansWith(copied, "deployment.environment")).isEqualTo(50);
    assertThat(spansWith(copied, "copy.mark")).isZero();

    batch.clear();
    assertThat(account.released.get()).isZero();
    copy.clear();
    assertThat(account.released.get()).isEqualTo(1);
    assertThat(account.bytes.get()).isZero();
  }

  @Test
  void replacementBytesCountAgainstTheAccountUntilTheLastSliceIsGone() throws Exception {
    Account account = new Account();
    OtlpIndex index = request(100);
    account.admit(index);
    Batch batch = Batch.of(index);
    index.releaseHold();
    long requestBytes = account.bytes.get();

    batch.visit(ActionVisitors.items(UPSERT));
    assertThat(account.bytes.get()).isGreaterThan(requestBytes);
    Batch part = new Batch(Signal.TRACES);
    batch.moveTo(part, 30);
    part.dropIf(item -> item.item() % 2 == 0);
    batch.clear();
    assertThat(account.released.get()).isZero();
    part.clear();

    assertThat(account.released.get()).isEqualTo(1);
    assertThat(account.bytes.get()).isZero();
  }

  @Test
  void editsOfBothPartsOfASplitBatchAreReleasedWithTheirParts() throws Exception {
    Account account = new Account();
    OtlpIndex index = request(100);
    account.admit(index);
    Batch first = Batch.of(index);
    index.releaseHold();
    first.visit(ActionVisitors.items(UPSERT));
    Batch second = new Batch(Signal.TRACES);
    first.moveTo(second, 55);

    // The second part edits a copy of the shared replacements; both are given back.
    second.visit(ActionVisitors.delete("http.route"));
    first.visit(item -> item.drop());
    assertThat(first.isEmpty()).isTrue();
    assertThat(account.released.get()).isZero();
    second.clear();

    assertThat(account.released.get()).isEqualTo(1);
    assertThat(account.bytes.get()).isZero();
  }

  @Test
  void replacementsOfItemsThatAreThenDroppedAreFreedAtTheEndOfTheVisit() throws Exception {
    Account account = new Account();
    OtlpIndex index = request(10);
    account.admit(index);
    Batch batch = Batch.of(index);
    index.releaseHold();
    long requestBytes = account.bytes.get();

    batch.visit(
        item -> {
          ActionVisitors.apply(item, UPSERT);
          if (item.item() % 2 == 0) {
            item.drop();
          }
        });
    batch.dropIf(item -> true);

    assertThat(account.released.get()).isEqualTo(1);
    assertThat(account.bytes.get()).isZero();
    assertThat(requestBytes).isPositive();
  }

  @Test
  void editingEverySpanAllocatesOnlyItsReplacementStorage() throws Exception {
    OtlpIndex index = request(1000);
    AttributeActions editor =
        AttributeActions.builder()
            .upsert("deployment.environment", AttributeValue.string("production"))
            .build();
    ItemVisitor edit = ActionVisitors.items(editor);
    Batch warm = Batch.of(index);
    warm.visit(edit);
    Batch batch = Batch.of(index);

    AllocationBound.Outcome outcome = AllocationBound.measure(() -> batch.visit(edit));

    // The replacements are about as large as the request; no object per span.
    outcome.assertWithin("upserting one attribute in 1000 spans", index.sourceLength());
    assertThat(outcome.allocatedBytes()).isLessThan(4L * index.sourceLength() + 64 * 1024);
  }

  @Test
  void checkerCatchesARequestReleasedTwice() throws Exception {
    OtlpIndex index = request(2);
    index.hold(request -> {});
    index.releaseHold();

    assertThatThrownBy(index::releaseHold).isInstanceOf(IllegalStateException.class);

    assertThat(RefCheck.enabled()).as("the suite runs with -Dsluice.refcheck=true").isTrue();
    assertThatThrownBy(RefCheckExtension::checkReleasedTwice)
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("release(s) below zero")
        .cause()
        .hasMessageContaining("released more often than retained");
    RefCheckExtension.checkReleasedTwice();
  }

  @Test
  void checkerCatchesASliceClearedTwice() throws Exception {
    OtlpIndex index = request(2);
    index.hold(request -> {});
    Batch batch = Batch.of(index);
    Slice slice = batch.slice(0);
    index.releaseHold();
    batch.clear();

    assertThatThrownBy(slice::release).isInstanceOf(IllegalStateException.class);

    assertThatThrownBy(RefCheckExtension::checkReleasedTwice).isInstanceOf(AssertionError.class);
  }

  @Test
  void checkerCatchesARequestNeverReleased() throws Exception {
    OtlpIndex index = request(2);
    index.hold(request -> {});
    Batch batch = Batch.of(index);
    index.releaseHold();
    batch.visit(ActionVisitors.items(UPSERT));

    assertThatThrownBy(() -> RefCheckExtension.checkLeaks("this test", 0))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining(
            "this test left 2 held request(s) or replacement stores never released")
        .satisfies(e -> assertThat(e.getSuppressed()).hasSize(2));
    batch.clear();
    RefCheckExtension.checkLeaks("this test", 0);
  }
}
