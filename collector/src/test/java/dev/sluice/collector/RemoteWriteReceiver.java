package dev.sluice.collector;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.xerial.snappy.Snappy;
import prometheus.Remote.WriteRequest;

/**
 * A Prometheus remote-write receiver for the daemon's tests: the JDK's HTTP server on loopback,
 * which snappy-decompresses each body, parses it with the classes generated from Prometheus' own
 * {@code .proto} files and answers 204, as Prometheus does. It can refuse calls (503) and hold
 * them; a held call is never taken: when released it is answered 503 and not recorded, as a
 * receiver that had not committed what it had not answered.
 */
final class RemoteWriteReceiver implements KillLoop.Backend, AutoCloseable {
  /** The path the daemon posts to. */
  static final String PATH = "/api/v1/write";

  private final HttpServer server;

  /** One thread per call in progress, held ones included: as many as the exporter's consumers. */
  private final ExecutorService threads = Executors.newCachedThreadPool();

  private final List<WriteRequest> requests = new ArrayList<>();
  private final List<String> malformed = new ArrayList<>();
  private int refusals;
  private int calls;
  private volatile CountDownLatch gate = new CountDownLatch(0);

  private RemoteWriteReceiver() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(PATH, this::handle);
    server.setExecutor(threads);
    server.start();
  }

  /** Starts a receiver on a free loopback port. */
  static RemoteWriteReceiver start() throws IOException {
    return new RemoteWriteReceiver();
  }

  @Override
  public String endpoint() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + PATH;
  }

  @Override
  public synchronized void refuseNext(int calls) {
    refusals += calls;
  }

  @Override
  public void hold() {
    gate = new CountDownLatch(1);
  }

  @Override
  public void release() {
    gate.countDown();
  }

  /** The requests taken (answered 204), in the order they came, from the {@code from}th on. */
  synchronized List<WriteRequest> requests(int from) {
    return List.copyOf(requests.subList(from, requests.size()));
  }

  /** Why each body that could not be decoded was refused (answered 400). */
  synchronized List<String> malformed() {
    return List.copyOf(malformed);
  }

  /** Calls received, refused and held ones included. */
  synchronized int calls() {
    return calls;
  }

  @Override
  public boolean await(Supplier<Boolean> condition, long timeout, TimeUnit unit)
      throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    synchronized (this) {
      while (!condition.get()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
      return true;
    }
  }

  private void handle(HttpExchange exchange) throws IOException {
    try {
      byte[] body = exchange.getRequestBody().readAllBytes();
      CountDownLatch held = gate;
      boolean holding = held.getCount() > 0;
      try {
        held.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      WriteRequest request = null;
      String problem = null;
      try {
        request = WriteRequest.parseFrom(Snappy.uncompress(body));
      } catch (IOException e) {
        problem = e.toString();
      }
      int status;
      synchronized (this) {
        calls++;
        if (holding) {
          status = 503;
        } else if (refusals > 0) {
          refusals--;
          status = 503;
        } else if (request == null) {
          malformed.add(problem);
          status = 400;
        } else {
          requests.add(request);
          status = 204;
        }
        notifyAll();
      }
      exchange.sendResponseHeaders(status, -1);
    } finally {
      exchange.close();
    }
  }

  @Override
  public void close() {
    release();
    server.stop(0);
    threads.shutdownNow();
  }
}
