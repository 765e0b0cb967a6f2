package dev.sluice.processor.resourcedetection;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A machine the test describes: variables, and for each lookup either its answer or, when null, a
 * failure. A lookup can also be made to fail a number of times first, or to block.
 */
final class TestEnvironment implements DetectionEnvironment {
  final Map<String, String> variables = new HashMap<>();
  String fqdn = "host-1.example.com";
  String osHostname = "host-1";
  String reverseLookupHostname = "host-1.reverse.example.com";
  String osName = "Linux";
  String osArch = "amd64";
  String machineId = "0123456789abcdef0123456789abcdef";

  /** How many times {@link #fqdn()} fails before answering. */
  int fqdnFailuresFirst;

  /** Whether {@link #fqdn()} blocks until interrupted. */
  boolean fqdnBlocks;

  /** From which call on {@link #fqdn()} blocks until interrupted; 0 for never. */
  int fqdnBlocksFromCall;

  /**
   * Run by a call to {@link #fqdn()} just before it blocks, on the calling thread: a test moves its
   * clock past the timeout here, so the timeout falls while the lookup blocks, however slow the
   * machine.
   */
  Runnable beforeFqdnBlocks = () -> {};

  final AtomicInteger fqdnCalls = new AtomicInteger();

  TestEnvironment variable(String name, String value) {
    variables.put(name, value);
    return this;
  }

  @Override
  public String variable(String name) {
    return variables.get(name);
  }

  @Override
  public String osHostname() throws IOException {
    return answer("os hostname", osHostname);
  }

  @Override
  public String fqdn() throws IOException {
    int call = fqdnCalls.incrementAndGet();
    if (fqdnBlocks || (fqdnBlocksFromCall > 0 && call >= fqdnBlocksFromCall)) {
      beforeFqdnBlocks.run();
      try {
        Thread.sleep(Long.MAX_VALUE);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted");
      }
    }
    if (call <= fqdnFailuresFirst) {
      throw new IOException("resolver not ready (call " + call + ")");
    }
    return answer("fqdn", fqdn);
  }

  @Override
  public String reverseLookupHostname() throws IOException {
    return answer("reverse lookup", reverseLookupHostname);
  }

  @Override
  public String osName() {
    return osName;
  }

  @Override
  public String osArch() {
    return osArch;
  }

  @Override
  public String machineId() throws IOException {
    return answer("machine id", machineId);
  }

  private static String answer(String what, String value) throws IOException {
    if (value == null) {
      throw new IOException("no " + what);
    }
    return value;
  }
}
