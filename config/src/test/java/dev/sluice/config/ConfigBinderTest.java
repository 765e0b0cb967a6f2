package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.component.ComponentConfig;
import dev.sluice.component.ConfigProblems;
import dev.sluice.component.OptionalSection;
import dev.sluice.component.QueueConfig;
import dev.sluice.config.fixtures.OtlpExporterFactory;
import dev.sluice.config.fixtures.OtlpReceiverFactory;
import dev.sluice.processor.batch.BatchConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigBinderTest {
  enum Mode {
    FAST,
    SLOW_AND_STEADY
  }

  record Inner(String name, int weight) {
    static final Inner DEFAULT = new Inner("unnamed", 1);
  }

  /** Has no DEFAULT field: its own default is zero values. */
  record Bare(String name, int weight, List<String> tags, Duration delay) {}

  record Kitchen(
      String text,
      int count,
      long big,
      double ratio,
      boolean flag,
      Integer boxed,
      short small,
      Duration delay,
      Mode mode,
      List<String> tags,
      List<Inner> inners,
      Map<String, String> labels,
      Map<String, Inner> named,
      Inner inner,
      Inner absentInner,
      Bare bare,
      @OptionalSection Inner optionalInner,
      @OptionalSection Bare optionalBare)
      implements ComponentConfig {
    Kitchen withOptionalInner(Inner value) {
      return new Kitchen(
          text,
          count,
          big,
          ratio,
          flag,
          boxed,
          small,
          delay,
          mode,
          tags,
          inners,
          labels,
          named,
          inner,
          absentInner,
          bare,
          value,
          optionalBare);
    }

    Kitchen withInnerWeight(int weight) {
      return new Kitchen(
          text,
          count,
          big,
          ratio,
          flag,
          boxed,
          small,
          delay,
          mode,
          tags,
          inners,
          labels,
          named,
          new Inner(inner.name(), weight),
          absentInner,
          bare,
          optionalInner,
          optionalBare);
    }

    @Override
    public void validate(ConfigProblems problems) {
      if (count < 0) {
        problems.add("count", "must not be negative");
      }
      if (inner.weight() > 100) {
        problems.under("inner").add("weight", "must be at most 100");
      }
      if (tags.contains("bad")) {
        problems.add("tags[" + tags.indexOf("bad") + "]", "is not allowed");
      }
      if (named.containsKey("a.b") && named.get("a.b").weight() == 0) {
        problems.add("named.a.b.weight", "must not be 0");
      }
      if (bare != null && bare.weight() < 0) {
        problems.add("bare.weight", "must not be negative");
      }
    }
  }

  static final Kitchen DEFAULTS =
      new Kitchen(
          "text",
          1,
          2L,
          0.5,
          false,
          7,
          (short) 3,
          Duration.ofSeconds(1),
          Mode.FAST,
          List.of("a"),
          List.of(),
          Map.of("k", "v"),
          Map.of("x", new Inner("xname", 5)),
          new Inner("in", 3),
          null,
          null,
          new Inner("opt", 9),
          null);

  record Strict(String name) {
    Strict {
      if (name.isBlank()) {
        throw new IllegalArgumentException("name must not be blank");
      }
    }
  }

  record Untyped(Object value, List<Object> values) {}

  private final Diagnostics diagnostics = new Diagnostics();

  private <R> R bind(String yaml, Class<R> type, R defaults, Map<String, String> env)
      throws ConfigException {
    ConfigNode root = new YamlReader("t.yaml", EnvExpander.of(env), diagnostics).read(yaml);
    return new ConfigBinder().bindSection(root, root.location(), "", type, defaults, diagnostics);
  }

  private Kitchen bind(String yaml) throws ConfigException {
    return bind(yaml, Kitchen.class, DEFAULTS, Map.of());
  }

  private List<String> errors() {
    return diagnostics.errors().stream().map(ConfigProblem::toString).toList();
  }

  @Test
  void keysAreTheSnakeCaseFormsOfComponentNames() throws ConfigException {
    BatchConfig batch =
        bind(
            "send_batch_size: 100\nsend_batch_max_size: 200\ntimeout: 1s\n",
            BatchConfig.class,
            BatchConfig.DEFAULT,
            Map.of());
    assertThat(batch).isEqualTo(new BatchConfig(100, 200, Duration.ofSeconds(1)));
  }

  @Test
  void anObjectComponentTakesTheTypeTheFileGivesIt() throws ConfigException {
    Untyped u =
        bind(
            "value: {a: 1, b: [true, x]}\nvalues: [7, 2.5, true, \"7\", text, 0x10]\n",
            Untyped.class,
            null,
            Map.of());
    assertThat(u.value()).isEqualTo(Map.of("a", 1L, "b", List.of(true, "x")));
    assertThat(u.values()).containsExactly(7L, 2.5, true, "7", "text", 16L);
  }

  @Test
  void anObjectComponentRefusesAnIntegerBeyondInt64() throws ConfigException {
    assertThat(bind("value: 9223372036854775808\n", Untyped.class, null, Map.of())).isNull();
    assertThat(errors()).singleElement().asString().contains("value", "expected an integer");
  }

  @Test
  void keysLeftOutKeepTheDefaultsAtEveryDepth() throws ConfigException {
    Kitchen k = bind("count: 5\ninner:\n  weight: 4\n");
    assertThat(k.count()).isEqualTo(5);
    assertThat(k.text()).isEqualTo("text");
    assertThat(k.inner()).isEqualTo(new Inner("in", 4));
    assertThat(k.labels()).isEqualTo(Map.of("k", "v"));
    assertThat(k.delay()).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void anEmptySectionIsTheDefaultConfig() throws ConfigException {
    assertThat(bind("")).isEqualTo(DEFAULTS.withOptionalInner(null));
  }

  @Test
  void nullOrEmptyValuesMeanLeftOut() throws ConfigException {
    Kitchen k = bind("text:\ncount: ~\ndelay: null\ntags:\n");
    assertThat(k.text()).isEqualTo("text");
    assertThat(k.count()).isEqualTo(1);
    assertThat(k.delay()).isEqualTo(Duration.ofSeconds(1));
    assertThat(k.tags()).containsExactly("a");
  }

  @Test
  void optionalSectionLeftOutIsNullEvenWhenTheDefaultHasOne() throws ConfigException {
    assertThat(bind("count: 2\n").optionalInner()).isNull();
  }

  @Test
  void optionalSectionGivenEmptyTakesTheDefaultConfigsSection() throws ConfigException {
    assertThat(bind("optional_inner:\n").optionalInner()).isEqualTo(new Inner("opt", 9));
    assertThat(bind("optional_inner: {}\n").optionalInner()).isEqualTo(new Inner("opt", 9));
  }

  @Test
  void optionalSectionGivenWithKeysOverridesTheDefaultConfigsSection() throws ConfigException {
    assertThat(bind("optional_inner: {weight: 2}\n").optionalInner())
        .isEqualTo(new Inner("opt", 2));
  }

  @Test
  void optionalSectionWithoutDefaultUsesTheTypesZeroValues() throws ConfigException {
    assertThat(bind("optional_bare:\n").optionalBare())
        .isEqualTo(new Bare(null, 0, List.of(), null));
  }

  @Test
  void sectionWithoutDefaultUsesTheTypesDefaultField() throws ConfigException {
    assertThat(bind("absent_inner:\n").absentInner()).isEqualTo(Inner.DEFAULT);
    assertThat(bind("absent_inner: {weight: 8}\n").absentInner())
        .isEqualTo(new Inner("unnamed", 8));
    assertThat(bind("count: 1\n").absentInner()).isNull();
  }

  @Test
  void otlpProtocolsAreSwitchedOnByPresence() throws ConfigException {
    OtlpReceiverFactory.Config grpcOnly =
        bind(
            "protocols:\n  grpc:\n",
            OtlpReceiverFactory.Config.class,
            OtlpReceiverFactory.DEFAULT,
            Map.of());
    assertThat(grpcOnly.protocols().grpc())
        .isEqualTo(OtlpReceiverFactory.DEFAULT.protocols().grpc());
    assertThat(grpcOnly.protocols().http()).isNull();
  }

  @Test
  void protocolsLeftOutSwitchEveryProtocolOffAndValidationSaysSo() throws ConfigException {
    OtlpReceiverFactory.Config none =
        bind("", OtlpReceiverFactory.Config.class, OtlpReceiverFactory.DEFAULT, Map.of());
    assertThat(none).isNotNull();
    assertThat(none.protocols().grpc()).isNull();
    assertThat(none.protocols().http()).isNull();
    assertThat(errors())
        .containsExactly(
            "t.yaml:1:1: protocols: must specify at least one protocol when using the OTLP"
                + " receiver");
  }

  @Test
  void bindsEveryScalarType() throws ConfigException {
    Kitchen k =
        bind(
            """
            text: 42
            count: -3
            big: 9000000000
            ratio: 2
            flag: true
            boxed: 0x10
            small: 1_000
            delay: 1m30s
            mode: Slow_And_Steady
            """);
    assertThat(k.text()).isEqualTo("42");
    assertThat(k.big()).isEqualTo(9_000_000_000L);
    assertThat(k.ratio()).isEqualTo(2.0);
    assertThat(k.flag()).isTrue();
    assertThat(k.boxed()).isEqualTo(16);
    assertThat(k.small()).isEqualTo((short) 1000);
    assertThat(k.delay()).isEqualTo(Duration.ofSeconds(90));
    assertThat(k.mode()).isEqualTo(Mode.SLOW_AND_STEADY);
  }

  @Test
  void stringsFromTheEnvironmentConvertToNumbersBooleansAndDurations() throws ConfigException {
    Kitchen k =
        bind(
            "count: ${env:COUNT}\nratio: ${RATIO}\nflag: ${FLAG}\ndelay: ${WAIT}\nbig: \"12\"\n",
            Kitchen.class,
            DEFAULTS,
            Map.of("COUNT", "17", "RATIO", "0.25", "FLAG", "TRUE", "WAIT", "250ms"));
    assertThat(k.count()).isEqualTo(17);
    assertThat(k.ratio()).isEqualTo(0.25);
    assertThat(k.flag()).isTrue();
    assertThat(k.delay()).isEqualTo(Duration.ofMillis(250));
    assertThat(k.big()).isEqualTo(12L);
  }

  @Test
  void anUnsetVariableLeavesTheDefaultInPlace() throws ConfigException {
    Kitchen k = bind("count: ${env:UNSET}\n");
    assertThat(k.count()).isEqualTo(1);
    assertThat(diagnostics.warnings()).hasSize(1);
  }

  @Test
  void bindsListsAndMapsOfScalarsAndRecords() throws ConfigException {
    Kitchen k =
        bind(
            """
            tags: [b, c]
            inners:
              - name: one
              - weight: 2
              -
            labels: {z: 1, y: two}
            named:
              x: {weight: 6}
              fresh: {name: f}
            """);
    assertThat(k.tags()).containsExactly("b", "c");
    assertThat(k.inners())
        .containsExactly(new Inner("one", 1), new Inner("unnamed", 2), Inner.DEFAULT);
    assertThat(k.labels()).containsExactly(Map.entry("z", "1"), Map.entry("y", "two"));
    assertThat(k.named())
        .containsExactly(
            Map.entry("x", new Inner("xname", 6)), Map.entry("fresh", new Inner("f", 1)));
    assertThatThrownBy(() -> k.tags().add("d")).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void unknownKeysNameTheValidKeysAndSuggestTheClosest() throws ConfigException {
    assertThat(bind("inner:\n  wieght: 3\n")).isNull();
    assertThat(errors())
        .containsExactly(
            "t.yaml:2:3: inner.wieght: unknown key \"wieght\" (did you mean \"weight\"?); valid"
                + " keys: name, weight");
  }

  @Test
  void wrongTypesSayWhatWasExpected() throws ConfigException {
    bind(
        """
        text: {a: 1}
        count: abc
        ratio: [1]
        flag: yes
        delay: 5x
        mode: medium
        tags: a
        inner: 5
        inners: [~]
        labels: {a: [1]}
        small: 1.5
        """);
    assertThat(errors())
        .containsExactly(
            "t.yaml:1:1: text: expected a string, found a mapping",
            "t.yaml:2:1: count: expected an integer, found \"abc\"",
            "t.yaml:3:1: ratio: expected a number, found a list",
            "t.yaml:4:1: flag: expected true or false, found \"yes\"",
            "t.yaml:5:1: delay: expected a duration such as 5s or 200ms, found \"5x\"",
            "t.yaml:6:1: mode: expected one of fast, slow_and_steady, found \"medium\"",
            "t.yaml:7:1: tags: expected a list, found \"a\"",
            "t.yaml:8:1: inner: expected a mapping, found 5",
            "t.yaml:10:10: labels.a: expected a string, found a list",
            "t.yaml:11:1: small: expected an integer, found 1.5");
  }

  @Test
  void aNullListElementOfScalarsIsAnError() throws ConfigException {
    bind("tags: [a, ~]\n");
    assertThat(errors())
        .containsExactly("t.yaml:1:11: tags[1]: expected a string, found an empty value");
  }

  @Test
  void numbersOutOfRangeAreErrors() throws ConfigException {
    bind("count: 3000000000\nsmall: -40000\nbig: 99999999999999999999\ndelay: 3000000h\n");
    assertThat(errors())
        .containsExactly(
            "t.yaml:1:1: count: expected an integer between -2147483648 and 2147483647, found"
                + " 3000000000",
            "t.yaml:2:1: small: expected an integer between -32768 and 32767, found -40000",
            "t.yaml:3:1: big: expected an integer between -9223372036854775808 and"
                + " 9223372036854775807, found 99999999999999999999",
            "t.yaml:4:1: delay: duration 3000000h is out of range");
  }

  @Test
  void aBareNumberIsNotADurationButZeroIs() throws ConfigException {
    assertThat(bind("delay: 0\n").delay()).isZero();
    bind("delay: 5\n");
    assertThat(errors())
        .containsExactly("t.yaml:1:1: delay: expected a duration such as 5s or 200ms, found 5");
  }

  @Test
  void anIntegralFloatIsAnInteger() throws ConfigException {
    assertThat(bind("count: 1e3\n").count()).isEqualTo(1000);
  }

  @Test
  void validationProblemsPointAtTheKeyTheyConcern() throws ConfigException {
    bind(
        """
        count: -1
        inner:
          name: x
          weight: 500
        tags: [ok, bad]
        named:
          a.b:
            weight: 0
        bare:
          weight: -2
        """);
    assertThat(errors())
        .containsExactly(
            "t.yaml:1:1: count: must not be negative",
            "t.yaml:4:3: inner.weight: must be at most 100",
            "t.yaml:5:12: tags[1]: is not allowed",
            "t.yaml:8:5: named.a.b.weight: must not be 0",
            "t.yaml:10:3: bare.weight: must not be negative");
  }

  @Test
  void validationProblemsForKeysLeftOutPointAtTheNearestEnclosingKey() throws ConfigException {
    bind("inner:\n  name: heavy\n", Kitchen.class, DEFAULTS.withInnerWeight(101), Map.of());
    assertThat(errors()).containsExactly("t.yaml:1:1: inner.weight: must be at most 100");
  }

  @Test
  void doesNotValidateWhatFailedToBind() throws ConfigException {
    assertThat(bind("count: -1\nflag: maybe\n")).isNull();
    assertThat(errors())
        .containsExactly("t.yaml:2:1: flag: expected true or false, found \"maybe\"");
  }

  @Test
  void exporterQueueAndRetryAreValidatedWhenEnabled() throws ConfigException {
    bind(
        """
        endpoint: backend:4317
        sending_queue:
          num_consumers: 0
          sizer: bytes
        retry_on_failure:
          multiplier: 0.5
        """,
        OtlpExporterFactory.Config.class,
        OtlpExporterFactory.DEFAULT,
        Map.of());
    assertThat(errors())
        .containsExactly(
            "t.yaml:3:3: sending_queue.num_consumers: must be at least 1, was 0",
            "t.yaml:6:3: retry_on_failure.multiplier: must be at least 1, was 0.5");
  }

  @Test
  void disabledQueueAndRetryAreNotValidated() throws ConfigException {
    OtlpExporterFactory.Config c =
        bind(
            """
            endpoint: backend:4317
            sending_queue: {enabled: false, num_consumers: 0}
            retry_on_failure: {enabled: false, multiplier: 0.5}
            """,
            OtlpExporterFactory.Config.class,
            OtlpExporterFactory.DEFAULT,
            Map.of());
    assertThat(errors()).isEmpty();
    assertThat(c.sendingQueue())
        .isEqualTo(new QueueConfig(false, 0, 1000, QueueConfig.Sizer.REQUESTS, false, false, null));
  }

  @Test
  void aConstructorsRejectionIsReportedAtTheSection() throws ConfigException {
    bind("name: \" \"\n", Strict.class, new Strict("ok"), Map.of());
    assertThat(errors()).containsExactly("t.yaml:1:1: name must not be blank");
  }

  @Test
  void bindsYamlTextForComponentAuthorsTests() throws ConfigException {
    assertThat(
            new ConfigBinder()
                .bind("timeout: 2s\n", "batch.yaml", BatchConfig.class, BatchConfig.DEFAULT))
        .isEqualTo(new BatchConfig(8192, 0, Duration.ofSeconds(2)));
    assertThatThrownBy(
            () ->
                new ConfigBinder()
                    .bind(
                        "send_batch_size: 0\n",
                        "batch.yaml",
                        BatchConfig.class,
                        BatchConfig.DEFAULT))
        .hasMessage("batch.yaml:1:1: send_batch_size: must be at least 1, was 0");
  }

  @Test
  void theSnakeCaseOfRunsOfCapitalsIsOneWord() {
    assertThat(Names.snakeCase("sendBatchMaxSize")).isEqualTo("send_batch_max_size");
    assertThat(Names.snakeCase("http2PingTimeout")).isEqualTo("http2_ping_timeout");
    assertThat(Names.snakeCase("tlsCAFile")).isEqualTo("tls_ca_file");
    assertThat(Names.snakeCase("limitMib")).isEqualTo("limit_mib");
    assertThat(Names.snakeCase("static_")).isEqualTo("static");
  }

  @Test
  void thePublicBindThrowsEveryProblem() throws ConfigException {
    ConfigNode node =
        new YamlReader("t.yaml", EnvExpander.of(Map.of()), diagnostics).read("count: x\nnope: 1\n");
    assertThatThrownBy(() -> new ConfigBinder().bind(node, "k", Kitchen.class, DEFAULTS))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "t.yaml:1:1: k.count: expected an integer, found \"x\"\n"
                + "t.yaml:2:1: k.nope: unknown key \"nope\"; valid keys: text, count, big, ratio,"
                + " flag, boxed, small, delay, mode, tags, inners, labels, named, inner,"
                + " absent_inner, bare, optional_inner, optional_bare");
  }
}
