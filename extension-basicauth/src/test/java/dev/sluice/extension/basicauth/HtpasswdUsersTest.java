package dev.sluice.extension.basicauth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.component.ConfigProblems;
import org.junit.jupiter.api.Test;

/** Bounds on what a bad htpasswd source makes the parser report, found by BasicAuthFuzzTest. */
class HtpasswdUsersTest {

  @Test
  void reportsTenProblemsAndCountsTheRest() {
    ConfigProblems problems = new ConfigProblems();

    var users = HtpasswdUsers.load(new BasicAuthConfig.Htpasswd("", "x\n".repeat(1000)), problems);

    assertThat(users).isNull();
    assertThat(problems.all()).hasSize(HtpasswdUsers.MAX_PROBLEMS + 1);
    assertThat(problems.all().get(0).message()).isEqualTo("line 1: expected user:hash");
    assertThat(problems.all().get(HtpasswdUsers.MAX_PROBLEMS).message())
        .isEqualTo("and 990 more lines that cannot be used");
  }

  @Test
  void shortensALongUserNameInAProblem() {
    ConfigProblems problems = new ConfigProblems();
    String name = "u".repeat(10_000);

    HtpasswdUsers.load(new BasicAuthConfig.Htpasswd("", name + ":a\n" + name + ":b"), problems);

    assertThat(problems.all())
        .singleElement()
        .satisfies(
            p ->
                assertThat(p.message())
                    .isEqualTo("line 2: user \"" + "u".repeat(64) + "...\" is listed twice"));
  }
}
