package dev.sluice.exporter.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.sluice.pdata.Batch;
import dev.sluice.pdata.BatchView;
import dev.sluice.pdata.Signal;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.resource.v1.Resource;
import java.util.HexFormat;
import java.util.SplittableRandom;
import net.jpountz.xxhash.XXHashFactory;
import org.junit.jupiter.api.Test;

/**
 * The resource key against the Collector's. The expected hashes were printed by the Collector's
 * {@code pdatautil.MapHash} (opentelemetry-collector-contrib {@code pkg/pdatautil}, pdata v1.71.0)
 * for the same maps, built with {@code pcommon}.
 */
class GoMapHashTest {
  @Test
  void hashesEveryValueTypeAsTheCollectorDoes() {
    Resource resource =
        Resource.newBuilder()
            // Out of order on purpose: the hash sorts the keys.
            .addAttributes(string("service.name", "checkout"))
            .addAttributes(kv("process.pid", AnyValue.newBuilder().setIntValue(4242)))
            .addAttributes(kv("debug", AnyValue.newBuilder().setBoolValue(true)))
            .addAttributes(kv("ratio", AnyValue.newBuilder().setDoubleValue(0.25)))
            .addAttributes(
                kv(
                    "blob",
                    AnyValue.newBuilder().setBytesValue(ByteString.copyFrom(new byte[] {1, 2, 3}))))
            .addAttributes(
                kv(
                    "tags",
                    AnyValue.newBuilder()
                        .setArrayValue(
                            ArrayValue.newBuilder()
                                .addValues(AnyValue.newBuilder().setStringValue("a"))
                                .addValues(AnyValue.newBuilder().setIntValue(7)))))
            .addAttributes(
                kv(
                    "host",
                    AnyValue.newBuilder()
                        .setKvlistValue(
                            KeyValueList.newBuilder()
                                .addValues(string("name", "h1"))
                                .addValues(string("arch", "amd64")))))
            .addAttributes(kv("nothing", AnyValue.newBuilder()))
            .build();

    assertThat(hex(resource)).isEqualTo("c66057b65a0b7d3ab2b2ff7c8737315f");
  }

  @Test
  void hashesASingleServiceNameAsTheCollectorDoes() {
    Resource resource =
        Resource.newBuilder().addAttributes(string("service.name", "checkout")).build();

    assertThat(hex(resource)).isEqualTo("831d0817d731c2054ac194e9ddcf7e5c");
  }

  @Test
  void hashesNoAttributesToSixteenZeroBytes() {
    assertThat(hex(Resource.getDefaultInstance())).isEqualTo("0".repeat(32));
  }

  @Test
  void agreesWithAReferenceXxHash64OnEveryLengthAroundItsStripes() {
    var reference = XXHashFactory.safeInstance().hash64();
    SplittableRandom random = new SplittableRandom(16);
    for (int length = 0; length < 200; length++) {
      byte[] bytes = new byte[length + 3];
      random.nextBytes(bytes);
      assertThat(XxHash64.hash(bytes, 3, length))
          .as("length %d", length)
          .isEqualTo(reference.hash(bytes, 3, length, 0));
    }
  }

  private static String hex(Resource resource) {
    ExportLogsServiceRequest request =
        ExportLogsServiceRequest.newBuilder()
            .addResourceLogs(
                ResourceLogs.newBuilder()
                    .setResource(resource)
                    .addScopeLogs(ScopeLogs.newBuilder().addLogRecords(LogRecord.newBuilder())))
            .build();
    Batch batch = TestExporters.batch(Signal.LOGS, request);
    GoMapHash hash = new GoMapHash();
    new BatchView().forEachLogRecord(batch, (r, scope, log) -> hash.hash(r));
    batch.clear();
    return HexFormat.of().formatHex(GoMapHash.bytes(hash.high(), hash.low()));
  }

  private static KeyValue string(String key, String value) {
    return kv(key, AnyValue.newBuilder().setStringValue(value));
  }

  private static KeyValue kv(String key, AnyValue.Builder value) {
    return KeyValue.newBuilder().setKey(key).setValue(value).build();
  }
}
