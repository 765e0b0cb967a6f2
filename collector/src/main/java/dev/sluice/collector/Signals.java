package dev.sluice.collector;

import sun.misc.Signal;

/**
 * Turns SIGTERM and SIGINT into an orderly shutdown. Handling the signals (instead of leaving them
 * to the JVM's shutdown hooks) lets the collector drain and then exit with 0, as process
 * supervisors expect of a clean stop.
 */
final class Signals {
  private Signals() {}

  static void onTermination(Runnable action) {
    Signal.handle(new Signal("TERM"), signal -> action.run());
    Signal.handle(new Signal("INT"), signal -> action.run());
  }
}
