package dev.sluice.exporter.file;

import com.github.luben.zstd.ZstdInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.UnknownFieldSet;
import com.google.protobuf.util.JsonFormat;
import dev.sluice.pdata.Signal;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a file the exporter wrote back the way a user would, with protobuf-java and zstd-jni: the
 * records as bytes, and each parsed into its {@code Export*ServiceRequest}.
 */
final class FileRecords {
  private static final Pattern HEX_ID =
      Pattern.compile("\"(traceId|spanId|parentSpanId)\":\"([0-9a-f]*)\"");

  private FileRecords() {}

  /** The records of {@code file}: lines for uncompressed JSON, else length-prefixed. */
  static List<byte[]> read(Path file, String format, boolean zstd) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    List<byte[]> records = new ArrayList<>();
    if (format.equals("json") && !zstd) {
      int start = 0;
      for (int i = 0; i < bytes.length; i++) {
        if (bytes[i] == '\n') {
          records.add(Arrays.copyOfRange(bytes, start, i));
          start = i + 1;
        }
      }
      if (start != bytes.length) {
        throw new IOException("the file ends in a partial line of " + (bytes.length - start));
      }
      return records;
    }
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
    while (in.available() > 0) {
      int length = in.readInt();
      byte[] record = new byte[length];
      try {
        in.readFully(record);
      } catch (EOFException e) {
        throw new IOException("the file ends in a partial record", e);
      }
      records.add(zstd ? unzstd(record) : record);
    }
    return records;
  }

  /** Decompresses one record with zstd-jni's stream, which needs no content size in the frame. */
  static byte[] unzstd(byte[] record) throws IOException {
    try (ZstdInputStream in = new ZstdInputStream(new ByteArrayInputStream(record))) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      in.transferTo(out);
      return out.toByteArray();
    }
  }

  /** One record parsed as a request of {@code signal}: JSON with JsonFormat, else parseFrom. */
  static Message parse(Signal signal, String format, byte[] record) {
    try {
      if (format.equals("json")) {
        Message.Builder builder = builder(signal);
        JsonFormat.parser()
            .merge(hexIdsAsBase64(new String(record, StandardCharsets.UTF_8)), builder);
        return builder.build();
      }
      return builder(signal).mergeFrom(record).build();
    } catch (InvalidProtocolBufferException e) {
      throw new AssertionError("not a valid " + signal + " request: " + e.getMessage(), e);
    }
  }

  /**
   * OTLP/JSON writes trace and span IDs in hex where proto3 JSON, which protobuf-java parses, has
   * base64: the IDs are turned into base64 first.
   */
  static String hexIdsAsBase64(String otlpJson) {
    Matcher id = HEX_ID.matcher(otlpJson);
    StringBuilder json = new StringBuilder(otlpJson.length());
    while (id.find()) {
      String base64 = Base64.getEncoder().encodeToString(HexFormat.of().parseHex(id.group(2)));
      id.appendReplacement(json, "\"" + id.group(1) + "\":\"" + base64 + "\"");
    }
    id.appendTail(json);
    return json.toString();
  }

  /**
   * What a record of {@code request} reads back as: Sluice writes a request's resource blocks, so
   * unknown fields of the request message itself are not kept, and JSON drops every unknown field,
   * as proto3 JSON does.
   */
  static Message expected(Message request, String format) {
    Message blocks =
        request.toBuilder().setUnknownFields(UnknownFieldSet.getDefaultInstance()).build();
    if (!format.equals("json")) {
      return blocks;
    }
    try {
      Message.Builder builder = request.newBuilderForType();
      JsonFormat.parser().merge(JsonFormat.printer().print(blocks), builder);
      return builder.build();
    } catch (InvalidProtocolBufferException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Message.Builder builder(Signal signal) {
    return switch (signal) {
      case TRACES -> ExportTraceServiceRequest.newBuilder();
      case METRICS -> ExportMetricsServiceRequest.newBuilder();
      case LOGS -> ExportLogsServiceRequest.newBuilder();
    };
  }
}
