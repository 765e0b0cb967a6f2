package dev.sluice.collector;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.sluice.pdata.internal.Internal;
import dev.sluice.service.DurableEntry;
import dev.sluice.service.DurableFanout;
import dev.sluice.service.DurableLayout;
import dev.sluice.service.DurableLog;
import dev.sluice.service.Fanout;
import dev.sluice.service.PipelineEntry;
import dev.sluice.service.sender.SendingChain;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What the components (every {@code receiver-*}, {@code processor-*}, {@code exporter-*}, {@code
 * connector-*} and {@code extension-*} module, all on this module's class path, with the
 * configuration and the distribution) may use of the core: never the service or the write-ahead
 * log, whose work is the service's; of the data model only its face ({@code dev.sluice.pdata} and
 * its {@code view}, {@code edit}, {@code build} and {@code codec} packages), never {@code
 * dev.sluice.pdata.internal}, nor a member of the face marked {@link Internal}, on a face type or
 * on the internal base class of a view. The distribution ({@code dev.sluice.collector}) hands the
 * pipeline graph to the service and builds none of its parts itself.
 */
class ComponentBoundariesTest {
  private static final String[] COMPONENTS = {
    "dev.sluice.receiver..",
    "dev.sluice.processor..",
    "dev.sluice.exporter..",
    "dev.sluice.connector..",
    "dev.sluice.extension.."
  };

  private static final String INTERNAL = "dev.sluice.pdata.internal";

  private static final String[] OUTSIDE_THE_CORE = {
    "dev.sluice.receiver..",
    "dev.sluice.processor..",
    "dev.sluice.exporter..",
    "dev.sluice.connector..",
    "dev.sluice.extension..",
    "dev.sluice.config..",
    "dev.sluice.collector.."
  };

  private static JavaClasses sluice;

  @BeforeAll
  static void importSluice() {
    sluice =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            // Test kits come as test jars once packaged.
            .withImportOption(location -> !location.contains("-tests.jar"))
            .importPackages("dev.sluice");
  }

  @Test
  void componentsUseNeitherTheServiceNorTheLog() {
    noClasses()
        .that()
        .resideInAnyPackage(COMPONENTS)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.sluice.service..", "dev.sluice.wal..", "dev.sluice.collector..")
        .because("a component is written against the component API; the service runs it")
        .check(sluice);
  }

  @Test
  void theDistributionLeavesThePipelineGraphToTheService() {
    noClasses()
        .that()
        .resideInAPackage("dev.sluice.collector..")
        .should()
        .dependOnClassesThat()
        .belongToAnyOf(
            Fanout.class,
            DurableFanout.class,
            PipelineEntry.class,
            DurableEntry.class,
            DurableLog.class,
            DurableLayout.class,
            SendingChain.class)
        .because(
            "the service's PipelineGraph builds and runs the pipelines; the distribution maps its"
                + " configuration to it")
        .check(sluice);
  }

  @Test
  void nothingOutsideTheCoreUsesTheDataModelsInternals() {
    noClasses()
        .that()
        .resideInAnyPackage(OUTSIDE_THE_CORE)
        .should()
        .dependOnClassesThat()
        .resideInAPackage(INTERNAL + "..")
        .because(
            "components read and write data through the data model's face: batches, views, edits,"
                + " builders and codecs")
        .check(sluice);
  }

  @Test
  void nothingOutsideTheCoreTouchesAnInternalMemberOfTheFace() {
    noClasses()
        .that()
        .resideInAnyPackage(OUTSIDE_THE_CORE)
        .should()
        .accessTargetWhere(
            describe(
                "the target is marked @Internal",
                (JavaAccess<?> access) ->
                    access.getTarget().isAnnotatedWith(Internal.class.getName())))
        .because(
            "a member marked @Internal (on a face type, or on the internal base class a view"
                + " extends) is public only for the data model's own packages")
        .check(sluice);
  }
}
