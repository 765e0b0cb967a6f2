package dev.sluice.collector;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.sluice.pdata.otlp.MessageRewriter;
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
 * extension-*} module, all on this module's class path) may use of the core: never the service or
 * the write-ahead log, whose work is the service's; and the data model's wire reader and writer
 * ({@code dev.sluice.pdata.wire}) only where they still do, a list that only shrinks as the data
 * model's public face grows. Nor do they use the data model's field rewrite engine, which its typed
 * editors and OTTL share. The distribution ({@code dev.sluice.collector}) hands the pipeline graph
 * to the service and builds none of its parts itself.
 */
class ComponentBoundariesTest {
  private static final String[] COMPONENTS = {
    "dev.sluice.receiver..",
    "dev.sluice.processor..",
    "dev.sluice.exporter..",
    "dev.sluice.extension.."
  };

  /**
   * The classes outside the data model that still read or write the wire themselves, or reach its
   * writer through {@code MarshalContext.output()}.
   */
  private static final String[] WIRE_USERS = {
    "dev.sluice.receiver.kafka.RecordDecoder",
    "dev.sluice.exporter.file.RecordEncoder",
    "dev.sluice.exporter.kafka.RecordEncoder",
    "dev.sluice.exporter.otlp.OtlpGrpcExporter",
    "dev.sluice.exporter.otlp.OtlpHttpExporter",
    "dev.sluice.receiver.otlp.RpcStatus",
    "dev.sluice.receiver.otlp.OtlpHttpHandler",
    "dev.sluice.receiver.otlp.GrpcServer",
    "dev.sluice.exporter.debug.DebugExporter",
    "dev.sluice.exporter.otlp.GrpcAnswers",
    "dev.sluice.exporter.otlp.HttpAnswers",
    "dev.sluice.collector.Main",
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
  void componentsEditThroughTheTypedEditorsNotTheRewriteEngine() {
    noClasses()
        .that()
        .resideInAnyPackage(COMPONENTS)
        .should()
        .dependOnClassesThat()
        .belongToAnyOf(MessageRewriter.class)
        .because(
            "the field rewrite engine serves the data model's editors and OTTL; a component edits"
                + " items through BatchItem's typed editors")
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
  void onlyTheListedClassesOutsideTheDataModelUseItsWireCode() {
    classes()
        .that()
        .resideInAnyPackage(
            "dev.sluice.receiver..",
            "dev.sluice.processor..",
            "dev.sluice.exporter..",
            "dev.sluice.extension..",
            "dev.sluice.config..",
            "dev.sluice.collector..")
        .and(
            com.tngtech.archunit.base.DescribedPredicate.not(
                com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf(wireUsers())))
        .should()
        .onlyDependOnClassesThat()
        .resideOutsideOfPackage("dev.sluice.pdata.wire..")
        .because(
            "components read and write data through the data model's views, edits and builders")
        .check(sluice);
  }

  private static Class<?>[] wireUsers() {
    Class<?>[] classes = new Class<?>[WIRE_USERS.length];
    for (int i = 0; i < classes.length; i++) {
      try {
        classes[i] = Class.forName(WIRE_USERS[i]);
      } catch (ClassNotFoundException e) {
        throw new AssertionError(WIRE_USERS[i] + " is gone: take it off the list", e);
      }
    }
    return classes;
  }
}
