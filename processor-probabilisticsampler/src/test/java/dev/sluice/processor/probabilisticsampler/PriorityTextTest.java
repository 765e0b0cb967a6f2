package dev.sluice.processor.probabilisticsampler;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A string {@code sampling.priority} reads as Go's {@code strconv.ParseFloat} reads it. */
class PriorityTextTest {
  @Test
  void classifiesEveryTableStringAsGoParseFloatDoes() throws IOException {
    Map<String, String> expected = new LinkedHashMap<>();
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(
                getClass().getResourceAsStream("go-priority-strings.tsv"),
                StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (!line.startsWith("#")) {
          String[] cells = line.split("\t");
          expected.put(cells[0].substring(1, cells[0].length() - 1), cells[1]);
        }
      }
    }
    Map<String, String> actual = new LinkedHashMap<>();
    for (String text : expected.keySet()) {
      byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
      int decision = PriorityText.classify(bytes, 0, bytes.length);
      actual.put(
          text,
          decision == PriorityText.ZERO
              ? "drop"
              : decision == PriorityText.POSITIVE ? "keep" : "defer");
    }
    assertThat(actual).isEqualTo(expected);
    assertThat(expected).hasSizeGreaterThan(50).containsValues("drop", "keep", "defer");
  }
}
