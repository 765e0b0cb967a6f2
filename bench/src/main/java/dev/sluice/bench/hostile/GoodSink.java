package dev.sluice.bench.hostile;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.sluice.bench.load.PassThrough;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.internal.OtlpFields;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Where the daemon's traces pipeline exports: a gRPC server that parses every request with
 * protobuf-java, one resource block at a time (a block protobuf-java refuses is counted, the others
 * still read), and keeps the content hash of every good span by its sequence number. Spans of
 * hostile requests that the daemon accepted arrive too and are only counted.
 */
final class GoodSink implements AutoCloseable {
  private static final int MAX_REQUEST_BYTES = 256 << 20;

  private final Server server;
  private final Map<Integer, Long> hashes = new ConcurrentHashMap<>();
  private final LongAdder duplicates = new LongAdder();
  private final LongAdder conflicting = new LongAdder();
  private final LongAdder otherSpans = new LongAdder();
  private final LongAdder requests = new LongAdder();
  private final LongAdder unparseableBlocks = new LongAdder();

  GoodSink(String host) throws IOException {
    MethodDescriptor<byte[], byte[]> export =
        PassThrough.exportMethod(Signal.TRACES, PassThrough.BYTES, PassThrough.BYTES);
    ServerCalls.UnaryMethod<byte[], byte[]> method = this::export;
    this.server =
        NettyServerBuilder.forAddress(new InetSocketAddress(host, 0))
            .maxInboundMessageSize(MAX_REQUEST_BYTES)
            .addService(
                ServerServiceDefinition.builder(PassThrough.serviceName(Signal.TRACES))
                    .addMethod(export, ServerCalls.asyncUnaryCall(method))
                    .build())
            .build()
            .start();
  }

  int port() {
    return ((InetSocketAddress) server.getListenSockets().get(0)).getPort();
  }

  private void export(byte[] body, StreamObserver<byte[]> response) {
    requests.increment();
    try {
      CodedInputStream in = CodedInputStream.newInstance(body);
      for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
        if (tag >>> 3 == OtlpFields.TracesRequest.RESOURCE_SPANS && (tag & 7) == 2) {
          try {
            record(ResourceSpans.parseFrom(in.readBytes()));
          } catch (InvalidProtocolBufferException e) {
            unparseableBlocks.increment();
          }
        } else if (!in.skipField(tag)) {
          break;
        }
      }
    } catch (IOException e) {
      unparseableBlocks.increment();
    }
    response.onNext(new byte[0]);
    response.onCompleted();
  }

  private void record(ResourceSpans block) {
    for (ScopeSpans scope : block.getScopeSpansList()) {
      for (Span span : scope.getSpansList()) {
        if (!GoodTraffic.isGood(span.getSpanId())) {
          otherSpans.increment();
          continue;
        }
        long hash = GoodTraffic.hash(span);
        Long previous = hashes.putIfAbsent(GoodTraffic.sequence(span.getSpanId()), hash);
        if (previous != null) {
          if (previous == hash) {
            duplicates.increment();
          } else {
            conflicting.increment();
          }
        }
      }
    }
  }

  /** The hash received for a good span, or null. */
  Long hash(int sequence) {
    return hashes.get(sequence);
  }

  int goodSpans() {
    return hashes.size();
  }

  long duplicates() {
    return duplicates.sum();
  }

  long conflicting() {
    return conflicting.sum();
  }

  long otherSpans() {
    return otherSpans.sum();
  }

  long requests() {
    return requests.sum();
  }

  long unparseableBlocks() {
    return unparseableBlocks.sum();
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdown();
    if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
      server.shutdownNow();
    }
  }
}
