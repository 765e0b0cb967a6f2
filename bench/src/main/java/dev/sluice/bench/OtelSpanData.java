package dev.sluice.bench;

import dev.sluice.bench.SpanShapes.Attribute;
import dev.sluice.bench.SpanShapes.HttpServerSpan;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.sdk.common.InstrumentationScopeInfo;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.data.StatusData;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The spans of {@link SpanShapes} as opentelemetry-java {@link SpanData}, what an SDK's span
 * processor hands its exporter. All spans share one {@link Resource} and one {@link
 * InstrumentationScopeInfo} instance, as spans of one tracer do; opentelemetry-java's marshalers
 * group by those instances. Encoded by opentelemetry-java, they give the same message as {@link
 * SpanShapes#toRequest}.
 */
public final class OtelSpanData {
  public static final Resource RESOURCE = resource();
  public static final InstrumentationScopeInfo SCOPE =
      InstrumentationScopeInfo.builder(SpanShapes.SCOPE_NAME)
          .setVersion(SpanShapes.SCOPE_VERSION)
          .setSchemaUrl(SpanShapes.SCOPE_SCHEMA_URL)
          .build();

  private OtelSpanData() {}

  public static List<SpanData> toSpanData(List<HttpServerSpan> spans) {
    List<SpanData> data = new ArrayList<>(spans.size());
    for (HttpServerSpan span : spans) {
      data.add(toSpanData(span));
    }
    return data;
  }

  public static SpanData toSpanData(HttpServerSpan span) {
    HexFormat hex = HexFormat.of();
    String traceId = hex.formatHex(span.traceId());
    SpanContext context =
        SpanContext.create(
            traceId,
            hex.formatHex(span.spanId()),
            TraceFlags.getSampled(),
            TraceState.getDefault());
    SpanContext parent =
        SpanContext.createFromRemoteParent(
            traceId,
            hex.formatHex(span.parentSpanId()),
            TraceFlags.getSampled(),
            TraceState.getDefault());
    return new Data(
        span.name(),
        context,
        parent,
        span.error() ? StatusData.create(StatusCode.ERROR, "") : StatusData.unset(),
        span.startEpochNanos(),
        span.endEpochNanos(),
        attributes(span.attributes()));
  }

  private static Resource resource() {
    return Resource.create(
        attributes(SpanShapes.RESOURCE_ATTRIBUTES), SpanShapes.RESOURCE_SCHEMA_URL);
  }

  private static Attributes attributes(List<Attribute> attributes) {
    AttributesBuilder builder = Attributes.builder();
    for (Attribute attribute : attributes) {
      if (attribute.value() instanceof String s) {
        builder.put(attribute.key(), s);
      } else {
        builder.put(attribute.key(), (long) (Long) attribute.value());
      }
    }
    return builder.build();
  }

  /** An ended SERVER span without events or links, like the SDK's own immutable span data. */
  private static final class Data implements SpanData {
    private final String name;
    private final SpanContext context;
    private final SpanContext parent;
    private final StatusData status;
    private final long start;
    private final long end;
    private final Attributes attributes;

    Data(
        String name,
        SpanContext context,
        SpanContext parent,
        StatusData status,
        long start,
        long end,
        Attributes attributes) {
      this.name = name;
      this.context = context;
      this.parent = parent;
      this.status = status;
      this.start = start;
      this.end = end;
      this.attributes = attributes;
    }

    @Override
    public String getName() {
      return name;
    }

    @Override
    public SpanKind getKind() {
      return SpanKind.SERVER;
    }

    @Override
    public SpanContext getSpanContext() {
      return context;
    }

    @Override
    public SpanContext getParentSpanContext() {
      return parent;
    }

    @Override
    public StatusData getStatus() {
      return status;
    }

    @Override
    public long getStartEpochNanos() {
      return start;
    }

    @Override
    public Attributes getAttributes() {
      return attributes;
    }

    @Override
    public List<EventData> getEvents() {
      return List.of();
    }

    @Override
    public List<LinkData> getLinks() {
      return List.of();
    }

    @Override
    public long getEndEpochNanos() {
      return end;
    }

    @Override
    public boolean hasEnded() {
      return true;
    }

    @Override
    public int getTotalRecordedEvents() {
      return 0;
    }

    @Override
    public int getTotalRecordedLinks() {
      return 0;
    }

    @Override
    public int getTotalAttributeCount() {
      return attributes.size();
    }

    @Override
    @SuppressWarnings("deprecation") // SpanData still declares it abstract
    public io.opentelemetry.sdk.common.InstrumentationLibraryInfo getInstrumentationLibraryInfo() {
      return io.opentelemetry.sdk.common.InstrumentationLibraryInfo.create(
          SCOPE.getName(), SCOPE.getVersion(), SCOPE.getSchemaUrl());
    }

    @Override
    public InstrumentationScopeInfo getInstrumentationScopeInfo() {
      return SCOPE;
    }

    @Override
    public Resource getResource() {
      return RESOURCE;
    }
  }
}
