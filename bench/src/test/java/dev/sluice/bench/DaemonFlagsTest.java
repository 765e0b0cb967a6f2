package dev.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Fork;

/**
 * A JMH fork's flags are constants in an annotation, so {@link ReceiveCopyBenchmark} cannot read
 * {@code bin/jvm.options}; this keeps its copy equal to the file.
 */
class DaemonFlagsTest {
  private static final Path JVM_OPTIONS = Path.of("..", "bin", "jvm.options");

  @Test
  void receiveCopyBenchmarkForksWithTheFlagsOfJvmOptions() throws Exception {
    List<String> daemon = new ArrayList<>();
    for (String line : Files.readAllLines(JVM_OPTIONS)) {
      String flag = line.strip();
      if (!flag.isEmpty() && !flag.startsWith("#")) {
        daemon.add(flag);
      }
    }
    List<String> fork =
        new ArrayList<>(
            List.of(ReceiveCopyBenchmark.class.getAnnotation(Fork.class).jvmArgsAppend()));
    // What the collector's jar manifest asks for, which a fork on the class path must be given.
    fork.removeAll(List.of("--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED"));

    assertThat(daemon).isNotEmpty();
    assertThat(fork).containsExactlyElementsOf(daemon);
  }
}
