package dev.sluice.examples;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The examples of docs/writing-a-component.md are written as a component outside the core must be:
 * against the data model's face, never its internals (the rule the distribution's boundary test
 * holds for every component module).
 */
class ExamplesUseTheFaceTest {
  private static final String INTERNAL = "dev.sluice.pdata.internal.Internal";

  private static JavaClasses examples;

  @BeforeAll
  static void importExamples() {
    examples = new ClassFileImporter().importPackages("dev.sluice.examples");
  }

  @Test
  void theExamplesUseNoInternalPackage() {
    noClasses()
        .that()
        .resideInAPackage("dev.sluice.examples..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.sluice.pdata.internal..")
        .because("a component reads, edits and builds data through the face")
        .check(examples);
  }

  @Test
  void theExamplesTouchNoInternalMemberOfTheFace() {
    noClasses()
        .that()
        .resideInAPackage("dev.sluice.examples..")
        .should()
        .accessTargetWhere(
            describe(
                "the target is marked @Internal",
                (JavaAccess<?> access) -> access.getTarget().isAnnotatedWith(INTERNAL)))
        .because("members marked @Internal are public only for the data model's own packages")
        .check(examples);
  }
}
