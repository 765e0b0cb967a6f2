package dev.sluice.bench.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.bench.load.PassThrough;
import dev.sluice.pdata.Signal;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class FaultSinkTest {
  private static final MethodDescriptor<byte[], byte[]> EXPORT =
      PassThrough.exportMethod(Signal.TRACES, PassThrough.BYTES, PassThrough.DISCARD);

  @Test
  void numberedSpansComeBackInOrder() {
    List<Integer> numbers = new ArrayList<>();

    int unnumbered = NumberedSpans.numbers(NumberedSpans.request(7, 5), numbers::add);

    assertThat(unnumbered).isZero();
    assertThat(numbers).containsExactly(7, 8, 9, 10, 11);
    assertThat(NumberedSpans.numbers(new byte[] {(byte) 0x0a, 5}, numbers::add)).isEqualTo(-1);
  }

  @Test
  void notesEverySpanCountsDuplicatesAndRefusesWhenTold() throws Exception {
    try (FaultSink sink = new FaultSink("B")) {
      ManagedChannel channel =
          NettyChannelBuilder.forAddress(FaultDaemon.HOST, sink.port()).usePlaintext().build();
      try {
        send(channel, NumberedSpans.request(0, 10));
        send(channel, NumberedSpans.request(5, 10));
        sink.refuseNext(1);
        StatusRuntimeException refused =
            catchThrowableOfType(
                () -> send(channel, NumberedSpans.request(100, 1)), StatusRuntimeException.class);
        sink.down(true);
        StatusRuntimeException down =
            catchThrowableOfType(
                () -> send(channel, NumberedSpans.request(200, 1)), StatusRuntimeException.class);
        sink.down(false);
        send(channel, NumberedSpans.request(300, 1));

        assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(down.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        // An UNAVAILABLE without status details is not the collector's refusal: for the fault
        // run's clients it is a call without an answer.
        assertThat(LoadClients.isRefusal(down)).isFalse();
        assertThat(sink.delivered().cardinality()).isEqualTo(16);
        assertThat(sink.delivered().get(0, 15).cardinality()).isEqualTo(15);
        assertThat(sink.delivered().get(300)).isTrue();
        assertThat(sink.spans()).isEqualTo(21);
        assertThat(sink.duplicates()).isEqualTo(5);
        assertThat(sink.calls()).isEqualTo(5);
        assertThat(sink.refusedCalls()).isEqualTo(2);
        assertThat(sink.foreign()).isZero();
      } finally {
        channel.shutdownNow();
        channel.awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  private static void send(ManagedChannel channel, byte[] request) {
    ClientCalls.blockingUnaryCall(
        channel, EXPORT, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), request);
  }
}
