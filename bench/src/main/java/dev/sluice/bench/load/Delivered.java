package dev.sluice.bench.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Where the generator learns how many items arrived at the end of the pipeline, after the run:
 *
 * <ul>
 *   <li>{@code sink:URL}: the {@code items} of a {@link CountingServer}'s {@code /counts} JSON;
 *   <li>{@code floor:URL}: the {@code requests} of a floor server's {@code /counts}, times the
 *       items per request;
 *   <li>{@code metric:URL#NAME}: the sum of every series named {@code NAME} in a Prometheus text
 *       page, such as the collector's {@code sluice_exporter_blackhole_items_total} or {@code
 *       otelcol_exporter_sent_spans_total}.
 * </ul>
 *
 * Only loopback URLs are accepted.
 */
public final class Delivered {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String kind;
  private final URI uri;
  private final String metric;
  private final long itemsPerRequest;
  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private Delivered(String kind, URI uri, String metric, long itemsPerRequest) {
    this.kind = kind;
    this.uri = uri;
    this.metric = metric;
    this.itemsPerRequest = itemsPerRequest;
  }

  public static Delivered parse(String spec, long itemsPerRequest) {
    int colon = spec.indexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException(
          "expected sink:URL, floor:URL or metric:URL#NAME: " + spec);
    }
    String kind = spec.substring(0, colon);
    String rest = spec.substring(colon + 1);
    String metric = null;
    if (kind.equals("metric")) {
      int hash = rest.lastIndexOf('#');
      if (hash < 0) {
        throw new IllegalArgumentException("metric:URL#NAME needs the metric name: " + spec);
      }
      metric = rest.substring(hash + 1);
      rest = rest.substring(0, hash);
    } else if (!kind.equals("sink") && !kind.equals("floor")) {
      throw new IllegalArgumentException("unknown delivery source " + kind + " in " + spec);
    }
    URI uri = URI.create(rest);
    requireLoopback(uri.getHost());
    return new Delivered(kind, uri, metric, itemsPerRequest);
  }

  static void requireLoopback(String host) {
    try {
      if (host == null || !InetAddress.getByName(host).isLoopbackAddress()) {
        throw new IllegalArgumentException("only loopback addresses are allowed, not " + host);
      }
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot resolve " + host, e);
    }
  }

  public String describe() {
    return kind + ":" + uri + (metric == null ? "" : "#" + metric);
  }

  /** Items delivered so far. */
  public long items() throws IOException, InterruptedException {
    HttpResponse<String> response =
        client.send(
            HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException(uri + " answered " + response.statusCode());
    }
    return switch (kind) {
      case "sink" -> JSON.readTree(response.body()).path("items").asLong(-1);
      case "floor" -> {
        JsonNode counts = JSON.readTree(response.body());
        yield counts.path("requests").asLong() * itemsPerRequest;
      }
      default -> sumSeries(response.body(), metric);
    };
  }

  /** The sum of the samples of every series named {@code name} in Prometheus text. */
  static long sumSeries(String text, String name) {
    double sum = 0;
    boolean found = false;
    for (String line : text.split("\n")) {
      if (line.startsWith("#") || !line.startsWith(name)) {
        continue;
      }
      int end = name.length();
      if (line.length() == end || (line.charAt(end) != '{' && line.charAt(end) != ' ')) {
        continue;
      }
      // The sample follows the labels (or the name); a timestamp may follow it.
      String sample =
          line.indexOf('}') > 0 ? line.substring(line.lastIndexOf('}') + 1) : line.substring(end);
      String value = sample.trim().split("\\s+")[0];
      sum += Double.parseDouble(value);
      found = true;
    }
    if (!found) {
      throw new IllegalStateException("no series named " + name);
    }
    return Math.round(sum);
  }
}
