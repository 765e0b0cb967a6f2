package dev.sluice.collector;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
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
 * What the components (every {@code receiver-*}, {@code processor-*}, {@code exporter-*} and {@code
 * extension-*} module, all on this module's class path, with the configuration and the
 * distribution) may use of the core: never the service or the write-ahead log, whose work is the
 * service's; of the data model only its face ({@code dev.sluice.pdata} and its {@code view}, {@code
 * edit}, {@code build} and {@code codec} packages), never {@code dev.sluice.pdata.internal}, nor a
 * member of the face marked {@link Internal}, on a face type or on the internal base class of a
 * view. The distribution ({@code dev.sluice.collector}) hands the pipeline graph to the service and
 * builds none of its parts itself.
 */
class ComponentBoundariesTest {
  private static final String[] COMPONENTS = {
    "dev.sluice.receiver..",
    "dev.sluice.processor..",
    "dev.sluice.exporter..",
    "dev.sluice.extension.."
  };

  private static final String INTERNAL = "dev.sluice.pdata.internal";

  private static final String[] OUTSIDE_THE_CORE = {
    "dev.sluice.receiver..",
    "dev.sluice.processor..",
    "dev.sluice.exporter..",
    "dev.sluice.extension..",
    "dev.sluice.config..",
    "dev.sluice.collector.."
  };

  /**
   * The classes outside the core that still use the data model's internals, each until the face has
   * what it needs; a list that only shrinks.
   */
  private static final String[] INTERNAL_USERS = {
    // The filter processor prunes span events on the wire (ProtoWriter, WireReader, OtlpFields).
    "dev.sluice.processor.filter.FilterRun",
    "dev.sluice.processor.filter.SpanEventPruner",
    // The sampler reads and writes the span's tracestate and sampling attributes on the wire.
    "dev.sluice.processor.probabilisticsampler.SpanFieldWalk",
    "dev.sluice.processor.probabilisticsampler.HashMark",
    "dev.sluice.processor.probabilisticsampler.SpanPass",
    "dev.sluice.processor.probabilisticsampler.SamplingAttributesWriter",
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
  void onlyTheListedClassesOutsideTheCoreUseTheDataModelsInternals() {
    noClasses()
        .that()
        .resideInAnyPackage(OUTSIDE_THE_CORE)
        .and(not(belongToAnyOf(internalUsers())))
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
        .and(not(belongToAnyOf(internalUsers())))
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

  private static Class<?>[] internalUsers() {
    Class<?>[] classes = new Class<?>[INTERNAL_USERS.length];
    for (int i = 0; i < classes.length; i++) {
      try {
        classes[i] = Class.forName(INTERNAL_USERS[i]);
      } catch (ClassNotFoundException e) {
        throw new AssertionError(INTERNAL_USERS[i] + " is gone: take it off the list", e);
      }
    }
    return classes;
  }
}
