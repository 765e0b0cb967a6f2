package dev.sluice.processor.resourcedetection;

import static dev.sluice.processor.resourcedetection.Requests.attribute;
import static dev.sluice.processor.resourcedetection.Requests.resource;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Message;
import com.google.protobuf.UnknownFieldSet;
import dev.sluice.pdata.Signal;
import dev.sluice.processor.resourcedetection.Requests.Block;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.resource.v1.Resource;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The conformance table: a configuration, the request that goes in and the request that must come
 * out, each case for traces, logs and metrics. Requests are built with protobuf-java and the output
 * is parsed back with it. Every block's resource is shared by two scopes (see {@link Requests}), so
 * every case also checks that a shared resource is changed once.
 *
 * <p>The machine of every case: {@code OTEL_RESOURCE_ATTRIBUTES} is {@value #ENV_ATTRIBUTES}, the
 * host's FQDN {@value #FQDN}, its system Linux.
 */
class ResourceDetectionConformanceTest {
  static final String ENV_ATTRIBUTES = "deployment.environment=prod,team=core";
  static final String FQDN = "host-1.example.com";

  private static final KeyValue DEPLOYMENT = attribute("deployment.environment", "prod");
  private static final KeyValue TEAM = attribute("team", "core");
  private static final KeyValue HOST = attribute("host.name", FQDN);
  private static final KeyValue OS = attribute("os.type", "linux");
  private static final KeyValue SERVICE = attribute("service.name", "checkout");
  private static final KeyValue OLD_TEAM = attribute("team", "old");

  private static final String OWN_SCHEMA_URL = "https://opentelemetry.io/schemas/1.26.0";

  /** A block with the schema URL the system detector gives. */
  private static Block withSchema(Resource resource) {
    return new Block(resource, SystemDetector.SCHEMA_URL, UnknownFieldSet.getDefaultInstance());
  }

  /** One row: {@code environment} null means the default machine above. */
  record Case(
      String name,
      ResourceDetectionConfig config,
      String envAttributes,
      List<Block> input,
      List<Block> expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static List<Case> cases() {
    UnknownFieldSet headerUnknown =
        UnknownFieldSet.newBuilder()
            .addField(100, UnknownFieldSet.Field.newBuilder().addVarint(42).build())
            .build();
    UnknownFieldSet resourceUnknown =
        UnknownFieldSet.newBuilder()
            .addField(
                99,
                UnknownFieldSet.Field.newBuilder()
                    .addLengthDelimited(com.google.protobuf.ByteString.copyFromUtf8("kept"))
                    .build())
            .build();
    Resource withUnknown =
        resource(SERVICE).toBuilder()
            .setDroppedAttributesCount(3)
            .setUnknownFields(resourceUnknown)
            .build();
    List<Case> cases = new ArrayList<>();
    cases.add(
        new Case(
            "override replaces existing attributes in place and appends the rest",
            ProcessorRuns.config(true, "env", "system"),
            ENV_ATTRIBUTES,
            List.of(new Block(resource(SERVICE, OLD_TEAM))),
            List.of(withSchema(resource(SERVICE, TEAM, DEPLOYMENT, HOST, OS)))));
    cases.add(
        new Case(
            "without override the resource's own attributes win",
            ProcessorRuns.config(false, "env", "system"),
            ENV_ATTRIBUTES,
            List.of(new Block(resource(SERVICE, OLD_TEAM))),
            List.of(withSchema(resource(SERVICE, OLD_TEAM, DEPLOYMENT, HOST, OS)))));
    cases.add(
        new Case(
            "a resource without attributes gets all of them in detection order",
            ProcessorRuns.config(true, "env", "system"),
            ENV_ATTRIBUTES,
            List.of(new Block(Resource.getDefaultInstance())),
            List.of(withSchema(resource(DEPLOYMENT, TEAM, HOST, OS)))));
    cases.add(
        new Case(
            "a block without a Resource message gets one",
            ProcessorRuns.config(false, "env", "system"),
            ENV_ATTRIBUTES,
            List.of(new Block(null)),
            List.of(withSchema(resource(DEPLOYMENT, TEAM, HOST, OS)))));
    cases.add(
        new Case(
            "unknown fields, dropped count and schema URL are kept",
            ProcessorRuns.config(true, "system"),
            "",
            List.of(new Block(withUnknown, "https://example.com/schema", headerUnknown)),
            List.of(
                new Block(
                    withUnknown.toBuilder().addAttributes(HOST).addAttributes(OS).build(),
                    "https://example.com/schema",
                    headerUnknown))));
    cases.add(
        new Case(
            "every resource block is changed, each once",
            ProcessorRuns.config(true, "env"),
            ENV_ATTRIBUTES,
            List.of(
                new Block(resource(SERVICE)),
                new Block(resource(attribute("service.name", "cart"), OLD_TEAM)),
                new Block(resource(attribute("service.name", "pay")))),
            List.of(
                new Block(resource(SERVICE, DEPLOYMENT, TEAM)),
                new Block(resource(attribute("service.name", "cart"), TEAM, DEPLOYMENT)),
                new Block(resource(attribute("service.name", "pay"), DEPLOYMENT, TEAM)))));
    cases.add(
        new Case(
            "the detector listed first wins an attribute both detect",
            ProcessorRuns.config(true, "env", "system"),
            "host.name=from-env",
            List.of(new Block(resource(SERVICE))),
            List.of(withSchema(resource(SERVICE, attribute("host.name", "from-env"), OS)))));
    cases.add(
        new Case(
            "listed the other way round, system wins",
            ProcessorRuns.config(true, "system", "env"),
            "host.name=from-env",
            List.of(new Block(resource(SERVICE))),
            List.of(withSchema(resource(SERVICE, HOST, OS)))));
    cases.add(
        new Case(
            "override replaces a value of another type",
            ProcessorRuns.config(true, "system"),
            "",
            List.of(
                new Block(
                    resource(
                        KeyValue.newBuilder()
                            .setKey("host.name")
                            .setValue(AnyValue.newBuilder().setIntValue(7))
                            .build()))),
            List.of(withSchema(resource(HOST, OS)))));
    cases.add(
        new Case(
            "the detected schema URL goes into blocks without one; a block's own wins",
            ProcessorRuns.config(true, "system"),
            "",
            List.of(
                new Block(resource(SERVICE)),
                new Block(resource(SERVICE), OWN_SCHEMA_URL, UnknownFieldSet.getDefaultInstance()),
                new Block(resource(SERVICE), "", headerUnknown)),
            List.of(
                withSchema(resource(SERVICE, HOST, OS)),
                new Block(
                    resource(SERVICE, HOST, OS),
                    OWN_SCHEMA_URL,
                    UnknownFieldSet.getDefaultInstance()),
                new Block(resource(SERVICE, HOST, OS), SystemDetector.SCHEMA_URL, headerUnknown))));
    cases.add(
        new Case(
            "the schema URL is written when no attribute is detected",
            new ResourceDetectionConfig(
                List.of("env", "system"),
                true,
                java.time.Duration.ofSeconds(5),
                java.time.Duration.ZERO,
                EnvDetectorConfig.DEFAULT,
                new SystemDetectorConfig(
                    SystemDetectorConfig.DEFAULT_SOURCES,
                    java.util.Map.of(
                        "host.name", new ResourceAttributeConfig(false),
                        "os.type", new ResourceAttributeConfig(false)))),
            "",
            List.of(
                new Block(resource(SERVICE)),
                new Block(resource(TEAM), OWN_SCHEMA_URL, UnknownFieldSet.getDefaultInstance())),
            List.of(
                withSchema(resource(SERVICE)),
                new Block(resource(TEAM), OWN_SCHEMA_URL, UnknownFieldSet.getDefaultInstance()))));
    cases.add(
        new Case(
            "nothing detected leaves the request as it was",
            ProcessorRuns.config(true, "env"),
            "",
            List.of(new Block(resource(SERVICE)), new Block(null)),
            List.of(new Block(resource(SERVICE)), new Block(null))));
    return cases;
  }

  static Stream<Arguments> casesForEverySignal() {
    return cases().stream()
        .flatMap(c -> Stream.of(Signal.values()).map(signal -> Arguments.of(c, signal)));
  }

  @ParameterizedTest(name = "{1}: {0}")
  @MethodSource("casesForEverySignal")
  void emitsTheExpectedRequest(Case c, Signal signal) throws Exception {
    TestEnvironment environment =
        new TestEnvironment().variable("OTEL_RESOURCE_ATTRIBUTES", c.envAttributes());
    environment.fqdn = FQDN;
    Message input = Requests.request(signal, c.input());
    byte[] output = ProcessorRuns.run(environment, c.config(), signal, input.toByteArray());
    assertThat(Requests.parse(signal, output)).isEqualTo(Requests.request(signal, c.expected()));
  }
}
