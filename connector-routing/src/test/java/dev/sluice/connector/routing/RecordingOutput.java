package dev.sluice.connector.routing;

import dev.sluice.component.Admission;
import dev.sluice.component.ConnectorOutput;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.Signal;
import dev.sluice.pdata.codec.OtlpIndex;
import dev.sluice.pdata.codec.OtlpMarshaler;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The pipelines a connector feeds, for tests: each records the requests it takes (as written out)
 * and answers {@link Admission#ACCEPTED} unless told to refuse. Like the service's output, a batch
 * handed to several pipelines is taken by those that accept; the answer is the last refusal.
 */
final class RecordingOutput implements ConnectorOutput {
  private final Signal signal;
  private final Map<String, Pipeline> pipelines;

  /** One pipeline: what it took, and its answers to come. */
  static final class Pipeline {
    private final List<byte[]> taken = new ArrayList<>();
    private final Deque<Admission> answers = new ArrayDeque<>();
    private int offers;

    synchronized List<byte[]> taken() {
      return List.copyOf(taken);
    }

    synchronized int offers() {
      return offers;
    }

    /** The next offers are answered {@code answers} in turn, then ACCEPTED again. */
    synchronized void answer(Admission... next) {
      answers.addAll(List.of(next));
    }

    synchronized Admission offer(byte[] request) {
      offers++;
      Admission answer = answers.isEmpty() ? Admission.ACCEPTED : answers.poll();
      if (answer == Admission.ACCEPTED) {
        taken.add(request);
      }
      return answer;
    }
  }

  RecordingOutput(Signal signal, String... names) {
    this(signal, new LinkedHashMap<>());
    for (String name : names) {
      pipelines.put(name, new Pipeline());
    }
  }

  private RecordingOutput(Signal signal, Map<String, Pipeline> pipelines) {
    this.signal = signal;
    this.pipelines = pipelines;
  }

  Pipeline pipeline(String name) {
    return pipelines.get(name);
  }

  @Override
  public Signal signal() {
    return signal;
  }

  @Override
  public List<String> pipelines() {
    return List.copyOf(pipelines.keySet());
  }

  @Override
  public Admission consume(Batch batch) {
    if (batch.signal() != signal) {
      throw new IllegalArgumentException("wrong signal");
    }
    byte[] request = OtlpMarshaler.toByteArray(batch);
    Admission result = Admission.ACCEPTED;
    for (Pipeline pipeline : pipelines.values()) {
      Admission answer = pipeline.offer(request);
      if (answer != Admission.ACCEPTED) {
        result = answer;
      }
    }
    if (result == Admission.ACCEPTED) {
      batch.clear();
    }
    return result;
  }

  @Override
  public Admission consume(OtlpIndex request) {
    throw new UnsupportedOperationException("routing hands on batches only");
  }

  @Override
  public ConnectorOutput to(Collection<String> names) {
    Map<String, Pipeline> chosen = new LinkedHashMap<>();
    for (String name : names) {
      Pipeline pipeline = pipelines.get(name);
      if (pipeline == null) {
        throw new IllegalArgumentException("not fed: " + name);
      }
      chosen.put(name, pipeline);
    }
    return new RecordingOutput(signal, chosen);
  }
}
