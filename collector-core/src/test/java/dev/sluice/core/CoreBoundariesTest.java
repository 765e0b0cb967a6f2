package dev.sluice.core;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.AccessTarget.Predicates.declaredIn;
import static com.tngtech.archunit.core.domain.JavaAccess.Predicates.target;
import static com.tngtech.archunit.core.domain.JavaAccess.Predicates.targetOwner;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.name;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.members;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import dev.sluice.pdata.internal.Internal;
import dev.sluice.service.DurableEntry;
import dev.sluice.service.DurableFanout;
import dev.sluice.service.DurableLog;
import dev.sluice.service.Fanout;
import dev.sluice.service.PipelineEntry;
import dev.sluice.service.PipelineGraph;
import dev.sluice.service.sender.SendingChain;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The parts of {@code collector-core} and what each may depend on: the data model and the
 * write-ahead log on nothing of Sluice's (within the data model, the builders on the rest of it and
 * nothing of it on them), the component API on the data model, the Prometheus name translation on
 * the data model's face, OTTL on the data model and the component API, the service on all of those,
 * the gRPC and Kafka support on the data model and the component API, the HTTP client on the
 * component API. A part that reaches past its line fails here, at build time. Within the service,
 * the pipelines are wired in one place, the pipeline graph.
 */
class CoreBoundariesTest {
  private static JavaClasses core;

  @BeforeAll
  static void importCore() {
    core =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(location -> !location.contains("-tests.jar"))
            .importPackages("dev.sluice");
  }

  private static void part(String part, String... allowed) {
    String[] packages = new String[allowed.length + 3];
    packages[0] = "dev.sluice." + part + "..";
    packages[1] = "java..";
    packages[2] = "javax..";
    System.arraycopy(allowed, 0, packages, 3, allowed.length);
    classes()
        .that()
        .resideInAPackage("dev.sluice." + part + "..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(packages)
        .because("the " + part + " part may use only what its line allows")
        .check(core);
  }

  @Test
  void theDataModelDependsOnNothingOfSluices() {
    part("pdata", "com.fasterxml.jackson.core..");
  }

  @Test
  void theBuildersStandOnTheDataModelAndNothingInItStandsOnThem() {
    part("pdata.build", "dev.sluice.pdata..");
    noClasses()
        .that()
        .resideInAPackage("dev.sluice.pdata..")
        .and()
        .resideOutsideOfPackage("dev.sluice.pdata.build..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.sluice.pdata.build..")
        .because(
            "the builders write requests for components through the data model's public face;"
                + " the indexer, views and marshaler do not need them")
        .check(core);
  }

  /** The face of the data model: what a component may use. */
  private static final String[] FACE = {
    "dev.sluice.pdata",
    "dev.sluice.pdata.view",
    "dev.sluice.pdata.edit",
    "dev.sluice.pdata.codec",
    "dev.sluice.pdata.build"
  };

  @Test
  void theFaceShowsNoInternalTypeOutsideMembersMarkedInternal() {
    members()
        .that()
        .areDeclaredInClassesThat()
        .resideInAnyPackage(FACE)
        .and()
        .areDeclaredInClassesThat()
        .arePublic()
        .and(isVisibleOutsideItsPackage())
        .and()
        .areNotAnnotatedWith(Internal.class)
        .should(showNoInternalType())
        .because(
            "a component sees the data model through its face; what only the data model's own"
                + " packages need is marked @Internal")
        .check(core);
  }

  @Test
  void theFaceExtendsNoInternalClass() {
    classes()
        .that()
        .resideInAnyPackage(FACE)
        .and()
        .arePublic()
        .and(not(INTERNAL_SUPERCLASS_ALLOWED))
        .should()
        .notBeAssignableTo(
            describe("a class of dev.sluice.pdata.internal", (JavaClass c) -> isInternal(c)))
        .because("a face type's inherited members are its face too")
        .check(core);
  }

  /**
   * The views and the elements a span editor adds that still share a base class with the data
   * model's internals (the field reads of a message, the writing of an added element). What they
   * inherit is public for the data model's packages; ComponentBoundariesTest keeps components off
   * it.
   */
  private static final DescribedPredicate<JavaClass> INTERNAL_SUPERCLASS_ALLOWED =
      describe(
          "a view or added element on an internal base class",
          (JavaClass c) ->
              List.of(
                      "dev.sluice.pdata.view.ResourceView",
                      "dev.sluice.pdata.view.ScopeView",
                      "dev.sluice.pdata.view.SpanView",
                      "dev.sluice.pdata.view.SpanEventView",
                      "dev.sluice.pdata.view.SpanLinkView",
                      "dev.sluice.pdata.view.LogRecordView",
                      "dev.sluice.pdata.view.MetricView",
                      "dev.sluice.pdata.view.DataPointView",
                      "dev.sluice.pdata.view.ExemplarView",
                      "dev.sluice.pdata.edit.SpanEditor$AddedEvent",
                      "dev.sluice.pdata.edit.SpanEditor$AddedLink")
                  .contains(c.getName()));

  private static boolean isInternal(JavaClass c) {
    JavaClass base = c.isArray() ? c.getBaseComponentType() : c;
    return base.getPackageName().startsWith("dev.sluice.pdata.internal");
  }

  private static DescribedPredicate<JavaMember> isVisibleOutsideItsPackage() {
    return describe(
        "public or protected",
        (JavaMember m) ->
            m.getModifiers().contains(JavaModifier.PUBLIC)
                || m.getModifiers().contains(JavaModifier.PROTECTED));
  }

  private static ArchCondition<JavaMember> showNoInternalType() {
    return new ArchCondition<>("show no type of dev.sluice.pdata.internal") {
      @Override
      public void check(JavaMember member, ConditionEvents events) {
        List<JavaClass> shown = new ArrayList<>();
        if (member instanceof JavaField field) {
          shown.add(field.getRawType());
        } else if (member instanceof JavaCodeUnit code) {
          shown.add(code.getRawReturnType());
          shown.addAll(code.getRawParameterTypes());
        }
        for (JavaClass type : shown) {
          if (isInternal(type)) {
            events.add(
                SimpleConditionEvent.violated(
                    member, member.getFullName() + " shows " + type.getName()));
          }
        }
      }
    };
  }

  @Test
  void thePrometheusNamesStandOnTheFaceOfTheDataModel() {
    String[] packages = new String[FACE.length + 2];
    packages[0] = "dev.sluice.prometheus..";
    packages[1] = "java..";
    System.arraycopy(FACE, 0, packages, 2, FACE.length);
    classes()
        .that()
        .resideInAPackage("dev.sluice.prometheus..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(packages)
        .because("the exporters' name translation reads metrics the way a component does")
        .check(core);
  }

  @Test
  void theWriteAheadLogDependsOnNothingOfSluices() {
    // ExtendedOpenOption.DIRECT: the JDK's O_DIRECT.
    part("wal", "com.sun.nio.file..");
  }

  @Test
  void theComponentApiDependsOnTheDataModelOnly() {
    part("component", "dev.sluice.pdata..");
  }

  @Test
  void ottlDependsOnTheDataModelAndTheComponentApi() {
    part("ottl", "dev.sluice.pdata..", "dev.sluice.component..");
  }

  @Test
  void theGrpcSupportDependsOnTheDataModel() {
    part("grpc", "dev.sluice.pdata..", "dev.sluice.component..", "io.grpc..", "com.github.luben..");
  }

  @Test
  void theKafkaSupportDependsOnTheComponentApi() {
    part(
        "kafka",
        "dev.sluice.pdata..",
        "dev.sluice.component..",
        "org.apache.kafka..",
        "org.slf4j..");
  }

  @Test
  void theHttpClientDependsOnTheComponentApi() {
    part("http", "dev.sluice.component..", "io.netty..");
  }

  @Test
  void theServiceDependsOnTheOtherPartsButOttlAndTheTransports() {
    part(
        "service",
        "dev.sluice.pdata..",
        "dev.sluice.component..",
        "dev.sluice.wal..",
        "com.sun.management..",
        "com.sun.net.httpserver..");
  }

  @Test
  void onlyThePipelineGraphWiresPipelines() {
    Class<?>[] parts = {
      Fanout.class, DurableFanout.class, PipelineEntry.class, DurableEntry.class, SendingChain.class
    };
    noClasses()
        .that()
        .doNotBelongToAnyOf(PipelineGraph.class)
        // A part may call its own constructors (one delegating to another, its nested classes').
        .and()
        .doNotBelongToAnyOf(parts)
        .should()
        .callConstructorWhere(targetOwner(belongToAnyOf(parts)))
        .orShould()
        .callMethodWhere(target(declaredIn(DurableLog.class).and(name("open"))))
        .because(
            "sending chains, fan-outs, entries and the write-ahead log are put together by the"
                + " pipeline graph, where the durable routing is worked out once")
        .check(core);
  }
}
