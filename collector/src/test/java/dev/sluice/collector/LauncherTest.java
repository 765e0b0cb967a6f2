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
 * bin/jvm.options}, or all from {@code SLUICE_JAVA_OPTS}; the sidecar profile's from {@code
 * bin/jvm-sidecar.options}, on the newest JDK 25+ it finds.
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
    Files.copy(BIN.resolve("jvm-sidecar.options"), dir.resolve("bin/jvm-sidecar.options"));
    jar = Files.createDirectories(dir.resolve("lib")).resolve("sluice.jar");
    Files.writeString(jar, "");
    Path java = Files.createDirectories(dir.resolve("jdk/bin")).resolve("java");
    Files.writeString(java, "#!/usr/bin/env bash\nprintf '%s\\n' \"$@\"\n");
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  /** The flags in jvm.options, read independently of the launcher. */
  private List<String> flagsInOptionsFile() throws IOException {
    return flagsInOptionsFile("jvm.options", 17);
  }

  /** The flags of an options file that a JDK of {@code feature} runs with. */
  private static List<String> flagsInOptionsFile(String file, int feature) throws IOException {
    List<String> flags = new ArrayList<>();
    for (String line : Files.readAllLines(BIN.resolve(file))) {
      String flag = line.strip();
      if (flag.isEmpty() || flag.startsWith("#")) {
        continue;
      }
      if (flag.startsWith("[")) {
        int end = flag.indexOf("+]");
        if (feature < Integer.parseInt(flag.substring(1, end))) {
          continue;
        }
        flag = flag.substring(end + 2).strip();
      }
      flags.add(flag);
    }
    return flags;
  }

  /**
   * A stand-in JDK home under {@code parent} whose release file says {@code version} and whose java
   * prints which home it is, then its arguments.
   */
  private Path jdk(Path parent, String name, String version) throws IOException {
    Path home = Files.createDirectories(parent.resolve(name));
    Files.writeString(home.resolve("release"), "JAVA_VERSION=\"" + version + "\"\n");
    Path java = Files.createDirectories(home.resolve("bin")).resolve("java");
    Files.writeString(
        java, "#!/usr/bin/env bash\necho \"java of " + name + "\"\nprintf '%s\\n' \"$@\"\n");
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
    return home;
  }

  private List<String> sidecarLine(String jdkName, int feature, String... args) throws IOException {
    List<String> expected = new ArrayList<>(List.of("java of " + jdkName));
    expected.addAll(flagsInOptionsFile("jvm-sidecar.options", feature));
    expected.add("-Dsluice.profile=sidecar");
    expected.addAll(List.of("-jar", dir.resolve("bin/../lib/sluice.jar").toString()));
    expected.addAll(List.of(args));
    return expected;
  }

  private List<String> launch(Map<String, String> env, String... args) throws Exception {
    return launch(0, env, args);
  }

  private List<String> launch(int exitCode, Map<String, String> env, String... args)
      throws Exception {
    List<String> command = new ArrayList<>(List.of("bash", dir.resolve("bin/sluice").toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().remove("SLUICE_JAVA_OPTS");
    builder.environment().remove("SLUICE_PROFILE");
    builder.environment().remove("SLUICE_SIDECAR_JAVA");
    builder.environment().remove("SLUICE_AOT_CACHE");
    builder.environment().remove("SLUICE_AOT_TRAIN");
    builder.environment().put("JAVA_HOME", dir.resolve("jdk").toString());
    // No JDK to prefer for the sidecar profile unless a test lays one out.
    builder.environment().put("SLUICE_JVM_DIR", dir.resolve("no-jvms").toString());
    builder.environment().putAll(env);
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(output).isEqualTo(exitCode);
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

  @Test
  void defaultProfileByNameRunsTheDefaultFlagsUnchanged() throws Exception {
    List<String> expected = new ArrayList<>(flagsInOptionsFile());
    expected.addAll(List.of("-jar", dir.resolve("bin/../lib/sluice.jar").toString(), "components"));

    assertThat(launch(Map.of(), "--profile", "default", "components")).isEqualTo(expected);
    assertThat(launch(Map.of("SLUICE_PROFILE", "default"), "components")).isEqualTo(expected);
  }

  @Test
  void sidecarProfilePrefersTheNewestJdk25OrLaterWithItsFlags() throws Exception {
    Path jvms = dir.resolve("jvms");
    jdk(jvms, "jdk-17", "17.0.15");
    jdk(jvms, "jdk-25", "25.0.3");
    jdk(jvms, "jdk-21", "21.0.2");
    jdk(dir, "jdk", "17.0.15");

    assertThat(
            launch(
                Map.of("SLUICE_JVM_DIR", jvms.toString()),
                "--profile",
                "sidecar",
                "run",
                "--config",
                "x.yaml"))
        .isEqualTo(sidecarLine("jdk-25", 25, "run", "--config", "x.yaml"))
        .contains("-XX:+UseCompactObjectHeaders");
  }

  @Test
  void sidecarProfileOnJava17LeavesOutTheFlagsOfNewerJdks() throws Exception {
    jdk(dir, "jdk", "17.0.15");

    assertThat(launch(Map.of(), "--profile=sidecar", "components"))
        .isEqualTo(sidecarLine("jdk", 17, "components"))
        .contains("-XX:TieredStopAtLevel=1")
        .doesNotContain("-XX:+UseCompactObjectHeaders");
  }

  @Test
  void sidecarProfileFromTheEnvironmentAndAChosenJava() throws Exception {
    Path chosen = jdk(dir.resolve("elsewhere"), "my-jdk", "25.0.1");
    jdk(dir, "jdk", "17.0.15");

    assertThat(
            launch(
                Map.of("SLUICE_PROFILE", "sidecar", "SLUICE_SIDECAR_JAVA", chosen.toString()),
                "components"))
        .isEqualTo(sidecarLine("my-jdk", 25, "components"));
  }

  @Test
  void sidecarProfileKeepsAJavaHomeThatIsNewEnough() throws Exception {
    Path jvms = dir.resolve("jvms");
    jdk(jvms, "jdk-25", "25.0.3");
    jdk(dir, "jdk", "26.0.1");

    assertThat(launch(Map.of("SLUICE_JVM_DIR", jvms.toString()), "--profile", "sidecar"))
        .isEqualTo(sidecarLine("jdk", 26));
  }

  @Test
  void sluiceJavaOptsReplaceTheSidecarFlagsButNotItsSizing() throws Exception {
    assertThat(launch(Map.of("SLUICE_JAVA_OPTS", "-Xmx40m"), "--profile", "sidecar", "components"))
        .containsExactly(
            "-Xmx40m",
            "-Dsluice.profile=sidecar",
            "-jar",
            dir.resolve("bin/../lib/sluice.jar") + "",
            "components");
  }

  @Test
  void unknownProfileIsRefused() throws Exception {
    assertThat(launch(2, Map.of(), "--profile", "gateway", "components"))
        .containsExactly("sluice: unknown profile 'gateway'; profiles: default, sidecar");
  }

  @Test
  void sidecarProfileOnJdk25UsesTheAotCacheBesideTheJarWhenThereIsOne() throws Exception {
    jdk(dir, "jdk", "25.0.3");
    String cache = dir.resolve("bin/../lib/sluice-sidecar.aot").toString();

    assertThat(launch(Map.of(), "--profile", "sidecar")).doesNotContain("-XX:AOTCache=" + cache);
    Files.writeString(dir.resolve("lib/sluice-sidecar.aot"), "");
    List<String> expected = sidecarLine("jdk", 25);
    expected.add(expected.indexOf("-Dsluice.profile=sidecar"), "-XX:AOTCache=" + cache);
    assertThat(launch(Map.of(), "--profile", "sidecar")).isEqualTo(expected);
  }

  @Test
  void aotTrainingRunWritesTheCacheWhereTheProfileLooksForIt() throws Exception {
    jdk(dir, "jdk", "25.0.3");
    Path cache = dir.resolve("elsewhere.aot");

    assertThat(
            launch(
                Map.of("SLUICE_AOT_TRAIN", "1", "SLUICE_AOT_CACHE", cache.toString()),
                "--profile",
                "sidecar"))
        .contains("-XX:AOTCacheOutput=" + cache)
        .noneMatch(arg -> arg.startsWith("-XX:AOTCache="));
  }

  @Test
  void noAotCacheOnJava17OrWithTheDefaultProfile() throws Exception {
    jdk(dir, "jdk", "17.0.15");
    Files.writeString(dir.resolve("lib/sluice-sidecar.aot"), "");

    assertThat(launch(Map.of(), "--profile", "sidecar"))
        .isEqualTo(sidecarLine("jdk", 17))
        .noneMatch(arg -> arg.startsWith("-XX:AOT"));
    jdk(dir, "jdk", "25.0.3");
    assertThat(launch(Map.of())).noneMatch(arg -> arg.startsWith("-XX:AOT"));
  }
}
