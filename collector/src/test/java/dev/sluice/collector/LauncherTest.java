package dev.sluice.collector;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/sluice} in the packaged layout ({@code bin/} beside {@code lib/sluice.jar}), run over
 * a stand-in {@code java} that prints its arguments: the JVM flags come from {@code
 * bin/jvm.options}, or all from {@code SLUICE_JAVA_OPTS}.
 */
class LauncherTest {
  private static final Path BIN = Path.of("..", "bin");
  private static final long TIMEOUT_SECONDS = 30;

  @TempDir Path dir;
  private Path jar;

  @BeforeEach
  void packagedLayout() throws IOException {
    Files.createDirectories(dir.resolve("bin"));
    Files.copy(BIN.resolve("sluice"), dir.resolve("bin/sluice"));
    Files.copy(BIN.resolve("jvm.options"), dir.resolve("bin/jvm.options"));
    jar = Files.createDirectories(dir.resolve("lib")).resolve("sluice.jar");
    Files.writeString(jar, "");
    Path java = Files.createDirectories(dir.resolve("jdk/bin")).resolve("java");
    Files.writeString(java, "#!/usr/bin/env bash\nprintf '%s\\n' \"$@\"\n");
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  /** The flags in jvm.options, read independently of the launcher. */
  private List<String> flagsInOptionsFile() throws IOException {
    List<String> flags = new ArrayList<>();
    for (String line : Files.readAllLines(BIN.resolve("jvm.options"))) {
      String flag = line.strip();
      if (!flag.isEmpty() && !flag.startsWith("#")) {
        flags.add(flag);
      }
    }
    return flags;
  }

  private List<String> launch(Map<String, String> env, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("bash", dir.resolve("bin/sluice").toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().remove("SLUICE_JAVA_OPTS");
    builder.environment().put("JAVA_HOME", dir.resolve("jdk").toString());
    builder.environment().putAll(env);
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(output).isZero();
    return output.lines().toList();
  }

  @Test
  void passesTheFlagsOfJvmOptionsThenTheJarOfTheLibFolder() throws Exception {
    List<String> expected = new ArrayList<>(flagsInOptionsFile());
    expected.addAll(
        List.of("-jar", dir.resolve("bin/../lib/sluice.jar").toString(), "validate", "--config"));

    assertThat(flagsInOptionsFile()).contains("-XX:+UseSerialGC", "-Xmx256m");
    assertThat(launch(Map.of(), "validate", "--config")).isEqualTo(expected);
  }

  @Test
  void skipsCommentsAndBlankLinesAndTrimsFlags() throws Exception {
    Files.writeString(
        dir.resolve("bin/jvm.options"), "# a comment\n\n  -Xmx64m  \n   # indented comment\n-Da=b");

    assertThat(launch(Map.of(), "components"))
        .containsExactly(
            "-Xmx64m", "-Da=b", "-jar", dir.resolve("bin/../lib/sluice.jar") + "", "components");
  }

  @Test
  void sluiceJavaOptsReplaceEveryDefaultFlag() throws Exception {
    assertThat(launch(Map.of("SLUICE_JAVA_OPTS", "-Xmx1g -Dsluice.test=1"), "components"))
        .containsExactly(
            "-Xmx1g",
            "-Dsluice.test=1",
            "-jar",
            dir.resolve("bin/../lib/sluice.jar") + "",
            "components");
  }
}
