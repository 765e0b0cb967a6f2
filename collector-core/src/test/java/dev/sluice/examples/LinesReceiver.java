package dev.sluice.examples;

import dev.sluice.component.Admission;
import dev.sluice.component.ComponentSettings;
import dev.sluice.component.Endpoint;
import dev.sluice.component.Receiver;
import dev.sluice.component.RequestConsumer;
import dev.sluice.pdata.build.TracesBuilder;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.view.SpanView;
import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Listens on a TCP endpoint for lines {@code service,span-name,duration-ms}, makes each line a
 * request of one span (ending now, with random IDs) and hands it to the pipelines. Answers each
 * line with one line once the pipelines have answered: {@code OK}, {@code FULL <retry-ms>}, {@code
 * CLOSED}, {@code FAILED}, or {@code ERROR <why>} for a line it cannot read.
 *
 * <p>One thread per connection: each has its own {@link TracesBuilder}, since a builder is not
 * thread-safe.
 */
final class LinesReceiver implements Receiver {
  private static final long NANOS_PER_MILLI = 1_000_000;

  private final Endpoint endpoint;
  private final RequestConsumer consumer;
  private final Logger logger;
  private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
  private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
  private volatile ServerSocket server;

  LinesReceiver(ComponentSettings settings, LinesReceiverConfig config, RequestConsumer consumer) {
    this.endpoint = Endpoint.parse(config.endpoint());
    this.consumer = consumer;
    this.logger = settings.logger();
  }

  @Override
  public void start() throws IOException {
    server = new ServerSocket();
    server.bind(endpoint.socketAddress());
    startThread("accept", this::acceptLoop);
  }

  /** The port it listens on (the one bound when the endpoint says port 0). */
  int port() {
    return server.getLocalPort();
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket socket = server.accept();
        connections.add(socket);
        startThread("connection", () -> serve(socket));
      } catch (IOException e) {
        if (!server.isClosed()) {
          logger.log(Level.WARNING, "accept failed", e);
        }
      }
    }
  }

  private void serve(Socket socket) {
    TracesBuilder traces = new TracesBuilder(); // this connection's own, reused line after line
    try (socket;
        BufferedReader lines =
            new BufferedReader(
                new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8))) {
      OutputStream answers = socket.getOutputStream();
      String line;
      while ((line = lines.readLine()) != null) {
        answers.write((answer(traces, line) + "\n").getBytes(StandardCharsets.UTF_8));
        answers.flush();
      }
    } catch (IOException e) {
      // The client went away, or shutdown closed the socket.
    } finally {
      connections.remove(socket);
    }
  }

  /** Makes the line a request, offers it, and waits for the pipelines' answer. */
  private String answer(TracesBuilder traces, String line) {
    if (consumer == null) {
      return "ERROR this receiver is in no traces pipeline";
    }
    String[] fields = line.split(",", -1);
    long durationMillis;
    try {
      durationMillis = fields.length == 3 ? Long.parseLong(fields[2].trim()) : -1;
    } catch (NumberFormatException e) {
      durationMillis = -1;
    }
    if (durationMillis < 0 || fields[0].isBlank() || fields[1].isBlank()) {
      return "ERROR expected service,span-name,duration-ms";
    }
    OtlpIndex request;
    try {
      request = build(traces, fields[0].trim(), fields[1].trim(), durationMillis);
    } catch (IllegalArgumentException | IllegalStateException e) {
      return "ERROR " + e.getMessage();
    } finally {
      traces.reset();
    }
    CompletableFuture<Admission> answered = new CompletableFuture<>();
    consumer.consume(request, answered::complete);
    // This thread is the connection's own, so it may wait: the answer may come from another one
    // (a durable pipeline answers once the request is in its log).
    Admission admission = answered.join();
    return switch (admission) {
      case ACCEPTED -> "OK";
      case FULL -> "FULL " + consumer.retryDelayMillis();
      case CLOSED, FAILED -> admission.name();
    };
  }

  private static OtlpIndex build(
      TracesBuilder traces, String service, String name, long durationMillis) {
    byte[] traceId = new byte[16];
    byte[] spanId = new byte[8];
    ThreadLocalRandom.current().nextBytes(traceId);
    ThreadLocalRandom.current().nextBytes(spanId);
    long end = System.currentTimeMillis() * NANOS_PER_MILLI;
    traces.resource().attributes().put("service.name", service);
    traces.scope().name("dev.sluice.examples.lines");
    traces
        .span()
        .traceId(traceId)
        .spanId(spanId)
        .name(name)
        .kind(SpanView.KIND_INTERNAL)
        .startTimeUnixNano(end - durationMillis * NANOS_PER_MILLI)
        .endTimeUnixNano(end);
    return traces.build(); // validated and indexed, as a receiver's indexer does
  }

  private void startThread(String role, Runnable body) {
    Thread thread =
        new Thread(
            () -> {
              try {
                body.run();
              } finally {
                threads.remove(Thread.currentThread());
              }
            },
            "sluice-lines-" + role);
    thread.setDaemon(true);
    threads.add(thread);
    thread.start();
  }

  @Override
  public void shutdown(long deadlineNanos) throws InterruptedException {
    ServerSocket listening = server;
    if (listening == null) {
      return;
    }
    close(listening);
    connections.forEach(LinesReceiver::close);
    for (Thread thread : threads) {
      long left = deadlineNanos - System.nanoTime();
      if (left > 0) {
        TimeUnit.NANOSECONDS.timedJoin(thread, left);
      }
    }
  }

  private static void close(Closeable closeable) {
    try {
      closeable.close();
    } catch (IOException e) {
      // Closing to stop: nothing left to do.
    }
  }
}
